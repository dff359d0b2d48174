// The OpenStack driver against the simulator over loopback: listing with pagination and GPU
// facts, power actions and rebuild followed through Nova's task states, throttling retried,
// bad credentials, token expiry and re-authentication, terminated servers, concurrency.
#include <catch2/catch.hpp>
#include <map>
#include <mutex>

#include "cloudapi/openstack/openstack_driver.hpp"
#include "tests/cloudapi/openstack/sim_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace driver_test {

using namespace ironhold::test::openstack;
using ironhold::CloudAccountTarget;
using ironhold::DriverErrorCode;
using ironhold::PowerAction;
using ironhold::PowerState;
using ironhold::SystemTime;
using ironhold::cloudapi::openstack::OpenStackDriver;
using ironhold::cloudapi::openstack::OpenStackDriverOptions;
using ironhold::sim::cloud::openstack::ApplicationCredential;
using ironhold::sim::cloud::openstack::OpenStackSimulatorOptions;
using nlohmann::json;

namespace {

CloudAccountTarget account_for(const SimFixture& fx, const std::string& password = "openstack") {
  CloudAccountTarget account;
  account.account_id = "acct-1";
  account.account_name = "sim-openstack";
  account.provider = "openstack";
  account.endpoint = fx.auth_url();
  account.region = "RegionOne";
  account.credentials = {{"username", "admin"},
                         {"password", password},
                         {"user_domain_name", "Default"},
                         {"project_name", "gpu-team"},
                         {"project_domain_name", "Default"}};
  account.options = {{"gpu_aliases", {{"h100", "NVIDIA H100 80GB HBM3"}}}};
  return account;
}

OpenStackDriverOptions fast_options() {
  OpenStackDriverOptions options;
  options.http.retry.base_delay = std::chrono::milliseconds(20);
  options.http.retry.max_delay = std::chrono::milliseconds(100);
  return options;
}

std::map<std::string, ironhold::CloudInstance> by_id(const ironhold::InstanceListing& listing) {
  std::map<std::string, ironhold::CloudInstance> out;
  for (const auto& i : listing.instances) out[i.provider_id] = i;
  return out;
}

json sim_server(SimFixture& fx, const std::string& id) {
  for (const json now_state = fx.sim().instances(); const auto& s : now_state["instances"])
    if (s["id"] == id) return s;
  return nullptr;
}

std::string first_with_status(SimFixture& fx, const std::string& status) {
  for (const json now_state = fx.sim().instances(); const auto& s : now_state["instances"])
    if (s["status"] == status) return s["id"];
  return "";
}

}  // namespace

TEST_CASE("The driver lists every server, all pages, with GPU facts", "[openstack][cloudapi]") {
  SimFixture fx;
  OpenStackDriver driver(fx.io().get_executor(), fast_options());
  const auto account = account_for(fx);
  const auto listing = fx.run(driver.list_instances(account));
  REQUIRE(listing.ok());
  const json state = fx.sim().instances();
  REQUIRE(listing.instances.size() == state["instances"].size());
  const auto instances = by_id(listing);
  for (const auto& s : state["instances"]) {
    INFO(s.dump());
    const auto it = instances.find(s["id"]);
    REQUIRE(it != instances.end());
    const auto& instance = it->second;
    CHECK(instance.name == s["name"]);
    CHECK(instance.provider_state == s["status"]);
    CHECK(instance.instance_type == s["flavor"].get<std::string>());
    CHECK(instance.image_id == s["image_id"].get<std::string>());
    CHECK(instance.zone == s["zone"].get<std::string>());
    CHECK(instance.power_state == (s["status"] == "ACTIVE" ? PowerState::on : PowerState::off));
    CHECK(instance.launched_at);
    CHECK(instance.tags == s["metadata"]);
    CHECK(instance.details.contains("addresses"));
    const std::string flavor = s["flavor"];
    if (flavor == "g1.h100x8") {
      CHECK(instance.summary.gpu_count == 8);
      CHECK(instance.summary.gpu_model == "NVIDIA H100 80GB HBM3");  // the account's alias map
      CHECK(instance.components.size() == 8);
      CHECK(instance.summary.cpu_count == 192);
    } else if (flavor == "g1.a100x8") {
      CHECK(instance.summary.gpu_count == 8);
      CHECK(instance.summary.gpu_model == "NVIDIA A100");
    } else if (flavor == "g1.a10") {
      CHECK(instance.summary.gpu_count == 1);
      CHECK(instance.summary.gpu_model == "NVIDIA A10");
    } else if (flavor == "g1.l4.vgpu") {
      CHECK(instance.summary.gpu_count == 1);
      CHECK(instance.summary.gpu_model == "NVIDIA L4");
    }
  }
  // The token is cached: a second listing does not authenticate again.
  const auto auths = fx.sim().instances()["auth_requests"].get<long long>();
  REQUIRE(fx.run(driver.list_instances(account)).ok());
  CHECK(fx.sim().instances()["auth_requests"].get<long long>() == auths);
}

TEST_CASE("Before 2.47 the driver looks flavors and extra specs up", "[openstack][cloudapi]") {
  OpenStackSimulatorOptions options;
  options.max_microversion = 38;
  SimFixture fx(options);
  OpenStackDriver driver(fx.io().get_executor(), fast_options());
  const auto listing = fx.run(driver.list_instances(account_for(fx)));
  REQUIRE(listing.ok());
  REQUIRE(listing.instances.size() >= 5);
  int gpus = 0;
  for (const auto& instance : listing.instances) {
    CHECK(instance.instance_type);
    CHECK(instance.summary.cpu_count > 0);
    gpus += instance.summary.gpu_count;
  }
  CHECK(gpus > 0);
}

TEST_CASE("Power actions reach Nova and the state follows", "[openstack][cloudapi]") {
  OpenStackSimulatorOptions options;
  options.transition = std::chrono::minutes(10);  // the task state stays visible
  SimFixture fx(options);
  OpenStackDriver driver(fx.io().get_executor(), fast_options());
  const auto account = account_for(fx);
  const std::string running = first_with_status(fx, "ACTIVE");
  const std::string stopped = first_with_status(fx, "SHUTOFF");

  auto report = fx.run(driver.power(account, running, PowerAction::off));
  REQUIRE(report.ok());
  CHECK(report.detail.find("os-stop") != std::string::npos);
  CHECK(sim_server(fx, running)["task_state"] == "powering-off");
  auto described = fx.run(driver.describe_instance(account, running));
  REQUIRE(described.ok());
  REQUIRE(described.instance);
  CHECK(described.instance->power_state == PowerState::transitioning);

  // A second action during the task: Nova's 409, with its message.
  report = fx.run(driver.power(account, running, PowerAction::reset));
  REQUIRE(report.error);
  CHECK(report.error->code == DriverErrorCode::rejected);
  CHECK(report.error->message.find("conflictingRequest") != std::string::npos);
  CHECK(report.error->message.find("powering-off") != std::string::npos);

  report = fx.run(driver.power(account, stopped, PowerAction::on));
  REQUIRE(report.ok());
  CHECK(report.detail == "os-start");
  CHECK(sim_server(fx, stopped)["task_state"] == "powering-on");

  // Starting a running server is refused by Nova.
  const std::string other_running = [&] {
    for (const json now_state = fx.sim().instances(); const auto& s : now_state["instances"])
      if (s["status"] == "ACTIVE" && s["task_state"].is_null()) return s["id"].get<std::string>();
    return std::string();
  }();
  REQUIRE_FALSE(other_running.empty());
  report = fx.run(driver.power(account, other_running, PowerAction::on));
  REQUIRE(report.error);
  CHECK(report.error->code == DriverErrorCode::rejected);
  CHECK(report.error->message.find("Cannot 'start'") != std::string::npos);

  report = fx.run(driver.power(account, other_running, PowerAction::cycle));
  REQUIRE(report.ok());
  CHECK(report.detail == "reboot SOFT");
  CHECK(sim_server(fx, other_running)["status"] == "REBOOT");
  CHECK(sim_server(fx, other_running)["task_state"] == "rebooting");
}

TEST_CASE("Transitions end in the target state", "[openstack][cloudapi]") {
  OpenStackSimulatorOptions options;
  options.transition = std::chrono::milliseconds(0);
  SimFixture fx(options);
  OpenStackDriver driver(fx.io().get_executor(), fast_options());
  const auto account = account_for(fx);
  const std::string running = first_with_status(fx, "ACTIVE");
  REQUIRE(fx.run(driver.power(account, running, PowerAction::soft_off)).ok());
  auto described = fx.run(driver.describe_instance(account, running));
  REQUIRE(described.instance);
  CHECK(described.instance->power_state == PowerState::off);
  REQUIRE(fx.run(driver.power(account, running, PowerAction::reset)).ok());
  described = fx.run(driver.describe_instance(account, running));
  REQUIRE(described.instance);
  CHECK(described.instance->power_state == PowerState::on);
}

TEST_CASE("Rebuild sends the image asked for, or the current one", "[openstack][cloudapi]") {
  OpenStackSimulatorOptions options;
  options.transition = std::chrono::minutes(10);
  SimFixture fx(options);
  OpenStackDriver driver(fx.io().get_executor(), fast_options());
  const auto account = account_for(fx);
  const std::string running = first_with_status(fx, "ACTIVE");
  const std::string image = sim_server(fx, running)["image_id"];
  auto report = fx.run(driver.rebuild(account, running, ironhold::RebuildRequest{}));
  REQUIRE(report.ok());
  CHECK(report.detail == "rebuild imageRef=" + image);
  CHECK(sim_server(fx, running)["status"] == "REBUILD");
  CHECK(sim_server(fx, running)["task_state"] == "rebuilding");

  const std::string stopped = first_with_status(fx, "SHUTOFF");
  ironhold::RebuildRequest request;
  request.image = "11111111-2222-4333-8444-555555555555";
  request.admin_password = "hunter2";
  report = fx.run(driver.rebuild(account, stopped, request));
  REQUIRE(report.ok());
  CHECK(report.detail.find("hunter2") == std::string::npos);
  CHECK(sim_server(fx, stopped)["image_id"] == *request.image);
}

TEST_CASE("Throttling and server errors are retried and succeed", "[openstack][cloudapi]") {
  SimFixture fx;
  OpenStackDriver driver(fx.io().get_executor(), fast_options());
  const auto account = account_for(fx);
  REQUIRE(fx.call("POST", "/_sim/faults", R"({"throttle_next": 1, "error_next": 1})").status ==
          200);
  const auto listing = fx.run(driver.list_instances(account));
  REQUIRE(listing.ok());
  CHECK(listing.instances.size() >= 5);
  // An action too (POST): the 429 is repeated.
  REQUIRE(fx.call("POST", "/_sim/faults", R"({"throttle_next": 1})").status == 200);
  const auto report =
      fx.run(driver.power(account, first_with_status(fx, "SHUTOFF"), PowerAction::on));
  CHECK(report.ok());
}

TEST_CASE("Bad credentials give auth_failed with Keystone's message", "[openstack][cloudapi]") {
  SimFixture fx;
  OpenStackDriver driver(fx.io().get_executor(), fast_options());
  const auto listing = fx.run(driver.list_instances(account_for(fx, "wrong-password")));
  REQUIRE(listing.error);
  CHECK(listing.error->code == DriverErrorCode::auth_failed);
  CHECK(listing.error->message.find("Unauthorized (401)") != std::string::npos);
  CHECK(listing.error->message.find("wrong-password") == std::string::npos);
  // Refused credentials are not tried again at once (accounts lock), but edited ones are.
  const auto auths = fx.sim().instances()["auth_requests"].get<long long>();
  const auto again = fx.run(driver.list_instances(account_for(fx, "wrong-password")));
  REQUIRE(again.error);
  CHECK(again.error->code == DriverErrorCode::auth_failed);
  CHECK(fx.sim().instances()["auth_requests"].get<long long>() == auths);
  CHECK(fx.run(driver.list_instances(account_for(fx))).ok());

  auto broken = account_for(fx);
  broken.credentials.erase("project_name");
  const auto report = fx.run(driver.power(broken, "x", PowerAction::on));
  REQUIRE(report.error);
  CHECK(report.error->code == DriverErrorCode::auth_failed);
  CHECK(report.error->message.find("project_name") != std::string::npos);
}

TEST_CASE("Application credentials work, and a down endpoint is unreachable",
          "[openstack][cloudapi]") {
  OpenStackSimulatorOptions options;
  options.application_credential = ApplicationCredential{"app-1", "app-secret"};
  SimFixture fx(options);
  OpenStackDriver driver(fx.io().get_executor(), fast_options());
  auto account = account_for(fx);
  account.credentials = {{"application_credential_id", "app-1"},
                         {"application_credential_secret", "app-secret"}};
  // The endpoint without /v3 is normalized.
  account.endpoint = fx.base() + "/identity/";
  const auto listing = fx.run(driver.list_instances(account));
  REQUIRE(listing.ok());
  CHECK(listing.instances.size() >= 5);

  auto down = account_for(fx);
  down.account_id = "acct-down";
  down.endpoint = "http://127.0.0.1:1/identity/v3";
  const auto failed = fx.run(driver.list_instances(down));
  REQUIRE(failed.error);
  CHECK(failed.error->code == DriverErrorCode::unreachable);

  auto elsewhere = account_for(fx);
  elsewhere.account_id = "acct-region";
  elsewhere.region = "RegionTwo";
  const auto no_region = fx.run(driver.list_instances(elsewhere));
  REQUIRE(no_region.error);
  CHECK(no_region.error->message.find("RegionTwo") != std::string::npos);
}

TEST_CASE("A refused token is renewed once, and forget() drops it", "[openstack][cloudapi]") {
  SimFixture fx;
  OpenStackDriver driver(fx.io().get_executor(), fast_options());
  const auto account = account_for(fx);
  REQUIRE(fx.run(driver.list_instances(account)).ok());
  const auto auths = fx.sim().instances()["auth_requests"].get<long long>();
  REQUIRE(fx.call("POST", "/_sim/tokens/expire").status == 200);
  const auto listing = fx.run(driver.list_instances(account));
  REQUIRE(listing.ok());
  CHECK(fx.sim().instances()["auth_requests"].get<long long>() == auths + 1);

  // forget() drops the token: the next call authenticates again.
  driver.forget(account.account_id);
  REQUIRE(fx.run(driver.describe_instance(account, first_with_status(fx, "ACTIVE"))).ok());
  CHECK(fx.sim().instances()["auth_requests"].get<long long>() == auths + 2);
}

TEST_CASE("A token near its expiry is replaced before use", "[openstack][cloudapi]") {
  OpenStackSimulatorOptions options;
  options.token_lifetime = std::chrono::seconds(2);
  SimFixture fx(options);
  OpenStackDriverOptions driver_options = fast_options();
  SystemTime now_value = std::chrono::system_clock::now();
  std::mutex clock_mutex;
  driver_options.now = [&] {
    std::lock_guard lock(clock_mutex);
    return now_value;
  };
  OpenStackDriver driver(fx.io().get_executor(), driver_options);
  const auto account = account_for(fx);
  REQUIRE(fx.run(driver.list_instances(account)).ok());
  const auto auths = fx.sim().instances()["auth_requests"].get<long long>();
  {
    // Past half of the 2 s lifetime (by the driver's clock): renew before the next call.
    std::lock_guard lock(clock_mutex);
    now_value += std::chrono::milliseconds(1500);
  }
  REQUIRE(fx.run(driver.describe_instance(account, first_with_status(fx, "ACTIVE"))).ok());
  CHECK(fx.sim().instances()["auth_requests"].get<long long>() == auths + 1);
}

TEST_CASE("A terminated server is reported gone, then unknown", "[openstack][cloudapi]") {
  SimFixture fx;
  OpenStackDriver driver(fx.io().get_executor(), fast_options());
  const auto account = account_for(fx);
  const std::string victim = first_with_status(fx, "SHUTOFF");
  REQUIRE(fx.call("POST", "/_sim/instances/" + victim + "/terminate").status == 200);
  const auto listing = fx.run(driver.list_instances(account));
  REQUIRE(listing.ok());
  const auto instances = by_id(listing);
  REQUIRE(instances.count(victim));
  CHECK(instances.at(victim).gone);
  CHECK(instances.at(victim).provider_state == "DELETED");
  const auto described = fx.run(driver.describe_instance(account, victim));
  CHECK(described.ok());
  CHECK_FALSE(described.instance);
  const auto report = fx.run(driver.power(account, victim, PowerAction::on));
  REQUIRE(report.error);
  CHECK(report.error->message.find("itemNotFound") != std::string::npos);
}

TEST_CASE("Concurrent calls on one account authenticate once", "[openstack][cloudapi]") {
  SimFixture fx;
  OpenStackDriver driver(fx.io().get_executor(), fast_options());
  const auto account = account_for(fx);
  // Three listings in flight together on the io_context.
  auto a = boost::asio::co_spawn(fx.io(), driver.list_instances(account), boost::asio::use_future);
  auto b = boost::asio::co_spawn(fx.io(), driver.list_instances(account), boost::asio::use_future);
  auto c = boost::asio::co_spawn(fx.io(), driver.list_instances(account), boost::asio::use_future);
  const auto first = a.get();
  const auto second = b.get();
  const auto third = c.get();
  CHECK(first.ok());
  CHECK(second.ok());
  CHECK(third.ok());
  CHECK(first.instances.size() == second.instances.size());
  CHECK(fx.sim().instances()["auth_requests"].get<long long>() == 1);
}

TEST_CASE("A failed server is critical with Nova's fault, and a hard reboot recovers it",
          "[openstack][cloudapi]") {
  OpenStackSimulatorOptions options;
  options.transition = std::chrono::milliseconds(0);
  SimFixture fx(options);
  OpenStackDriver driver(fx.io().get_executor(), fast_options());
  const auto account = account_for(fx);
  const std::string victim = first_with_status(fx, "ACTIVE");
  REQUIRE(fx.call("POST", "/_sim/instances/" + victim + "/error").status == 200);
  auto described = fx.run(driver.describe_instance(account, victim));
  REQUIRE(described.instance);
  CHECK(described.instance->health == ironhold::Health::critical);
  CHECK(described.instance->power_state == PowerState::unknown);
  CHECK(described.instance->status_detail == sim_server(fx, victim)["fault"].get<std::string>());
  REQUIRE(fx.run(driver.power(account, victim, PowerAction::reset)).ok());
  described = fx.run(driver.describe_instance(account, victim));
  REQUIRE(described.instance);
  CHECK(described.instance->health == ironhold::Health::ok);
  CHECK(described.instance->power_state == PowerState::on);
}

}  // namespace driver_test
