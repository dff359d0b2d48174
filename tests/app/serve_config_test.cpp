// `ironhold serve --config FILE` as an operator runs it from systemd: the address, the database and
// the key file come from the file alone, in a file shared with the client commands' keys; and a
// broken file stops the real binary with its line, not its secret.
#include <signal.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "app/cli/config_file.hpp"
#include "tests/app/cli_run.hpp"
#include "tests/app/ironhold_process.hpp"
#include "tests/support/random_key.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/test_cluster.hpp"
#include "tests/support/test_database.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace serve_config_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// A TOML basic string.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out + '"';
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  ::chmod(path.c_str(), 0600);
}

}  // namespace

TEST_CASE("serve takes its address, database and master key from --config",
          "[app][serve][config]") {
  TestDatabase database;
  TempDir dir("ih-serve-config");
  const fs::path key = dir.path() / "master.key";
  write_file(key, crypto::to_hex(random_key()) + "\n");
  const fs::path config = dir.path() / "ironhold.toml";
  write_file(config,
             "# shared by the service and the commands run beside it\n"
             "database = " +
                 quoted(database.owner_url()) +
                 "\n"
                 "data-dir = " +
                 quoted((dir.path() / "data").string()) +
                 "\n"
                 "log_level = 'info'\n"
                 "url = 'http://127.0.0.1:1'   # the client commands' key, not serve's\n"
                 "\n"
                 "[serve]\n"
                 "listen = \"127.0.0.1:0\"\n"
                 "master-key-file = " +
                 quoted(key.string()) +
                 "\n"
                 "shutdown-grace = 1_000\n"
                 "no-poller = true\n"
                 "no-tasks = false\n"
                 "\n"
                 "[node.list]\n"
                 "output = \"json\"\n");

  auto served = start_ironhold({"serve", "--config", config.string()}, dir.path() / "serve.log");
  INFO(served.process->stderr_text());
  CHECK(served.port != 8080);  // the default, had the file's listen been ignored
  // The file's database, not an embedded cluster of the data directory.
  CHECK(served.process->stderr_text().find("\"embedded_database\":false") != std::string::npos);
  const auto health = http_get(served.port, "/healthz", std::nullopt);
  CHECK(health.status == 200);
  CHECK(health.json()["database"] == "ok");
  CHECK(fs::exists(dir.path() / "audit.key"));  // made beside the file's master key
  served.process->signal(SIGTERM);
  REQUIRE(served.process->wait(60s) == 0);
}

TEST_CASE("a broken --config stops the binary with the file's line and without its values",
          "[app][config]") {
  TempDir dir("ih-bad-config");
  const fs::path config = dir.path() / "ironhold.toml";
  write_file(config,
             "token = \"ih_not-a-real-token-Sekr1t\"\n"
             "[migrate]\n"
             "databse = \"postgresql://u:Sekr1t@h/db\"\n");
  const Run flag = run_cli({"migrate", "--config", config.string()});
  CHECK(flag.status == 2);
  CHECK(flag.err.find(config.string() + ":3: unknown key databse in [migrate]") !=
        std::string::npos);
  CHECK(flag.err.find("Sekr1t") == std::string::npos);

  const Run env = run_cli({"migrate"}, {{"IRONHOLD_CONFIG", config.string()}});
  CHECK(env.status == 2);
  CHECK(env.err == flag.err);

  const Run missing = run_cli({"node", "list", "--config", (dir.path() / "nope").string()});
  CHECK(missing.status == 2);
  CHECK(missing.err.find("cannot read the config file " + (dir.path() / "nope").string()) !=
        std::string::npos);
}

TEST_CASE("serve refuses an HTTP client for BMCs it does not have, before it starts anything",
          "[app][config]") {
  TempDir dir("ih-bad-http-client");
  const Run run =
      run_cli({"serve", "--bmc-http-client", "curl", "--data-dir", (dir.path() / "data").string()});
  CHECK(run.status == 2);
  CHECK(run.err.find("--bmc-http-client must be asio or libcurl") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path() / "data"));
}

TEST_CASE("packaging/ironhold.toml.example parses, and shows every option of serve",
          "[app][config]") {
  std::ifstream in(std::string(IRONHOLD_SOURCE_DIR) + "/packaging/ironhold.toml.example");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  CHECK_NOTHROW(cli::parse_config(text.str(), "example"));

  // Every commented-out setting, switched on.
  const std::regex setting("^# ([a-z][a-z0-9_-]* = .*)$");
  std::string uncommented, line;
  for (std::istringstream lines(text.str()); std::getline(lines, line);)
    uncommented += std::regex_replace(line, setting, "$1") + "\n";
  const auto file = cli::parse_config(uncommented, "example");
  std::set<std::string> in_file;
  for (const auto& e : file.entries) in_file.insert(e.name);

  const Run help = run_cli({"serve", "--help"});
  REQUIRE(help.status == 0);
  std::set<std::string> options;
  const std::regex option_name("--([a-z][a-z-]*)");
  for (auto it = std::sregex_iterator(help.out.begin(), help.out.end(), option_name);
       it != std::sregex_iterator(); ++it)
    options.insert((*it)[1]);
  options.erase("help");
  options.erase("config");
  REQUIRE(options.size() > 20);
  for (const auto& name : options) {
    INFO(name);
    CHECK(in_file.count(name) == 1);
  }
  for (const auto& name : in_file) {
    INFO(name);
    CHECK(options.count(name) == 1);
  }
}

}  // namespace serve_config_test
