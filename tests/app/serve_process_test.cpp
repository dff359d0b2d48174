// `ironhold serve` as a process on its embedded database: a data directory under a 0700 home (as
// /root is), a restart that keeps the data, recovery from a killed ironhold, and clean stops.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "inventory/db/embedded_cluster.hpp"
#include "inventory/util/concat.hpp"
#include "inventory/util/process.hpp"
#include "tests/app/ironhold_process.hpp"
#include "tests/support/server/child_process.hpp"
#include "tests/support/server/http_client.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace serve_process_test {

using namespace ironhold::test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

IronholdProcess start_serve(const fs::path& data_dir, const fs::path& log_file) {
  return start_ironhold({"serve", "--data-dir", data_dir.string(), "--listen", "127.0.0.1:0",
                         "--shutdown-grace", "2000"},
                        log_file);
}

std::string create_token(const fs::path& data_dir) {
  auto r = ironhold::util::run_process(
      IRONHOLD_BINARY, {"token", "create", "--data-dir", data_dir.string(), "--role", "admin",
                        "--name", ironhold::util::concat("t", std::to_string(::getpid()))});
  INFO(r.err);
  REQUIRE(r.ok());
  // The token alone on stdout, once.
  REQUIRE(r.out.size() == 47);
  CHECK(r.out.rfind("ih_", 0) == 0);
  CHECK(r.out.back() == '\n');
  CHECK(r.err.find(r.out.substr(0, 46)) == std::string::npos);
  return r.out.substr(0, 46);
}

}  // namespace

TEST_CASE("serve runs on its embedded database under a 0700 home, survives restarts and a kill -9",
          "[app][serve][embedded]") {
  char home_template[] = "/tmp/ih-home-XXXXXX";
  REQUIRE(::mkdtemp(home_template));
  const fs::path home = home_template;
  ::chmod(home.c_str(), 0700);  // like /root: the unprivileged database user cannot enter
  const fs::path data = home / "data";
  const fs::path log1 = home / "serve1.log", log2 = home / "serve2.log", log3 = home / "serve3.log";

  std::string node_id;
  std::string token;
  {
    auto served = start_serve(data, log1);
    token = create_token(data);  // a second ironhold process on the same data directory
    auto created = http_send(
        served.port, "POST", "/api/v1/nodes",
        {{"name", "persist-1"}, {"driver", "ipmi"}, {"endpoint", "ipmi://127.0.0.1:6230"}}, token);
    REQUIRE(created.status == 201);
    node_id = created.json()["id"];
    CHECK(http_get(served.port, "/healthz", std::nullopt).json()["database"] == "ok");
    served.process->signal(SIGTERM);
    const auto status = served.process->wait(60s);
    INFO(served.process->stderr_text());
    REQUIRE(status == 0);
    CHECK(served.process->stderr_text().find("\"msg\":\"stopped\"") != std::string::npos);
  }
  {
    auto served = start_serve(data, log2);
    CHECK(http_get(served.port, "/api/v1/nodes/persist-1", token).json()["id"] == node_id);
    served.process->signal(SIGKILL);  // leaves the database running and its owner file stale
    REQUIRE(served.process->wait(30s) == -SIGKILL);
  }
  {
    auto served = start_serve(data, log3);
    INFO(served.process->stderr_text());
    CHECK(http_get(served.port, "/api/v1/nodes/persist-1", token).json()["id"] == node_id);
    served.process->signal(SIGINT);
    REQUIRE(served.process->wait(60s) == 0);
  }
  // Clean up the cluster, wherever it lives for this data directory.
  fs::path cluster_dir;
  {
    auto cluster = ironhold::db::EmbeddedCluster::start({data});
    cluster_dir = cluster->cluster_dir();
    if (::geteuid() == 0) CHECK(cluster_dir.string().rfind(home.string(), 0) != 0);  // relocated
    cluster->stop();
  }
  std::error_code ec;
  fs::remove_all(cluster_dir.parent_path(), ec);
  fs::remove_all(home, ec);
}

}  // namespace serve_process_test
