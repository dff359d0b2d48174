// The EC2 driver against the EC2 simulator over real HTTP on loopback: listing with pagination and
// GPU facts, power actions that move the simulator's instances through EC2's states, rebuild via
// a replace-root-volume task, throttling retried, bad credentials, a terminated instance.
#include "cloudapi/ec2/ec2_driver.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch.hpp>
#include <thread>

#include "tests/cloudapi/ec2/ec2_sim_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace ec2_driver_test {

namespace asio = boost::asio;
using namespace ironhold;
using namespace ironhold::cloudapi::ec2;
using ironhold::sim::cloud::ec2::Ec2SimulatorOptions;
using ironhold::test::ec2::Ec2SimOnLoopback;

namespace {

template <class T>
T run(Ec2SimOnLoopback& fixture, asio::awaitable<T> work) {
  return asio::co_spawn(fixture.io, std::move(work), asio::use_future).get();
}

Ec2DriverOptions fast_options() {
  Ec2DriverOptions options;
  options.client.retry.base_delay = std::chrono::milliseconds(5);
  options.client.retry.max_delay = std::chrono::milliseconds(50);
  options.task_poll_interval = std::chrono::milliseconds(10);
  return options;
}

CloudAccountTarget account_for(const Ec2SimOnLoopback& fixture) {
  CloudAccountTarget account;
  account.account_id = "acct-ec2";
  account.account_name = "ec2 test";
  account.provider = "ec2";
  account.endpoint = fixture.endpoint;
  account.region = fixture.sim.options().region;
  account.credentials = {{"access_key_id", fixture.sim.options().access_key_id},
                         {"secret_access_key", fixture.sim.options().secret_access_key}};
  return account;
}

Ec2SimulatorOptions with_transition(std::chrono::milliseconds transition) {
  Ec2SimulatorOptions options;
  options.transition = transition;
  return options;
}

const CloudInstance* find(const std::vector<CloudInstance>& instances, const std::string& id) {
  for (const auto& i : instances)
    if (i.provider_id == id) return &i;
  return nullptr;
}

void control(Ec2SimOnLoopback& fixture, const std::string& path, const std::string& body = {}) {
  sim::cloud::ApiRequest request;
  request.method = "POST";
  request.target = path;
  request.body = body;
  REQUIRE(fixture.sim.handle(request).status == 200);
}

// Reads the instance until its power state is `wanted` (the simulator's transition takes a
// fraction of a second); the states seen on the way.
std::vector<PowerState> follow_until(Ec2SimOnLoopback& fixture, Ec2Driver& driver,
                                     const std::string& id, PowerState wanted) {
  std::vector<PowerState> seen;
  for (int i = 0; i < 500; ++i) {
    const auto report = run(fixture, driver.describe_instance(account_for(fixture), id));
    REQUIRE(report.ok());
    REQUIRE(report.instance);
    if (seen.empty() || seen.back() != report.instance->power_state)
      seen.push_back(report.instance->power_state);
    if (report.instance->power_state == wanted) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return seen;
}

}  // namespace

TEST_CASE("EC2 driver lists every page of instances with their GPU facts", "[ec2][cloudapi]") {
  Ec2SimOnLoopback fixture;
  Ec2Driver driver(fixture.io.get_executor(), fast_options());
  const auto listing = run(fixture, driver.list_instances(account_for(fixture)));
  REQUIRE(listing.ok());
  REQUIRE(listing.instances.size() == 6);  // three pages of two

  const CloudInstance* h100 = find(listing.instances, "i-0e2c5000000000001");
  REQUIRE(h100);
  CHECK(h100->name == "train-h100-01");
  CHECK(h100->provider_state == "running");
  CHECK(h100->power_state == PowerState::on);
  CHECK(h100->health == Health::ok);
  CHECK(h100->instance_type == "p5.48xlarge");
  CHECK(h100->summary.cpu_count == 192);
  CHECK(h100->summary.memory_gib == Approx(2048.0));
  CHECK(h100->summary.gpu_model == "NVIDIA H100");
  CHECK(h100->summary.gpu_count == 8);
  CHECK(h100->components.size() == 8);
  CHECK(h100->zone == "us-east-1a");
  CHECK(h100->image_id == "ami-0fa1b2c3d4e5f6a70");
  CHECK(h100->launched_at == "2026-11-02T09:10:00Z");
  CHECK(h100->tags["team"] == "research");
  CHECK(h100->details["public_ip_address"] == "203.0.113.11");

  const CloudInstance* a100 = find(listing.instances, "i-0e2c5000000000003");
  REQUIRE(a100);
  CHECK(a100->summary.gpu_model == "NVIDIA A100");
  CHECK(a100->summary.gpu_count == 8);
  const CloudInstance* a10g = find(listing.instances, "i-0e2c5000000000006");
  REQUIRE(a10g);
  CHECK(a10g->summary.gpu_model == "NVIDIA A10G");
  CHECK(a10g->summary.gpu_count == 1);
  CHECK(a10g->power_state == PowerState::off);
  CHECK(a10g->health == Health::unknown);  // status checks are "not-applicable" when stopped

  // An impaired system status check makes the instance critical.
  control(fixture, "/_sim/instances/i-0e2c5000000000004/system-status", R"({"status":"impaired"})");
  const auto report =
      run(fixture, driver.describe_instance(account_for(fixture), "i-0e2c5000000000004"));
  REQUIRE(report.ok());
  REQUIRE(report.instance);
  CHECK(report.instance->health == Health::critical);
  CHECK(report.instance->status_detail);
}

TEST_CASE("EC2 driver power actions move the instance through EC2's states", "[ec2][cloudapi]") {
  Ec2SimOnLoopback fixture(with_transition(std::chrono::milliseconds(150)));
  Ec2Driver driver(fixture.io.get_executor(), fast_options());
  const auto account = account_for(fixture);
  const std::string id = "i-0e2c5000000000003";

  auto action = run(fixture, driver.power(account, id, PowerAction::off));
  REQUIRE(action.ok());
  CHECK(action.detail.find("StopInstances Force=true") == 0);
  CHECK(fixture.sim.instances()[2]["state"] == "stopping");
  // While it stops, a start is refused with EC2's reason.
  const auto refused = run(fixture, driver.power(account, id, PowerAction::on));
  REQUIRE(refused.error);
  CHECK(refused.error->code == DriverErrorCode::rejected);
  CHECK_THAT(refused.error->message, Catch::Contains("IncorrectInstanceState"));
  auto seen = follow_until(fixture, driver, id, PowerState::off);
  CHECK(seen.back() == PowerState::off);
  CHECK(fixture.sim.instances()[2]["state"] == "stopped");

  // A stopped instance cannot be rebooted.
  const auto reboot_refused = run(fixture, driver.power(account, id, PowerAction::cycle));
  REQUIRE(reboot_refused.error);
  CHECK(reboot_refused.error->code == DriverErrorCode::rejected);

  action = run(fixture, driver.power(account, id, PowerAction::on));
  REQUIRE(action.ok());
  CHECK(action.detail.find("StartInstances") == 0);
  seen = follow_until(fixture, driver, id, PowerState::on);
  CHECK(seen.front() == PowerState::transitioning);
  CHECK(seen.back() == PowerState::on);

  action = run(fixture, driver.power(account, id, PowerAction::reset));
  REQUIRE(action.ok());
  CHECK_THAT(action.detail, Catch::Contains("RebootInstances") && Catch::Contains("no hard reset"));
  action = run(fixture, driver.power(account, id, PowerAction::cycle));
  REQUIRE(action.ok());
  CHECK(fixture.sim.instances()[2]["reboots"] == 2);

  action = run(fixture, driver.power(account, id, PowerAction::soft_off));
  REQUIRE(action.ok());
  CHECK(action.detail.find("StopInstances") == 0);
  CHECK(action.detail.find("Force") == std::string::npos);
}

TEST_CASE("EC2 driver rebuilds through a replace-root-volume task", "[ec2][cloudapi]") {
  Ec2SimOnLoopback fixture(with_transition(std::chrono::milliseconds(60)));
  Ec2Driver driver(fixture.io.get_executor(), fast_options());
  RebuildRequest request;
  request.image = "ami-0badc0ffee0000001";
  const auto report =
      run(fixture, driver.rebuild(account_for(fixture), "i-0e2c5000000000005", request));
  REQUIRE(report.ok());
  CHECK_THAT(report.detail,
             Catch::Contains("CreateReplaceRootVolumeTask ImageId=ami-0badc0ffee0000001") &&
                 Catch::Contains("succeeded"));
  CHECK(fixture.sim.instances()[4]["image_id"] == "ami-0badc0ffee0000001");

  // A stopped instance has no root volume to replace.
  const auto refused =
      run(fixture, driver.rebuild(account_for(fixture), "i-0e2c5000000000002", RebuildRequest{}));
  REQUIRE(refused.error);
  CHECK(refused.error->code == DriverErrorCode::rejected);
}

TEST_CASE("EC2 driver retries throttling and server errors", "[ec2][cloudapi]") {
  Ec2SimOnLoopback fixture;
  Ec2Driver driver(fixture.io.get_executor(), fast_options());
  control(fixture, "/_sim/faults", R"({"throttle_next": 3, "error_next": 1})");
  const auto listing = run(fixture, driver.list_instances(account_for(fixture)));
  INFO((listing.error ? listing.error->message : std::string("no error")));
  REQUIRE(listing.ok());
  CHECK(listing.instances.size() == 6);

  // More throttling than attempts: the error says so.
  control(fixture, "/_sim/faults", R"({"throttle_next": 10})");
  const auto throttled = run(fixture, driver.list_instances(account_for(fixture)));
  REQUIRE(throttled.error);
  CHECK(throttled.error->code == DriverErrorCode::rejected);
  CHECK_THAT(throttled.error->message, Catch::Contains("RequestLimitExceeded"));
}

TEST_CASE("EC2 driver reports bad credentials as auth_failed", "[ec2][cloudapi]") {
  Ec2SimOnLoopback fixture;
  Ec2Driver driver(fixture.io.get_executor(), fast_options());
  auto account = account_for(fixture);
  account.credentials["secret_access_key"] = "not-the-secret";
  auto listing = run(fixture, driver.list_instances(account));
  REQUIRE(listing.error);
  CHECK(listing.error->code == DriverErrorCode::auth_failed);
  CHECK_THAT(listing.error->message, Catch::Contains("SignatureDoesNotMatch"));
  CHECK(listing.error->message.find("not-the-secret") == std::string::npos);

  account.credentials["access_key_id"] = "AKIAUNKNOWN000000000";
  listing = run(fixture, driver.list_instances(account));
  REQUIRE(listing.error);
  CHECK(listing.error->code == DriverErrorCode::auth_failed);
  CHECK_THAT(listing.error->message, Catch::Contains("AuthFailure"));

  account.credentials = nlohmann::json::object();
  listing = run(fixture, driver.list_instances(account));
  REQUIRE(listing.error);
  CHECK(listing.error->code == DriverErrorCode::auth_failed);
}

TEST_CASE("EC2 driver shows a terminated instance as gone and an unknown one as absent",
          "[ec2][cloudapi]") {
  Ec2SimOnLoopback fixture;
  Ec2Driver driver(fixture.io.get_executor(), fast_options());
  control(fixture, "/_sim/instances/i-0e2c5000000000002/terminate");
  const auto listing = run(fixture, driver.list_instances(account_for(fixture)));
  REQUIRE(listing.ok());
  const CloudInstance* gone = find(listing.instances, "i-0e2c5000000000002");
  REQUIRE(gone);
  CHECK(gone->gone);
  CHECK(gone->provider_state == "terminated");
  CHECK(gone->power_state != PowerState::off);

  const auto unknown =
      run(fixture, driver.describe_instance(account_for(fixture), "i-0e2c50000000000ff"));
  CHECK(unknown.ok());
  CHECK_FALSE(unknown.instance);
}

TEST_CASE("EC2 driver reports an endpoint that does not answer as unreachable", "[ec2][cloudapi]") {
  Ec2SimOnLoopback fixture;
  Ec2DriverOptions options = fast_options();
  options.client.retry.max_attempts = 2;
  Ec2Driver driver(fixture.io.get_executor(), options);
  auto account = account_for(fixture);
  // A port nothing listens on: bind one, note it, close it.
  asio::ip::tcp::acceptor probe(fixture.io, {asio::ip::make_address("127.0.0.1"), 0});
  const auto port = probe.local_endpoint().port();
  probe.close();
  account.endpoint = "http://127.0.0.1:" + std::to_string(port) + "/";
  const auto listing = run(fixture, driver.list_instances(account));
  REQUIRE(listing.error);
  CHECK(listing.error->code == DriverErrorCode::unreachable);
}

}  // namespace ec2_driver_test
