#pragma once
// `ironhold serve` processes that share one database (a TestDatabase of the run's cluster, as an
// operator's --database), with the key files every instance of a deployment shares, and what the
// scale-out tests read back from each instance: its name (leases, pg_stat_activity) and port.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "inventory/crypto/primitives.hpp"
#include "inventory/util/process.hpp"
#include "tests/app/ironhold_process.hpp"
#include "tests/support/random_key.hpp"

namespace ironhold::test {

// The master and audit keys of a deployment, made before any instance starts: instances that
// raced to create audit.key would seal the audit chain with different keys.
struct SharedKeys {
  std::filesystem::path master, audit;

  explicit SharedKeys(const std::filesystem::path& dir)
      : master(dir / "master.key"), audit(dir / "audit.key") {
    for (const auto& file : {master, audit}) {
      std::ofstream(file) << crypto::to_hex(random_key()) << "\n";
      ::chmod(file.c_str(), 0600);
    }
  }
  std::vector<std::string> args() const {
    return {"--master-key-file", master.string(), "--audit-key-file", audit.string()};
  }
};

struct ServeInstance {
  IronholdProcess process;
  std::string name;  // "ironhold-<hex>": its lease owner and application_name prefix
};

// `ironhold serve --database URL` on a free loopback port with its own data directory (its audit
// anchor), plus `extra` options; waits until it listens.
inline ServeInstance start_shared_serve(const std::string& database_url, const SharedKeys& keys,
                                        const std::filesystem::path& data_dir,
                                        const std::vector<std::string>& extra,
                                        const std::filesystem::path& log) {
  std::vector<std::string> args = {"serve",           "--database", database_url, "--data-dir",
                                   data_dir.string(), "--listen",   "127.0.0.1:0"};
  for (const auto& a : keys.args()) args.push_back(a);
  for (const auto& a : extra) args.push_back(a);
  ServeInstance instance{start_ironhold(args, log), {}};
  std::smatch m;
  const std::string text = instance.process.process->stderr_text();
  static const std::regex listening("\"instance\":\"([^\"]+)\"");
  REQUIRE(std::regex_search(text, m, listening));
  instance.name = m[1];
  return instance;
}

// An admin token, made with the server-side command against the shared database.
inline std::string shared_admin_token(const std::string& database_url, const SharedKeys& keys,
                                      const std::filesystem::path& data_dir) {
  std::vector<std::string> args = {"token",      "create",          "--database", database_url,
                                   "--data-dir", data_dir.string(), "--role",     "admin",
                                   "--name",     "scale-out-test"};
  for (const auto& a : keys.args()) args.push_back(a);
  const auto created = util::run_process(IRONHOLD_BINARY, args);
  INFO(created.err);
  REQUIRE(created.ok());
  return created.out.substr(0, created.out.find_first_of(" \n"));
}

}  // namespace ironhold::test
