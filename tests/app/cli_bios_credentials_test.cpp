// `ironhold bios`, `ironhold credentials` and `ironhold project` as a script runs them, against a
// simulated GPU server: the real binary shows the BIOS as its mockup holds it, sets a baseline,
// reports the drift (exit 1), puts it right with --wait and rotates the BMC password; `ironhold
// project set` gives a project its rotation policy on the database. Then `ironhold serve` as a
// process: after two rotations its log holds neither password the BMC was given.
#include <signal.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <pqxx/pqxx>
#include <sstream>
#include <thread>

#include "sim/redfish/fleet.hpp"
#include "tests/app/cli_run.hpp"
#include "tests/app/ironhold_process.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"
#include "tests/support/test_cluster.hpp"
#include "tests/support/test_database.hpp"
#include "tests/web/poller/poller_helpers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace cli_bios_credentials_test {

#ifdef IRONHOLD_BINARY
using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

json mockup_document(const std::string& relative) {
  std::ifstream in(project_mockup("hgx-gpu-server") / relative / "index.json");
  REQUIRE(in);
  return json::parse(in);
}

sim::RedfishFleetOptions gpu_server(const char* listen) {
  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("hgx-gpu-server");
  o.listen = listen;
  o.reset_delay = 200ms;
  return o;
}

}  // namespace

TEST_CASE("ironhold bios, credentials and project drive BIOS drift and password rotation",
          "[cli][bios][credentials]") {
  sim::RedfishFleet fleet(gpu_server("127.0.89.67:0"));
  fleet.start();
  TestServer server({}, {}, fast_poller());
  const std::map<std::string, std::string> env = {{"IRONHOLD_TOKEN", server.token("admin")},
                                                  {"IRONHOLD_URL", server.url()}};
  const auto enrolled =
      http_send(server.port(), "POST", "/api/v1/nodes",
                {{"name", "gpu-01"},
                 {"driver", "redfish"},
                 {"endpoint", fleet.endpoint(0)},
                 {"credentials", {{"username", "admin"}, {"password", "password"}}}},
                env.at("IRONHOLD_TOKEN"));
  REQUIRE(enrolled.status == 201);
  REQUIRE(
      wait_for_node(server, env.at("IRONHOLD_TOKEN"), enrolled.json()["id"],
                    [](const json& n) { return !n["last_inspected"].is_null(); })["last_inspected"]
          .is_string());

  const json bios = mockup_document("Systems/HGX_0/Bios");
  const std::string model = mockup_document("Systems/HGX_0")["Model"];
  const Run shown = run_cli({"bios", "show", "gpu-01", "-o", "json"}, env);
  INFO(shown.err);
  REQUIRE(shown.status == 0);
  CHECK(json::parse(shown.out)["attributes"] == bios["Attributes"]);
  const int numa = bios["Attributes"]["NumaNodesPerSocket"];
  const std::string wanted = std::to_string(numa == 2 ? 1 : 2);

  const Run based = run_cli({"bios", "baseline", model, "NumaNodesPerSocket=" + wanted}, env);
  INFO(based.out << based.err);
  REQUIRE(based.status == 0);
  const Run drifted = run_cli({"bios", "drift"}, env);
  CHECK(drifted.status == 1);
  CHECK(contains(drifted.out, "NumaNodesPerSocket"));
  CHECK(contains(drifted.out, "drifted"));
  const Run csv = run_cli({"bios", "drift", "--csv"}, env);
  CHECK(contains(csv.out, "gpu-01," + model + ",NumaNodesPerSocket," + wanted + "," +
                              std::to_string(numa) + ",drifted"));

  const Run set = run_cli({"bios", "set", "gpu-01", "--from-baseline", "--wait"}, env);
  INFO(set.out << set.err);
  CHECK(set.status == 0);
  CHECK(run_cli({"bios", "drift"}, env).status == 0);
  const Run history = run_cli({"bios", "history", "gpu-01"}, env);
  CHECK(contains(history.out, "NumaNodesPerSocket"));
  CHECK(contains(history.out, "(first read)"));
  CHECK(run_cli({"bios", "set", "gpu-01"}, env).status != 0);  // nothing to set: a usage error

  const Run rotated = run_cli({"credentials", "rotate", "gpu-01", "--wait"}, env);
  INFO(rotated.out << rotated.err);
  CHECK(rotated.status == 0);
  const std::string now = fleet.state(0).password();
  CHECK(now != "password");
  CHECK_FALSE(contains(rotated.out + rotated.err, now));
}

TEST_CASE("ironhold project set gives a project its BMC password rotation policy, audited",
          "[cli][credentials]") {
  TestDatabase database;
  TempDir dir{"ih-project-cli"};
  auto ironhold = [&](std::vector<std::string> args) {
    args.insert(args.end(),
                {"--database", database.owner_url(), "--data-dir", dir.path().string()});
    return run_cli(std::move(args), {});
  };
  const Run policy =
      ironhold({"project", "set", "default", "--bmc-password-max-age", "90d", "-o", "json"});
  INFO(policy.out << policy.err);
  REQUIRE(policy.status == 0);
  CHECK(json::parse(policy.out)["bmc_password_max_age_days"] == 90);
  CHECK(contains(ironhold({"project", "list"}).out, "90 days"));
  // What the rotation scan reads.
  {
    pqxx::connection c(database.url());
    pqxx::work tx(c);
    CHECK(tx.exec1("SELECT bmc_password_max_age_days FROM projects WHERE name = 'default'")[0]
              .as<int>() == 90);
    CHECK(tx.exec1("SELECT count(*) FROM audit_log WHERE action = 'project.update' "
                   "   AND details->>'bmc_password_max_age_days' = '90'")[0]
              .as<int>() == 1);
  }
  const Run refused = ironhold({"project", "set", "default", "--bmc-password-max-age", "soon"});
  CHECK(refused.status == 2);
  CHECK(contains(refused.err, "\"soon\""));
  CHECK(ironhold({"project", "set", "default", "--bmc-password-max-age", "0"}).status != 0);
  CHECK(ironhold({"project", "set", "nowhere", "--bmc-password-max-age", "30"}).status != 0);
  CHECK(json::parse(
            ironhold({"project", "set", "default", "--bmc-password-max-age", "never", "-o", "json"})
                .out)["bmc_password_max_age_days"]
            .is_null());
  CHECK(contains(ironhold({"project", "list"}).out, "never"));
}

TEST_CASE("ironhold serve's log never holds a rotated BMC password", "[app][credentials]") {
  sim::RedfishFleet fleet(gpu_server("127.0.89.68:0"));
  fleet.start();
  const TempDir scratch("ih-rotate-log");
  const fs::path data = scratch.path() / "data";
  const fs::path log = scratch.path() / "serve.log";
  auto served = start_ironhold({"serve", "--data-dir", data.string(), "--listen", "127.0.0.1:0",
                                "--shutdown-grace", "2000", "--poll-status-interval", "2"},
                               log);
  const std::string token = admin_token(data, "rotator");
  const auto enrolled =
      http_send(served.port, "POST", "/api/v1/nodes",
                {{"name", "gpu-log-01"},
                 {"driver", "redfish"},
                 {"endpoint", fleet.endpoint(0)},
                 {"credentials", {{"username", "admin"}, {"password", "password"}}}},
                token);
  REQUIRE(enrolled.status == 201);
  const std::string node = enrolled.json()["id"];
  std::vector<std::string> given;
  for (const json& body : {json::object(), json{{"password", "Op3rator-given.pw"}}}) {
    const auto started = http_send(served.port, "POST",
                                   "/api/v1/nodes/" + node + "/credentials/rotate", body, token);
    REQUIRE(started.status == 202);
    std::string state;
    for (int i = 0; i < 300 && state != "succeeded" && state != "failed"; ++i) {
      std::this_thread::sleep_for(200ms);
      state =
          http_get(served.port, "/api/v1/tasks/" + started.json()["id"].get<std::string>(), token)
              .json()["state"];
    }
    REQUIRE(state == "succeeded");
    given.push_back(fleet.state(0).password());
  }
  CHECK(given[1] == "Op3rator-given.pw");
  served.process->signal(SIGTERM);
  REQUIRE(served.process->wait(60s) == 0);
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  REQUIRE(contains(text.str(), "\"msg\":\"listening\""));
  for (const auto& password : given) CHECK_FALSE(contains(text.str(), password));
}

#endif

}  // namespace cli_bios_credentials_test
