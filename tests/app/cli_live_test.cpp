// The real `ironhold` binary end to end: run as a child process (stdin, stdout, stderr and the
// exit status as a user or script sees them), first without a server (help, usage errors, an
// unreachable URL), then against a real Ironhold service over a fresh database (TestServer).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli/http_client.hpp"
#include "tests/app/cli_run.hpp"
#include "tests/support/server/test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace cli_live_test {
#define IRONHOLD_HAVE_TEST_SERVER 1

#ifdef IRONHOLD_BINARY
namespace {

using ironhold::test::Run;
using ironhold::test::run_cli;
using ironhold::test::temp_file;
using nlohmann::json;

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

// A URL nobody listens on: a port the kernel just handed out and that was released again.
std::string dead_url() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
}
const std::string kDeadUrl = dead_url();

}  // namespace

TEST_CASE("ironhold node: help on every subcommand exits 0", "[cli][binary]") {
  auto top = run_cli({"node", "--help"});
  CHECK(top.status == 0);
  CHECK(contains(top.out, "Commands:"));
  for (const char* sub : {"list", "show", "enroll", "set", "rm", "import"}) {
    auto r = run_cli({"node", sub, "--help"});
    INFO(sub << ": " << r.err);
    CHECK(r.status == 0);
    CHECK(contains(r.out, std::string("Usage: ironhold node ") + sub));
    CHECK(contains(r.out, "[env: IRONHOLD_URL]"));
  }
}

TEST_CASE("ironhold node: usage mistakes exit 2 and say what is wrong", "[cli][binary]") {
  auto bad_option = run_cli({"node", "list", "--colour", "red"});
  CHECK(bad_option.status == 2);
  CHECK(contains(bad_option.err, "error: unknown option --colour"));
  CHECK(contains(bad_option.err, "ironhold node list --help"));
  CHECK(run_cli({"node", "frobnicate"}).status == 2);
  CHECK(run_cli({"node"}).status == 2);
  CHECK(run_cli({"node", "show"}).status == 2);  // NODE missing
  CHECK(run_cli({"node", "list", "-o", "yaml"}).status == 2);
  CHECK(run_cli({"node", "enroll", "n", "--endpoint", "e"}).status == 2);  // --driver missing
}

TEST_CASE("ironhold node: an unreachable server is named", "[cli][binary]") {
  auto r = run_cli({"node", "list", "--url", kDeadUrl});
  CHECK(r.status == 1);
  CHECK(contains(r.err, "error: cannot reach " + kDeadUrl));
  auto via_env = run_cli({"node", "show", "x"}, {{"IRONHOLD_URL", kDeadUrl}});
  CHECK(via_env.status == 1);
  CHECK(contains(via_env.err, "cannot reach " + kDeadUrl));
}

TEST_CASE("ironhold node import: a bad file is rejected before anything is sent", "[cli][binary]") {
  // The URL is dead: an error about the file, not the connection, shows nothing was sent.
  auto unknown = run_cli({"node", "import", "-", "--url", kDeadUrl}, {},
                         "name,driver,colour\nn1,redfish,red\n");
  CHECK(unknown.status == 1);
  CHECK(contains(unknown.err, "error: unknown column \"colour\""));
  auto ragged = run_cli({"node", "import", "-", "--url", kDeadUrl}, {},
                        "name,driver\nn1,redfish\nn2,redfish,extra\n");
  CHECK(ragged.status == 1);
  CHECK(contains(ragged.err, "error: stdin line 3 has 3 fields"));
  auto missing = run_cli({"node", "import", "/nonexistent/nodes.csv", "--url", kDeadUrl});
  CHECK(missing.status == 2);
  CHECK(contains(missing.err, "cannot open /nonexistent/nodes.csv"));
}

#ifdef IRONHOLD_HAVE_TEST_SERVER
namespace {

using ironhold::test::TestServer;

// One service for the whole file: each test uses names of its own, so they stay independent.
TestServer& server() {
  static TestServer instance;
  return instance;
}

const std::string& admin_token() {
  static const std::string token = server().token("admin");
  return token;
}

Run as_admin(std::vector<std::string> args, const std::string& input = {}) {
  args.insert(args.end(), {"--url", server().url()});
  return run_cli(std::move(args), {{"IRONHOLD_TOKEN", admin_token()}}, input);
}

json parse_out(const Run& r) {
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  auto j = json::parse(r.out, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  return j;
}

}  // namespace

TEST_CASE("live: enroll, then show returns the same node, the password never shows",
          "[cli][live]") {
  const std::string secret = "Sup3r-s3cret-pw";
  auto enrolled = as_admin({"node",
                            "enroll",
                            "cli-gpu-a01",
                            "--driver",
                            "redfish",
                            "--endpoint",
                            "https://127.0.0.1:1",
                            "--username",
                            "root",
                            "--password-stdin",
                            "--site",
                            "dc1",
                            "--rack",
                            "r12",
                            "--unit",
                            "7",
                            "--tag",
                            "team=ml",
                            "--option",
                            "tls=insecure",
                            "-o",
                            "json"},
                           secret + "\n");
  const json node = parse_out(enrolled);
  CHECK(node["name"] == "cli-gpu-a01");
  CHECK(node["driver"] == "redfish");
  CHECK(node["location"]["site"] == "dc1");
  CHECK(node["location"]["unit"] == 7);
  CHECK(node["tags"]["team"] == "ml");
  CHECK(node["credentials_set"] == true);
  CHECK_FALSE(contains(enrolled.out + enrolled.err, secret));

  const json shown = parse_out(as_admin({"node", "show", "cli-gpu-a01", "-o", "json"}));
  CHECK(shown["id"] == node["id"]);
  CHECK(shown["endpoint"] == "https://127.0.0.1:1");
  const json by_id =
      parse_out(as_admin({"node", "show", node["id"].get<std::string>(), "-o", "json"}));
  CHECK(by_id["name"] == "cli-gpu-a01");

  auto table = as_admin({"node", "show", "cli-gpu-a01"});
  CHECK(table.status == 0);
  CHECK(contains(table.out, "cli-gpu-a01"));
  CHECK(contains(table.out, "dc1 / r12 / 7"));
  CHECK_FALSE(contains(table.out, secret));
}

TEST_CASE("live: set patches tags, options and maintenance", "[cli][live]") {
  parse_out(as_admin({"node", "enroll", "cli-set-1", "--driver", "ipmi", "--endpoint",
                      "ipmi://127.0.0.1", "--tag", "team=ml", "--tag", "tier=gold", "-o", "json"}));
  const json patched = parse_out(as_admin(
      {"node", "set", "cli-set-1", "--tag", "team=infra", "--untag", "tier", "--option",
       "privilege=operator", "--maintenance", "on", "--reason", "fan swap", "-o", "json"}));
  CHECK(patched["tags"] == json{{"team", "infra"}});
  CHECK(patched["options"]["privilege"] == "operator");
  CHECK(patched["maintenance"] == true);
  CHECK(patched["maintenance_reason"] == "fan swap");

  auto nothing = as_admin({"node", "set", "cli-set-1"});
  CHECK(nothing.status == 2);
}

TEST_CASE("live: list -o json follows the cursor through every page", "[cli][live]") {
  ironhold::cli::HttpClient client({.base_url = server().url(), .token = admin_token()});
  constexpr int kNodes = 150;  // more than the server's default page of 100
  for (int i = 0; i < kNodes; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "cli-page-%03d", i);
    client.post("/api/v1/nodes", {{"name", name},
                                  {"driver", "ipmi"},
                                  {"endpoint", "ipmi://127.0.0.1"},
                                  {"tags", {{"batch", "paging"}}}});
  }
  const json all = parse_out(as_admin({"node", "list", "--tag", "batch:paging", "-o", "json"}));
  REQUIRE(all.is_array());
  CHECK(all.size() == kNodes);
  std::set<std::string> names;
  for (const auto& n : all) names.insert(n["name"].get<std::string>());
  CHECK(names.size() == kNodes);  // no page fetched twice

  const json sorted = parse_out(as_admin(
      {"node", "list", "-q", "cli-page-", "--sort", "-name", "--limit", "120", "-o", "json"}));
  REQUIRE(sorted.size() == 120);
  CHECK(sorted[0]["name"] == "cli-page-149");
  CHECK(sorted[119]["name"] == "cli-page-030");

  auto table = as_admin({"node", "list", "--tag", "batch:paging"});
  CHECK(table.status == 0);
  CHECK(table.out.starts_with("NAME "));
  CHECK(std::count(table.out.begin(), table.out.end(), '\n') == kNodes + 1);
}

TEST_CASE("live: import enrolls the good rows and names the bad ones", "[cli][live]") {
  const std::string csv =
      "name,driver,endpoint,username,password,site,tag:team,unit\r\n"
      "cli-imp-good,redfish,https://127.0.0.1:1,root,pw-imp-1,dc1,ml,3\r\n"
      "cli-imp-bad,teleport,https://127.0.0.1:1,root,pw-imp-2,dc1,ml,4\r\n"
      "cli-imp-unit,redfish,https://127.0.0.1:1,root,pw-imp-3,dc1,ml,four\r\n";
  auto r = as_admin({"node", "import", "-"}, csv);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.status == 1);
  CHECK(contains(r.out, "row 2 cli-imp-good: created "));
  CHECK(contains(r.out, "row 3 cli-imp-bad: failed: "));
  CHECK(contains(r.out, "row 4 cli-imp-unit: failed: column unit must be a whole number"));
  CHECK(contains(r.out, "1 created, 2 failed"));
  CHECK_FALSE(contains(r.out + r.err, "pw-imp-"));

  const json good = parse_out(as_admin({"node", "show", "cli-imp-good", "-o", "json"}));
  CHECK(good["tags"]["team"] == "ml");
  CHECK(good["location"]["unit"] == 3);
  CHECK(as_admin({"node", "show", "cli-imp-bad"}).status == 1);

  // The JSON report: the repeated name fails (conflict), the new one is created.
  const std::string path = temp_file(
      "name,driver,endpoint\ncli-imp-good,redfish,https://127.0.0.1:1\n"
      "cli-imp-json,ipmi,ipmi://127.0.0.1\n");
  auto j = as_admin({"node", "import", path, "-o", "json"});
  ::unlink(path.c_str());
  CHECK(j.status == 1);
  const json report = json::parse(j.out, nullptr, false);
  REQUIRE(report.is_array());
  REQUIRE(report.size() == 2);
  CHECK(report[0]["row"] == 2);
  CHECK(report[0]["name"] == "cli-imp-good");
  CHECK(report[0]["status"] == "failed");
  CHECK_FALSE(report[0]["error"].get<std::string>().empty());
  CHECK(report[1]["status"] == "created");
  CHECK(report[1]["id"].is_string());

  auto all_good =
      as_admin({"node", "import", "-"}, "name,driver,endpoint\ncli-imp-ok,ipmi,ipmi://127.0.0.1\n");
  CHECK(all_good.status == 0);
}

TEST_CASE("live: the server's own message explains a refusal", "[cli][live]") {
  auto bad_token =
      run_cli({"node", "list", "--url", server().url()}, {{"IRONHOLD_TOKEN", "not-a-real-token"}});
  CHECK(bad_token.status == 1);
  CHECK(bad_token.err.starts_with("error: "));
  // A problem+json answer has at least a title: the generic fallback means it was not read.
  CHECK_FALSE(contains(bad_token.err, "the server answered HTTP"));

  auto viewer = run_cli({"node", "enroll", "cli-viewer-x", "--driver", "ipmi", "--endpoint",
                         "ipmi://127.0.0.1", "--url", server().url()},
                        {{"IRONHOLD_TOKEN", server().token("viewer")}});
  CHECK(viewer.status == 1);
  CHECK(viewer.err.starts_with("error: "));

  auto missing = as_admin({"node", "show", "cli-no-such-node"});
  CHECK(missing.status == 1);
  CHECK(missing.err.starts_with("error: "));
}

TEST_CASE("live: rm retires a node", "[cli][live]") {
  parse_out(as_admin({"node", "enroll", "cli-rm-1", "--driver", "ipmi", "--endpoint",
                      "ipmi://127.0.0.1", "-o", "json"}));
  auto r = as_admin({"node", "rm", "cli-rm-1"});
  CHECK(r.status == 0);
  CHECK(r.out == "retired cli-rm-1\n");
}
#endif  // IRONHOLD_HAVE_TEST_SERVER
#endif  // IRONHOLD_BINARY

}  // namespace cli_live_test
