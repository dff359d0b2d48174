// The BCC driver against the simulated BCC over loopback HTTP: every page listed, GPU facts from
// the instance or flavorSpec, power actions reaching the simulator and its transitional states,
// retries of throttling/5xx/RequestExpired, credential failures and released instances. Expected
// values come from the simulator's raw state, never from the driver.
#include <catch2/catch.hpp>

#include "cloudapi/common/gpu.hpp"
#include "tests/cloudapi/bcc/bcc_test_bed.hpp"

namespace ironhold::test::bcc {
namespace bcc_driver_test {
namespace {

const CloudInstance* find(const std::vector<CloudInstance>& list, const std::string& id) {
  for (const auto& i : list)
    if (i.provider_id == id) return &i;
  return nullptr;
}

// Ends the simulator's transitions, then asks the driver what it sees.
PowerState settled_power(BccTestBed& bed, const std::string& id) {
  bed.simulator->finish_transitions();
  const auto report = bed.run(bed.driver->describe_instance(bed.account(), id));
  REQUIRE(report.ok());
  REQUIRE(report.instance);
  return report.instance->power_state;
}

}  // namespace

TEST_CASE("BCC driver lists every page with GPU model and count", "[bcc][cloudapi]") {
  BccTestBed bed;
  const auto before = bed.simulator->api_requests();
  const InstanceListing listing = bed.run(bed.driver->list_instances(bed.account()));
  REQUIRE(listing.ok());
  const json raw = bed.simulator->instances();
  REQUIRE(listing.instances.size() == raw.size());
  // Three pages of at most two, and one flavorSpec for the spec without gpuCard.
  CHECK(bed.simulator->api_requests() - before == 4);

  for (const auto& expected : raw) {
    const std::string id = expected.at("id").get<std::string>();
    INFO("instance " << id);
    const CloudInstance* got = find(listing.instances, id);
    REQUIRE(got);
    CHECK(got->name == expected.at("name").get<std::string>());
    CHECK(got->provider_state == expected.at("status").get<std::string>());
    CHECK(got->power_state ==
          (expected.at("status") == "Running" ? PowerState::on : PowerState::off));
    CHECK(got->instance_type == std::optional<std::string>(expected.at("spec")));
    CHECK(got->zone == std::optional<std::string>(expected.at("zoneName")));
    CHECK(got->summary.cpu_count == expected.at("cpuCount").get<int>());
    CHECK(got->summary.memory_gib == expected.at("memoryCapacityInGB").get<double>());
    CHECK(got->summary.gpu_count == expected.at("gpuCardCount").get<int>());
    CHECK(got->summary.gpu_model == std::optional<std::string>(cloudapi::gpu_model_name(
                                        "", expected.at("gpuCardType").get<std::string>())));
    CHECK(got->components.size() == expected.at("gpuCardCount").get<std::size_t>());
    CHECK(got->health == Health::ok);
    CHECK(got->tags.at("env") == "prod");
    CHECK(got->details.at("internalIp") == expected.at("internalIp"));
  }
  // The H20 instance carries no gpuCard: its facts came from flavorSpec.
  const CloudInstance* h20 = find(listing.instances, "i-h20Zq04x");
  REQUIRE(h20);
  CHECK(bed.sim_instance("i-h20Zq04x").at("gpuCard") == "");
  CHECK(h20->summary.gpu_model == std::optional<std::string>("NVIDIA H20"));
  CHECK(h20->summary.gpu_count == 8);

  // The flavorSpec catalogue is kept: a second listing costs only the three pages.
  const auto second_start = bed.simulator->api_requests();
  REQUIRE(bed.run(bed.driver->list_instances(bed.account())).ok());
  CHECK(bed.simulator->api_requests() - second_start == 3);
}

TEST_CASE("BCC driver power actions reach the simulator", "[bcc][cloudapi]") {
  BccTestBed bed;
  const auto account = bed.account();

  SECTION("on starts a stopped instance, through Starting") {
    const ActionReport report = bed.run(bed.driver->power(account, "i-a100Xk02", PowerAction::on));
    REQUIRE(report.ok());
    CHECK(report.detail.find("start") != std::string::npos);
    const auto during = bed.run(bed.driver->describe_instance(account, "i-a100Xk02"));
    REQUIRE(during.instance);
    CHECK(during.instance->provider_state == "Starting");
    CHECK(during.instance->power_state == PowerState::transitioning);
    CHECK(settled_power(bed, "i-a100Xk02") == PowerState::on);
    CHECK(bed.sim_instance("i-a100Xk02").at("status") == "Running");
  }
  SECTION("off is a forced stop, soft_off a graceful one") {
    auto report = bed.run(bed.driver->power(account, "i-a100Xk01", PowerAction::off));
    REQUIRE(report.ok());
    CHECK(report.detail.find("forceStop=true") != std::string::npos);
    CHECK(bed.sim_instance("i-a100Xk01").at("lastForceStop") == true);
    CHECK(settled_power(bed, "i-a100Xk01") == PowerState::off);

    report = bed.run(bed.driver->power(account, "i-h800Yp03", PowerAction::soft_off));
    REQUIRE(report.ok());
    CHECK(bed.sim_instance("i-h800Yp03").at("lastForceStop") == false);
    CHECK(bed.sim_instance("i-h800Yp03").at("status") == "Stopping");
  }
  SECTION("cycle and reset reboot, soft and hard") {
    auto report = bed.run(bed.driver->power(account, "i-a100Xk01", PowerAction::cycle));
    REQUIRE(report.ok());
    CHECK(report.detail.find("reboot") != std::string::npos);
    CHECK(bed.sim_instance("i-a100Xk01").at("lastForceStop") == false);
    CHECK(settled_power(bed, "i-a100Xk01") == PowerState::on);

    report = bed.run(bed.driver->power(account, "i-a100Xk01", PowerAction::reset));
    REQUIRE(report.ok());
    CHECK(bed.sim_instance("i-a100Xk01").at("lastForceStop") == true);
  }
  SECTION("a start of a running instance is rejected with BCC's reason") {
    const auto report = bed.run(bed.driver->power(account, "i-a100Xk01", PowerAction::on));
    REQUIRE(report.error);
    CHECK(report.error->code == DriverErrorCode::rejected);
    CHECK_THAT(report.error->message, Catch::Contains("Instance.InvalidStatus"));
  }
}

TEST_CASE("BCC driver retries throttling, 5xx and RequestExpired", "[bcc][cloudapi]") {
  BccTestBed bed;
  sim::cloud::bcc::BccFaults faults;
  faults.throttle_next = 2;
  faults.error_next = 1;
  bed.simulator->set_faults(faults);
  const auto before = bed.simulator->api_requests();
  auto listing = bed.run(bed.driver->list_instances(bed.account()));
  REQUIRE(listing.ok());
  CHECK(listing.instances.size() == 5);
  CHECK(bed.simulator->api_requests() - before == 4 + 3);

  faults = {};
  faults.expire_next = 1;
  bed.simulator->set_faults(faults);
  const auto report = bed.run(bed.driver->power(bed.account(), "i-a100Xk01", PowerAction::cycle));
  CHECK(report.ok());
  CHECK(bed.sim_instance("i-a100Xk01").at("status") == "Starting");

  faults = {};
  faults.throttle_next = 50;
  bed.simulator->set_faults(faults);
  listing = bed.run(bed.driver->list_instances(bed.account()));
  REQUIRE(listing.error);
  CHECK(listing.error->code == DriverErrorCode::rejected);
  CHECK_THAT(listing.error->message, Catch::Contains("RequestRateLimitExceeded"));
}

TEST_CASE("BCC driver reports bad credentials as auth_failed", "[bcc][cloudapi]") {
  BccTestBed bed;
  auto account = bed.account();
  SECTION("wrong secret key") {
    account.credentials["secret_key"] = "thisisnotthesecretkeyatall000000";
    const auto listing = bed.run(bed.driver->list_instances(account));
    REQUIRE(listing.error);
    CHECK(listing.error->code == DriverErrorCode::auth_failed);
    CHECK_THAT(listing.error->message, Catch::Contains("SignatureDoesNotMatch"));
    CHECK(listing.error->message.find("thisisnotthesecretkey") == std::string::npos);
  }
  SECTION("unknown access key") {
    account.credentials["access_key"] = "someoneelseskey";
    const auto report = bed.run(bed.driver->power(account, "i-a100Xk01", PowerAction::off));
    REQUIRE(report.error);
    CHECK(report.error->code == DriverErrorCode::auth_failed);
    CHECK_THAT(report.error->message, Catch::Contains("InvalidAccessKeyId"));
  }
  SECTION("missing credentials") {
    account.credentials = {{"access_key", "x"}};
    const auto listing = bed.run(bed.driver->list_instances(account));
    REQUIRE(listing.error);
    CHECK(listing.error->code == DriverErrorCode::auth_failed);
  }
}

TEST_CASE("BCC driver shows a released instance as gone", "[bcc][cloudapi]") {
  BccTestBed bed;
  REQUIRE(bed.plain("POST", "/_sim/instances/i-a10Wm05x/terminate").status == 200);
  const auto listing = bed.run(bed.driver->list_instances(bed.account()));
  REQUIRE(listing.ok());
  const CloudInstance* gone = find(listing.instances, "i-a10Wm05x");
  REQUIRE(gone);
  CHECK(gone->gone);
  CHECK(gone->provider_state == "Deleted");
  CHECK_FALSE(find(listing.instances, "i-a100Xk01")->gone);

  // An id BCC does not know: no instance, and no error.
  const auto unknown = bed.run(bed.driver->describe_instance(bed.account(), "i-neverwas"));
  CHECK(unknown.ok());
  CHECK_FALSE(unknown.instance);
}

TEST_CASE("BCC driver rebuild sends the image and the encrypted password", "[bcc][cloudapi]") {
  BccTestBed bed;
  RebuildRequest request;
  request.image = "m-Rebuilt01";
  request.admin_password = "S3cret-Pass";
  const auto report = bed.run(bed.driver->rebuild(bed.account(), "i-a100Xk02", request));
  REQUIRE(report.ok());
  CHECK(report.detail.find("S3cret-Pass") == std::string::npos);
  CHECK(bed.sim_instance("i-a100Xk02").at("lastAdminPass") == "S3cret-Pass");
  CHECK(bed.sim_instance("i-a100Xk02").at("status") == "ImageProcessing");
  CHECK(settled_power(bed, "i-a100Xk02") == PowerState::on);
  const auto after = bed.run(bed.driver->describe_instance(bed.account(), "i-a100Xk02"));
  REQUIRE(after.instance);
  CHECK(after.instance->image_id == std::optional<std::string>("m-Rebuilt01"));

  RebuildRequest no_image;
  no_image.admin_password = "x";
  const auto refused = bed.run(bed.driver->rebuild(bed.account(), "i-a100Xk02", no_image));
  REQUIRE(refused.error);
  CHECK(refused.error->code == DriverErrorCode::unsupported);
}

TEST_CASE("BCC driver: an endpoint that is down is unreachable", "[bcc][cloudapi]") {
  BccTestBed bed;
  auto account = bed.account();
  // A port the simulator just gave up: nothing listens there.
  {
    sim::cloud::bcc::BccSimulator closed(bed.io);
    const auto bound = closed.listen({asio::ip::make_address("127.0.0.1"), 0});
    account.endpoint = "http://127.0.0.1:" + std::to_string(bound.port());
    closed.close();
  }
  const auto listing = bed.run(bed.driver->list_instances(account));
  REQUIRE(listing.error);
  CHECK(listing.error->code == DriverErrorCode::unreachable);
}

TEST_CASE("BCC endpoint: the region's public endpoint unless overridden", "[bcc][cloudapi]") {
  CloudAccountTarget account;
  account.region = "gz";
  account.credentials = {{"access_key", "ak"}, {"secret_key", "sk"}};
  auto resolved = cloudapi::bcc::bcc_access(account);
  REQUIRE(resolved.access);
  CHECK(resolved.access->base_url == "https://bcc.gz.baidubce.com");
  CHECK(resolved.access->host == "bcc.gz.baidubce.com");
  CHECK(resolved.access->tls);

  account.endpoint = "http://127.0.0.1:8080/";
  resolved = cloudapi::bcc::bcc_access(account);
  REQUIRE(resolved.access);
  CHECK(resolved.access->host == "127.0.0.1:8080");
  CHECK_FALSE(resolved.access->tls);

  account.endpoint = "ftp://example.com";
  CHECK(cloudapi::bcc::bcc_access(account).error);
}

}  // namespace bcc_driver_test
}  // namespace ironhold::test::bcc
