// A worker that dies between recording "sending" and recording the BMC's answer leaves a task in
// doubt. These tests build exactly that state (a dead instance claims the task under a short
// lease and records the send as under way; the command itself is sent or not), then start a new
// engine, as a restarted service would, and check that it decides from the BMC whether the
// command took effect: the BMC receives the reset exactly once either way, and the task says how
// the doubt was resolved.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch.hpp>
#include <filesystem>

#include "inventory/tasks/task_engine.hpp"
#include "sim/redfish/fleet.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/web/tasks/fleet_helpers.hpp"
#include "tests/web/tasks/task_helpers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace resume_task_e2e_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;

namespace {

DriverTarget target_of(const std::string& node_id, const std::string& endpoint) {
  DriverTarget t;
  t.node_id = node_id;
  t.node_name = "gpu-01";
  std::string why;
  t.endpoint = *parse_endpoint(endpoint, why);
  t.credentials = Credentials{"admin", "password"};
  return t;
}

// What the BMC reports now, through the same driver the service uses.
SystemStatus read_status(TestServer& server, const DriverTarget& target) {
  auto report =
      boost::asio::co_spawn(server.host().io_executor(),
                            server.host().redfish().poll_status(target), boost::asio::use_future)
          .get();
  REQUIRE_FALSE(report.error);
  REQUIRE_FALSE(report.systems.empty());
  return report.systems[0];
}

// A dead instance's work: the task claimed under a 1-second lease, its check done (with the reset
// time it read) and its send recorded as under way; with `sent`, the reset really went out.
void die_while_sending(TestServer& server, const std::string& task_id, const DriverTarget& target,
                       bool sent) {
  const SystemStatus before = read_status(server, target);
  REQUIRE(before.last_reset_time);
  auto claimed = server.host().tasks().claim("dead-instance", 10, std::chrono::seconds(1));
  REQUIRE(claimed.size() == 1);
  REQUIRE(claimed[0].task.id == task_id);
  TaskStep check;
  check.name = "check";
  check.state = StepState::succeeded;
  check.detail = "power on";
  check.data = {{"last_reset", *before.last_reset_time}};
  TaskStep send;
  send.name = "send";
  send.state = StepState::sending;
  send.detail = "sending cycle";
  REQUIRE(server.host().tasks().save_steps(task_id, "dead-instance",
                                           std::vector<TaskStep>{check, send}));
  if (sent) {
    auto report =
        boost::asio::co_spawn(server.host().io_executor(),
                              server.host().redfish().power(target, "", PowerAction::cycle),
                              boost::asio::use_future)
            .get();
    REQUIRE_FALSE(report.error);
  }
  std::this_thread::sleep_for(1500ms);  // the dead instance's lease runs out
}

// The restarted service: a new engine on the same database and drivers.
json resume(TestServer& server, const std::string& token, const std::string& task_id) {
  boost::asio::thread_pool pool(2);
  TaskEngineOptions options = TestServer::fast_tasks();
  options.owner = "restarted-instance";
  TaskEngine engine(server.host().io_executor(), pool, server.host().tasks(),
                    {{"redfish", &server.host().redfish()}}, nullptr, &server.host().polls(),
                    nullptr, options);
  engine.start();
  const json task = wait_task_end(server, token, task_id);
  engine.stop();
  pool.join();
  return task;
}

}  // namespace

TEST_CASE("a resumed cycle that had been sent is not sent again", "[tasks][e2e][resume]") {
  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("hgx-gpu-server");
  o.reset_delay = 300ms;
  sim::RedfishFleet fleet(o);
  fleet.start();
  TestServer server({}, {}, std::nullopt, std::nullopt, std::nullopt);  // no engine of its own
  const auto token = server.token("operator");
  const std::string node = enroll_redfish(server, token, "gpu-01", fleet.endpoint(0));
  const std::string id = start_task(server, token, node, "power", {{"action", "cycle"}});
  die_while_sending(server, id, target_of(node, fleet.endpoint(0)), true);
  REQUIRE(all_resets(fleet) == 1);

  const json task = resume(server, token, id);
  INFO(task.dump(2));
  CHECK(task["state"] == "succeeded");
  CHECK(task["attempts"] == 2);
  const json send = step_of(task, "send");
  REQUIRE(send.contains("in_doubt"));
  CHECK(send["in_doubt"].get<std::string>().find("happened; not sent again") != std::string::npos);
  CHECK(all_resets(fleet) == 1);
  // The audit entry of the task's end carries the resolution too.
  const auto audit =
      http_get(server.port(), "/api/v1/audit?target=" + node, server.token("auditor"));
  REQUIRE(audit.status == 200);
  CHECK(audit.body.find("not sent again") != std::string::npos);
}

TEST_CASE("a resumed cycle that had not been sent is sent once", "[tasks][e2e][resume]") {
  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("hgx-gpu-server");
  o.reset_delay = 300ms;
  sim::RedfishFleet fleet(o);
  fleet.start();
  TestServer server({}, {}, std::nullopt, std::nullopt, std::nullopt);
  const auto token = server.token("operator");
  const std::string node = enroll_redfish(server, token, "gpu-01", fleet.endpoint(0));
  const std::string id = start_task(server, token, node, "power", {{"action", "cycle"}});
  die_while_sending(server, id, target_of(node, fleet.endpoint(0)), false);
  REQUIRE(all_resets(fleet) == 0);

  const json task = resume(server, token, id);
  INFO(task.dump(2));
  CHECK(task["state"] == "succeeded");
  const json send = step_of(task, "send");
  REQUIRE(send.contains("in_doubt"));
  CHECK(send["in_doubt"].get<std::string>().find("had not happened; sent again") !=
        std::string::npos);
  CHECK(all_resets(fleet) == 1);
}

// A task's end wakes the claim loop through a handler posted after the task stopped counting, so
// stop() may return, and the engine be destroyed, before it runs (ASan caught it touching the
// timer of an engine gone, as the resumed tests above end). It must then do nothing.
TEST_CASE("a wake still queued when its task engine is destroyed does nothing", "[tasks][resume]") {
  TestServer server({}, {}, std::nullopt, std::nullopt, std::nullopt);
  boost::asio::io_context io;  // not running: the wake waits in its queue
  boost::asio::thread_pool pool(1);
  {
    TaskEngine engine(io.get_executor(), pool, server.host().tasks(), {}, nullptr, nullptr, nullptr,
                      TestServer::fast_tasks());
    engine.wake();
  }
  CHECK(io.run() == 1);  // the wake ran, after its engine
  pool.join();
}

}  // namespace resume_task_e2e_test
