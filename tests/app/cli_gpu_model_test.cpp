// `ironhold gpu-model` as an admin's script runs it against a real service: set a model, map a
// string a node reports, see it leave the unmapped list, rename and remove; usage errors exit 2,
// refusals 1 with the server's reason.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "inventory/db/poll_store.hpp"
#include "tests/app/cli_run.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace cli_gpu_model_test {

#ifdef IRONHOLD_BINARY
using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;

TEST_CASE("ironhold gpu-model maps what nodes report to one model", "[app][cli][gpu_catalogue]") {
  TestServer server;
  const std::string admin = server.token("admin");
  const std::map<std::string, std::string> env = {{"IRONHOLD_TOKEN", admin}};
  auto cli = [&](std::vector<std::string> args) {
    args.insert(args.end(), {"--url", server.url()});
    return run_cli(std::move(args), env);
  };
  // A node whose inspection found a GPU the catalogue does not know.
  const auto created = http_send(server.port(), "POST", "/api/v1/nodes",
                                 {{"name", "gpu-x"},
                                  {"driver", "redfish"},
                                  {"endpoint", "https://127.0.0.9:1"},
                                  {"credentials", {{"username", "u"}, {"password", "p"}}}},
                                 admin);
  REQUIRE(created.status == 201);
  const std::string id = created.json()["id"];
  SystemInventory system;
  system.system_id = "1";
  system.status.system_id = "1";
  system.summary.gpu_model = "Acme Fury X2";
  system.summary.gpu_count = 4;
  InspectionReport report;
  report.systems.push_back(std::move(system));
  db::PollResult found;
  found.kind = db::PollKind::inventory;
  found.node_id = id;
  found.report = std::move(report);
  const std::vector<db::PollResult> results{std::move(found)};
  server.host().polls().record(results, "cli-test");

  Run r = cli({"gpu-model", "unmapped"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("Acme Fury X2") != std::string::npos);
  CHECK(r.out.find("gpu-x") != std::string::npos);

  r = cli({"gpu-model", "set", "Acme Fury X2 64GB", "--vendor", "Acme", "--family", "Fury",
           "--model", "X2", "--memory-gib", "64", "--form-factor", "OAM"});
  REQUIRE(r.status == 0);
  r = cli({"gpu-model", "alias", "Acme Fury X2 64GB", "acme fury x2"});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("1 node(s) re-resolved") != std::string::npos);
  CHECK(http_get(server.port(), "/api/v1/nodes/" + id, admin).json()["hardware"]["gpu_model"] ==
        "Acme Fury X2 64GB");
  r = cli({"gpu-model", "unmapped", "-o", "json"});
  REQUIRE(r.status == 0);
  CHECK(json::parse(r.out).empty());

  // Fields not given stay; a rename carries the node along.
  r = cli({"gpu-model", "set", "Acme Fury X2 64GB", "--rename", "Acme Fury X2 OAM 64GB"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  r = cli({"gpu-model", "show", "Acme Fury X2 OAM 64GB"});
  REQUIRE(r.status == 0);
  const json shown = json::parse(r.out);
  CHECK(shown["form_factor"] == "OAM");
  CHECK(shown["memory_gib"] == 64);
  CHECK(shown["nodes"] == 1);
  CHECK(shown["gpus"] == 4);
  r = cli({"gpu-model", "list"});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("Acme Fury X2 OAM 64GB") != std::string::npos);

  // Mistakes: a usage error exits 2; the server's refusal exits 1 and says why.
  CHECK(cli({"gpu-model", "alias", "only-one"}).status == 2);
  CHECK(cli({"gpu-model", "set", "X", "--memory-gib", "lots"}).status == 2);
  r = cli({"gpu-model", "set", "New GPU", "--vendor", "V", "--family", "F", "--model", "M",
           "--form-factor", "card"});
  CHECK(r.status == 1);
  CHECK(r.err.find("form_factor") != std::string::npos);
  r = run_cli({"gpu-model", "alias", "Acme Fury X2 OAM 64GB", "x", "--url", server.url()},
              {{"IRONHOLD_TOKEN", server.token("operator")}});
  CHECK(r.status == 1);

  r = cli({"gpu-model", "rm", "Acme Fury X2 OAM 64GB"});
  REQUIRE(r.status == 0);
  CHECK(http_get(server.port(), "/api/v1/nodes/" + id, admin).json()["hardware"]["gpu_model"] ==
        "Acme Fury X2");
}

#endif

}  // namespace cli_gpu_model_test
