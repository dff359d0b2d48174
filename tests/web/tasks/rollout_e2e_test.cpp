// Firmware rollouts end to end against simulated Redfish servers: a rollout that succeeds (canary
// first, then batches, every node updated once and confirmed), one halted by a failing canary, one
// halted by a node turning critical in its health gate, one halted by an update that never
// finishes, pause and resume, abort, and the requests refused before anything starts.
#include <catch2/catch.hpp>

#include "sim/redfish/faults.hpp"
#include "sim/redfish/fleet.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/web/poller/poller_helpers.hpp"
#include "tests/web/tasks/task_helpers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace rollout_e2e_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;

namespace {

struct RolloutFleet {
  TestServer server{{}, {}, fast_poller()};
  sim::RedfishFleet fleet;
  std::string token = server.token("operator");
  std::vector<std::string> nodes;  // ids, by name order (rollout order)
  std::string bmc_version;         // what the BMC component reports before

  static sim::RedfishFleetOptions options(unsigned count) {
    sim::RedfishFleetOptions o;
    o.mockup_dir = project_mockup("hgx-gpu-server");
    o.count = count;
    o.reset_delay = 100ms;
    o.updater.update_time = 400ms;
    return o;
  }

  explicit RolloutFleet(unsigned count) : fleet(options(count)) {
    fleet.start();
    for (unsigned i = 0; i < count; ++i)
      nodes.push_back(enroll_redfish(server, token, "ro-" + std::to_string(i), fleet.endpoint(i)));
    for (const auto& id : nodes)
      REQUIRE(wait_for_node(server, token, id, [](const json& n) {
                return n["lifecycle"] == "available";
              })["lifecycle"] == "available");
    const json firmware =
        http_get(server.port(), "/api/v1/nodes/" + nodes[0] + "/firmware", token).json();
    for (const auto& item : firmware["items"])
      if (item["component"] == "BMC") bmc_version = item["version"];
    REQUIRE_FALSE(bmc_version.empty());
  }

  std::string image(const std::string& version) {
    std::string bytes = "IRONHOLD-FIRMWARE component=BMC version=" + version + "\n";
    bytes.resize(100'000, 'x');
    HttpRequest r;
    r.method = "POST";
    r.target = "/api/v1/firmware/images?name=bmc-" + version + ".bin&version=" + version +
               "&component=BMC";
    r.body = bytes;
    r.token = server.token("admin");
    r.content_type = "application/octet-stream";
    const auto created = http_request(server.port(), r);
    REQUIRE(created.status == 201);
    return created.json()["id"];
  }

  HttpResult post(const std::string& target, const json& body) {
    return http_send(server.port(), "POST", target, body, token);
  }

  json start(const json& body) {
    const auto res = post("/api/v1/firmware/rollouts", body);
    INFO(res.body);
    REQUIRE(res.status == 201);
    CHECK(res.header("location") ==
          "/api/v1/firmware/rollouts/" + res.json()["id"].get<std::string>());
    return res.json();
  }

  json get(const std::string& id) {
    const auto res = http_get(server.port(), "/api/v1/firmware/rollouts/" + id, token);
    REQUIRE(res.status == 200);
    return res.json();
  }

  template <class Pred>
  json wait(const std::string& id, Pred ready, std::chrono::seconds deadline = 90s) {
    const auto until = std::chrono::steady_clock::now() + deadline;
    json r;
    while (std::chrono::steady_clock::now() < until) {
      r = get(id);
      if (ready(r)) return r;
      std::this_thread::sleep_for(100ms);
    }
    return r;
  }

  json wait_state(const std::string& id, const std::string& state) {
    return wait(id, [&](const json& r) { return r["state"] == state; });
  }

  unsigned updates(unsigned i) {
    return fleet.describe(i)["counters"]["firmware_updates"].get<unsigned>();
  }
};

json node_entry(const json& rollout, const std::string& name) {
  for (const auto& n : rollout["nodes"])
    if (n["node_name"] == name) return n;
  return nullptr;
}

}  // namespace

TEST_CASE("a rollout updates the canary first, then each batch, every node once",
          "[tasks][firmware][rollout][e2e]") {
  RolloutFleet f(4);
  const std::string version = f.bmc_version + "-r1";
  const json created = f.start({{"image", f.image(version)},
                                {"selector", {{"names", "ro-0,ro-1,ro-2,ro-3"}}},
                                {"canary", 1},
                                {"batch_size", 2},
                                {"health_gate_seconds", 1}});
  CHECK(created["matched"] == 4);
  CHECK(created["batches"] == 3);  // the canary, then two batches of two
  CHECK(node_entry(created, "ro-0")["canary"] == true);
  CHECK(node_entry(created, "ro-3")["batch"] == 2);

  const json done = f.wait_state(created["id"], "succeeded");
  INFO(done.dump(2));
  REQUIRE(done["state"] == "succeeded");
  CHECK(done["counts"]["succeeded"] == 4);
  CHECK_FALSE(done["finished_at"].is_null());
  for (unsigned i = 0; i < 4; ++i) {
    CHECK(f.updates(i) == 1);
    const json n = node_entry(done, "ro-" + std::to_string(i));
    CHECK(n["from_version"] == f.bmc_version);
    const json task = get_task(f.server, f.token, n["task_id"]);
    CHECK(task["kind"] == "firmware");
    CHECK(task["automatic"] == true);
    CHECK(task["result"]["to"] == version);
  }
  // Each batch started only after the one before had ended (RFC 3339 UTC sorts as text).
  auto started = [&](const char* name) {
    return node_entry(done, name)["started_at"].get<std::string>();
  };
  auto finished = [&](const char* name) {
    return node_entry(done, name)["finished_at"].get<std::string>();
  };
  CHECK(started("ro-1") >= finished("ro-0"));
  CHECK(started("ro-2") >= finished("ro-0"));
  CHECK(started("ro-3") >= finished("ro-1"));
  CHECK(started("ro-3") >= finished("ro-2"));

  // Listed, and in the audit trail.
  const json list = http_get(f.server.port(), "/api/v1/firmware/rollouts", f.token).json();
  REQUIRE(list["items"].size() == 1);
  CHECK_FALSE(list["items"][0].contains("nodes"));
  const auto audit =
      http_get(f.server.port(), "/api/v1/audit?limit=200", f.server.token("auditor"));
  CHECK(audit.body.find("rollout.succeeded") != std::string::npos);
  // The image cannot be deleted while a rollout uses it; this one has ended, so now it can.
  CHECK(http_send(f.server.port(), "DELETE",
                  "/api/v1/firmware/images/" + done["image"]["id"].get<std::string>(), nullptr,
                  f.server.token("admin"))
            .status == 204);
}

TEST_CASE("a failing canary halts the rollout before any other node is touched",
          "[tasks][firmware][rollout][e2e]") {
  RolloutFleet f(3);
  sim::redfish::Faults fails;
  fails.update_fails = true;
  f.fleet.set_faults(0, fails);
  const json created = f.start({{"image", f.image(f.bmc_version + "-bad")},
                                {"selector", {{"names", "ro-0,ro-1,ro-2"}}},
                                {"canary", 1},
                                {"max_failures", 5},  // a canary halts whatever this says
                                {"health_gate_seconds", 0}});
  const json halted = f.wait_state(created["id"], "halted");
  INFO(halted.dump(2));
  REQUIRE(halted["state"] == "halted");
  CHECK(halted["halt_reason"].get<std::string>().find("canary node ro-0 failed") !=
        std::string::npos);
  CHECK(node_entry(halted, "ro-0")["state"] == "failed");
  CHECK(node_entry(halted, "ro-1")["state"] == "pending");
  CHECK(node_entry(halted, "ro-2")["state"] == "pending");
  std::this_thread::sleep_for(1s);  // several runner ticks: still nothing starts
  CHECK(f.updates(1) == 0);
  CHECK(f.updates(2) == 0);
  CHECK(f.get(created["id"])["counts"]["pending"] == 2);

  // Aborted: the pending nodes are cancelled, and it is finished.
  const auto aborted = f.post(
      "/api/v1/firmware/rollouts/" + created["id"].get<std::string>() + "/abort", json::object());
  REQUIRE(aborted.status == 200);
  CHECK(aborted.json()["counts"]["cancelled"] == 2);
  const json finished =
      f.wait(created["id"], [](const json& r) { return !r["finished_at"].is_null(); });
  CHECK(finished["state"] == "aborted");
  CHECK(f.post("/api/v1/firmware/rollouts/" + created["id"].get<std::string>() + "/resume",
               json::object())
            .status == 409);
}

TEST_CASE("a node turning critical in its health gate halts the rollout",
          "[tasks][firmware][rollout][e2e]") {
  RolloutFleet f(3);
  const json created = f.start({{"image", f.image(f.bmc_version + "-gate")},
                                {"selector", {{"names", "ro-0,ro-1,ro-2"}}},
                                {"canary", 1},
                                {"max_failures", 5},
                                {"health_gate_seconds", 60}});
  const json gating =
      f.wait(created["id"], [](const json& r) { return r["counts"]["gating"] == 1; });
  REQUIRE(gating["counts"]["gating"] == 1);
  f.fleet.state(0).set_health("Critical");  // the poller sees it within a second or two
  const json halted = f.wait_state(created["id"], "halted");
  INFO(halted.dump(2));
  REQUIRE(halted["state"] == "halted");
  CHECK(halted["halt_reason"].get<std::string>().find("ro-0 turned critical during its health "
                                                      "gate") != std::string::npos);
  CHECK(node_entry(halted, "ro-0")["state"] == "failed");
  CHECK(f.updates(1) == 0);
  CHECK(f.updates(2) == 0);

  // Resumed once the operator has seen it: that failure is accepted, the rest go on.
  f.fleet.state(0).set_health("OK");
  const auto resumed = f.post(
      "/api/v1/firmware/rollouts/" + created["id"].get<std::string>() + "/resume", json::object());
  REQUIRE(resumed.status == 200);
  CHECK(resumed.json()["failures_accepted"] == 1);
  const json gated =
      f.wait(created["id"], [](const json& r) { return r["counts"]["gating"] == 2; });
  CHECK(gated["counts"]["gating"] == 2);
  CHECK(f.updates(1) == 1);
  CHECK(f.updates(2) == 1);
}

TEST_CASE("an update that never finishes times out and halts the rollout",
          "[tasks][firmware][rollout][e2e]") {
  RolloutFleet f(2);
  sim::redfish::Faults hangs;
  hangs.update_hangs = true;
  f.fleet.set_faults(0, hangs);
  const json created = f.start({{"image", f.image(f.bmc_version + "-hang")},
                                {"selector", {{"names", "ro-0,ro-1"}}},
                                {"canary", 1},
                                {"timeout_s", 10},
                                {"health_gate_seconds", 0}});
  const json halted = f.wait_state(created["id"], "halted");
  INFO(halted.dump(2));
  REQUIRE(halted["state"] == "halted");
  const json canary = node_entry(halted, "ro-0");
  CHECK(canary["state"] == "failed");
  CHECK(canary["error"].get<std::string>().find("did not finish within 10 s") != std::string::npos);
  CHECK(f.updates(1) == 0);
}

TEST_CASE("a paused rollout starts no node until it is resumed",
          "[tasks][firmware][rollout][e2e]") {
  RolloutFleet f(3);
  const json created = f.start({{"image", f.image(f.bmc_version + "-p")},
                                {"selector", {{"names", "ro-0,ro-1,ro-2"}}},
                                {"canary", 1},
                                {"batch_size", 1},
                                {"health_gate_seconds", 0}});
  const std::string id = created["id"];
  const auto paused = f.post("/api/v1/firmware/rollouts/" + id + "/pause", json::object());
  REQUIRE(paused.status == 200);
  CHECK(paused.json()["state"] == "paused");
  CHECK(f.post("/api/v1/firmware/rollouts/" + id + "/pause", json::object()).status == 409);
  // The canary's update, already under way, ends; nothing after it starts.
  const json canary_done = f.wait(id, [](const json& r) { return r["counts"]["succeeded"] == 1; });
  CHECK(canary_done["state"] == "paused");
  std::this_thread::sleep_for(1500ms);
  CHECK(f.get(id)["counts"]["pending"] == 2);
  CHECK(f.updates(1) == 0);

  const auto resumed = f.post("/api/v1/firmware/rollouts/" + id + "/resume", json::object());
  REQUIRE(resumed.status == 200);
  const json done = f.wait_state(id, "succeeded");
  CHECK(done["counts"]["succeeded"] == 3);
  for (unsigned i = 0; i < 3; ++i) CHECK(f.updates(i) == 1);
}

TEST_CASE("rollouts that cannot work are refused before anything starts",
          "[tasks][firmware][rollout][e2e]") {
  TestServer server({}, {}, std::nullopt, std::nullopt, std::nullopt);
  const auto token = server.token("operator");
  enroll_redfish(server, token, "rf-1", "https://127.0.0.1:9");
  const auto ipmi = http_send(server.port(), "POST", "/api/v1/nodes",
                              {{"name", "ipmi-1"},
                               {"driver", "ipmi"},
                               {"endpoint", "ipmi://127.0.0.1:9"},
                               {"credentials", {{"username", "admin"}, {"password", "pw"}}}},
                              token);
  REQUIRE(ipmi.status == 201);
  std::string bytes = "IRONHOLD-FIRMWARE component=BMC version=2\n";
  HttpRequest r;
  r.method = "POST";
  r.target = "/api/v1/firmware/images?name=bmc.bin&version=2&component=BMC";
  r.body = bytes;
  r.token = server.token("admin");
  r.content_type = "application/octet-stream";
  const std::string image = http_request(server.port(), r).json()["id"];
  auto start = [&](const json& body) {
    return http_send(server.port(), "POST", "/api/v1/firmware/rollouts", body, token);
  };
  const auto mixed = start({{"image", image}, {"selector", {{"names", "rf-1,ipmi-1"}}}});
  CHECK(mixed.status == 422);
  CHECK(mixed.body.find("ipmi-1 (managed over ipmi)") != std::string::npos);
  CHECK(start({{"image", image}, {"selector", {{"names", "nobody"}}}}).status == 422);
  CHECK(start({{"image", image}, {"selector", json::object()}}).status == 422);
  CHECK(
      start({{"image", "00000000-0000-0000-0000-000000000000"}, {"selector", {{"names", "rf-1"}}}})
          .status == 422);
  CHECK(start({{"image", image}, {"selector", {{"names", "rf-1"}}}, {"batch_size", 0}}).status ==
        422);
  CHECK(http_send(server.port(), "POST", "/api/v1/firmware/rollouts",
                  {{"image", image}, {"selector", {{"names", "rf-1"}}}}, server.token("viewer"))
            .status == 403);
  CHECK(http_get(server.port(), "/api/v1/firmware/rollouts/" + image, token).status == 404);
  CHECK(http_get(server.port(), "/api/v1/firmware/rollouts/not-an-id", token).status == 404);
  const json list = http_get(server.port(), "/api/v1/firmware/rollouts", token).json();
  CHECK(list["items"].empty());

  // An Idempotency-Key makes a retried start return the same rollout, and refuses another body.
  HttpRequest first;
  first.method = "POST";
  first.target = "/api/v1/firmware/rollouts";
  first.body = json({{"image", image}, {"selector", {{"names", "rf-1"}}}}).dump();
  first.token = token;
  first.headers["Idempotency-Key"] = "rollout-retry-1";
  const auto created = http_request(server.port(), first);
  INFO(created.body);
  REQUIRE(created.status == 201);
  const auto again = http_request(server.port(), first);
  CHECK(again.status == 200);
  CHECK(again.header("idempotent-replayed") == "true");
  CHECK(again.json()["id"] == created.json()["id"]);
  HttpRequest other = first;
  other.body = json({{"image", image}, {"selector", {{"names", "rf-1"}}}, {"canary", 0}}).dump();
  CHECK(http_request(server.port(), other).status == 422);
  CHECK(http_get(server.port(), "/api/v1/firmware/rollouts", token).json()["items"].size() == 1);
}

}  // namespace rollout_e2e_test
