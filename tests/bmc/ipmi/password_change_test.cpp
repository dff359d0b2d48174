// Changing the password of the BMC account the IPMI driver logs in with (Get User Access, Get
// User Name, Set User Password), checked by peers nobody here wrote: against OpenIPMI's ipmi_sim,
// ipmitool logs in with the new password and no longer with the old; against Ironhold's own
// simulated BMC, ipmitool lists the users the way the driver finds them, ipmitool's own
// `user set password` is taken, and the driver's change lets ipmitool in.
#include <catch2/catch.hpp>
#include <filesystem>

#include "bmc/ipmi/ipmi_driver.hpp"
#include "inventory/util/process.hpp"
#include "sim/ipmi/fleet.hpp"
#include "tests/bmc/http/io_threads.hpp"
#include "tests/support/server/bmc_peers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace password_change_test {

using namespace ironhold;
using namespace ironhold::bmc::ipmi;
using nlohmann::json;
using test::IoThreads;
using test::IpmiSim;
using namespace std::chrono_literals;

namespace {

const std::filesystem::path kIpmitool = "/usr/bin/ipmitool";

DriverTarget target_at(const std::string& endpoint, const std::string& password,
                       const std::string& node_id) {
  DriverTarget t;
  t.node_id = node_id;
  t.node_name = node_id;
  std::string why;
  t.endpoint = *parse_endpoint(endpoint, why);
  t.credentials = Credentials{"admin", password};
  t.options = {{"cipher_suites", {3}}};
  return t;
}

util::ProcessResult ipmitool(const std::string& host, unsigned short port,
                             const std::string& password, std::vector<std::string> command) {
  std::vector<std::string> args{"-I", "lanplus", "-H", host,     "-p", std::to_string(port),
                                "-U", "admin",   "-P", password, "-C", "3"};
  args.insert(args.end(), command.begin(), command.end());
  util::ProcessOptions options;
  options.timeout = std::chrono::seconds(30);
  return util::run_process(kIpmitool, args, options);
}

}  // namespace

TEST_CASE("the driver changes an ipmi_sim user's password: ipmitool logs in with the new one only",
          "[ipmi][driver][ipmi_sim][credentials]") {
  if (auto why = IpmiSim::unavailable()) {
    WARN("skipped: " << *why);
    return;
  }
  if (!std::filesystem::exists(kIpmitool)) {
    WARN("skipped: ipmitool is not installed");
    return;
  }
  IpmiSim sim("127.0.84.7");
  const std::string endpoint = "ipmi://" + sim.address() + ":" + std::to_string(sim.port());
  IoThreads io;
  IpmiDriver driver(io.io.get_executor());

  // Twice: from the password it was started with, then from the first new one.
  for (const std::string password : {"N3w-pass.word-16", "Sec0nd.pass-16ch"}) {
    INFO(password);
    const std::string before = password == "N3w-pass.word-16" ? "password" : "N3w-pass.word-16";
    const ActionReport changed =
        io.run(driver.change_bmc_password(target_at(endpoint, before, "n1"), password));
    INFO((changed.error ? changed.error->message : changed.detail));
    REQUIRE(changed.ok());
    CHECK(changed.detail.find(password) == std::string::npos);
    const auto with_new = ipmitool(sim.address(), sim.port(), password, {"chassis", "status"});
    INFO(with_new.err);
    CHECK(with_new.ok());
    CHECK_FALSE(ipmitool(sim.address(), sim.port(), before, {"chassis", "status"}).ok());
    // A fresh login of the driver's own agrees.
    CHECK(io.run(driver.check_login(target_at(endpoint, password, "check-" + password))).ok());
  }
  // 17 bytes or more would need the 20-byte form, which ipmi_sim takes and then lets no one in
  // with (ipmitool's own `user set password 2 P 20` does the same): refused before sending.
  const ActionReport too_long = io.run(driver.change_bmc_password(
      target_at(endpoint, "Sec0nd.pass-16ch", "n1"), "Seventeen-bytes.x"));
  REQUIRE(too_long.error);
  CHECK(too_long.error->message.find("Seventeen-bytes.x") == std::string::npos);
  CHECK(ipmitool(sim.address(), sim.port(), "Sec0nd.pass-16ch", {"chassis", "status"}).ok());
}

TEST_CASE("the simulated IPMI BMC's users are what ipmitool lists, and its passwords change",
          "[ipmi][driver][sim][credentials]") {
  if (!std::filesystem::exists(kIpmitool)) {
    WARN("skipped: ipmitool is not installed");
    return;
  }
  sim::IpmiFleetOptions o;
  o.listen = "127.0.84.8:0";
  sim::IpmiFleet fleet(o);
  fleet.start();
  const std::string host = fleet.host(0);
  const unsigned short port = fleet.port(0);

  // ipmitool's user list: the administrator at ID 2, as the driver will look for it.
  const auto listed = ipmitool(host, port, "password", {"user", "list", "1"});
  INFO(listed.err);
  REQUIRE(listed.ok());
  INFO(listed.out);
  CHECK(listed.out.find("2   admin") != std::string::npos);

  // ipmitool's own Set User Password, then the driver logs in with it.
  REQUIRE(ipmitool(host, port, "password", {"user", "set", "password", "2", "Fr0m-ipmitool"}).ok());
  IoThreads io;
  IpmiDriver driver(io.io.get_executor());
  CHECK(io.run(driver.check_login(target_at(fleet.endpoint(0), "Fr0m-ipmitool", "a"))).ok());
  const DriverOutcome old =
      io.run(driver.check_login(target_at(fleet.endpoint(0), "password", "b")));
  REQUIRE(old.error);
  CHECK(old.error->code == DriverErrorCode::auth_failed);

  // The driver's change, then ipmitool logs in with the new password.
  const ActionReport changed = io.run(driver.change_bmc_password(
      target_at(fleet.endpoint(0), "Fr0m-ipmitool", "c"), "Fr0m-1ronhold"));
  INFO((changed.error ? changed.error->message : changed.detail));
  REQUIRE(changed.ok());
  CHECK(ipmitool(host, port, "Fr0m-1ronhold", {"chassis", "status"}).ok());
  CHECK(fleet.describe(0)["counters"]["password_changes"] == 2);
}

}  // namespace password_change_test
