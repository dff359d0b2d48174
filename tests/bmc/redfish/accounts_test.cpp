// The Redfish driver changes the password of the account it logs in with, through the simulated
// BMC's AccountService: on the project's own mockup, and on a Lenovo XClarity capture's account
// (its UserName read from the capture). The AccountService's length rules are kept before
// anything is sent, a fresh login proves the change, and no message holds the password, even
// when the BMC quotes it back in its refusal.
#include "bmc/redfish/accounts.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "bmc/redfish/redfish_driver.hpp"
#include "driver_test_fixture.hpp"
#include "tests/support/project_mockups.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace accounts_test {

using namespace ironhold;
using namespace ironhold::bmc::redfish;
using ironhold::test::IoThreads;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json read_json(const fs::path& file) {
  std::ifstream in(file);
  REQUIRE(in.good());
  return json::parse(in);
}

struct Bmc {
  explicit Bmc(fs::path mockup, std::string username = "admin") {
    sim::RedfishFleetOptions options;
    options.mockup_dir = std::move(mockup);
    options.username = username;
    fleet = std::make_unique<sim::RedfishFleet>(options);
    fleet->start();
    user = std::move(username);
  }
  DriverTarget target(const std::string& password) const {
    DriverTarget t;
    t.node_id = "node-1";
    t.node_name = "rack1-u1";
    std::string why;
    t.endpoint = *parse_endpoint(fleet->endpoint(0), why);
    t.credentials = Credentials{user, password};
    return t;
  }
  std::unique_ptr<sim::RedfishFleet> fleet;
  std::string user;
};

}  // namespace

TEST_CASE("The driver changes its BMC account's password, and only the new one logs in",
          "[bmc][redfish][credentials]") {
  const fs::path mockup = ironhold::test::project_mockup("hgx-gpu-server");
  const json service = read_json(mockup / "AccountService/index.json");
  const int min = service["MinPasswordLength"];
  const int max = service["MaxPasswordLength"];
  Bmc bmc(mockup);
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());

  // Outside the AccountService's lengths: refused here, nothing sent.
  for (const std::string& bad : {std::string(min - 1, 'x'), std::string(max + 1, 'y')}) {
    const ActionReport refused = io.run(driver.change_bmc_password(bmc.target("password"), bad));
    REQUIRE(refused.error);
    CHECK(refused.error->message.find(bad) == std::string::npos);
    CHECK_THAT(refused.error->message, Catch::Contains("nothing was changed"));
  }
  CHECK(bmc.fleet->describe(0)["counters"]["password_changes"] == 0);

  // The BMC refuses a password holding the user name, quoting it: the message does not.
  const std::string named = "admin-S3cret.xyz";
  const ActionReport quoted = io.run(driver.change_bmc_password(bmc.target("password"), named));
  REQUIRE(quoted.error);
  INFO(quoted.error->message);
  CHECK(quoted.error->message.find(named) == std::string::npos);
  CHECK_THAT(quoted.error->message, Catch::Contains("********"));

  const std::string fresh = "N3w-Secret.pass";
  const ActionReport changed = io.run(driver.change_bmc_password(bmc.target("password"), fresh));
  INFO((changed.error ? changed.error->message : changed.detail));
  REQUIRE(changed.ok());
  CHECK(changed.detail.find(fresh) == std::string::npos);
  CHECK_THAT(changed.detail, Catch::Contains("/redfish/v1/AccountService/Accounts/1"));
  CHECK(bmc.fleet->describe(0)["counters"]["password_changes"] == 1);
  CHECK(io.run(driver.check_login(bmc.target(fresh))).ok());
  const DriverOutcome old = io.run(driver.check_login(bmc.target("password")));
  REQUIRE(old.error);
  CHECK(old.error->code == DriverErrorCode::auth_failed);
}

TEST_CASE("The driver finds and changes a Lenovo XClarity capture's account",
          "[bmc][redfish][credentials][vendor]") {
  const fs::path tree = fs::path(__FILE__).parent_path().parent_path().parent_path() / "data" /
                        "vendor-captures" / "lenovo-xcc" / "tree";
  const json account = read_json(tree / "AccountService/Accounts/1/index.json");
  const std::string user = account["UserName"];
  Bmc bmc(tree, user);
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  const ActionReport changed =
      io.run(driver.change_bmc_password(bmc.target("password"), "Lenovo-N3w.pass"));
  INFO((changed.error ? changed.error->message : changed.detail));
  REQUIRE(changed.ok());
  CHECK_THAT(changed.detail, Catch::Contains(account["@odata.id"].get<std::string>()));
  CHECK(io.run(driver.check_login(bmc.target("Lenovo-N3w.pass"))).ok());
  // An account name the BMC does not have.
  Bmc other(tree, "nobody");
  const ActionReport missing =
      io.run(driver.change_bmc_password(other.target("password"), "Whatever-1234"));
  REQUIRE(missing.error);
  CHECK(missing.error->code == DriverErrorCode::unsupported);
  CHECK_THAT(missing.error->message, Catch::Contains("nobody"));
}

TEST_CASE("redact hides every copy of a secret", "[bmc][redfish][credentials]") {
  CHECK(redact("value 'abc' and abc again", "abc") == "value '********' and ******** again");
  CHECK(redact("nothing here", "") == "nothing here");
}

}  // namespace accounts_test
