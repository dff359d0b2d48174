// A misbehaving BMC (the simulator's wire faults) becomes one DriverError on its node; a healthy
// BMC polled by the same driver is unaffected.
#include "bmc/redfish/redfish_driver.hpp"
#include "tests/bmc/redfish/driver_test_fixture.hpp"

using namespace ironhold;
using namespace ironhold::test;
using namespace ironhold::bmc::redfish;
using sim::redfish::Faults;

namespace {

RedfishDriverOptions quick_options() {
  RedfishDriverOptions options;
  options.http.retry.max_attempts = 1;  // the fault is permanent: retries only slow the test
  options.transport.total_timeout = std::chrono::milliseconds(1500);
  options.transport.max_body = 1 << 20;
  return options;
}

}  // namespace

TEST_CASE("wire faults become driver errors and leave other BMCs alone", "[redfish][driver]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc(rackmount_mockup(), true, 2);
  IoThreads io;
  RedfishDriver driver(io.io.get_executor(), quick_options());

  struct Case {
    const char* name;
    Faults faults;
    DriverErrorCode expected;
  };
  std::vector<Case> cases;
  {
    Faults f;
    f.invalid_json = true;
    cases.push_back({"invalid JSON", f, DriverErrorCode::bad_response});
  }
  {
    Faults f;
    f.truncated_json = true;
    cases.push_back({"truncated JSON", f, DriverErrorCode::bad_response});
  }
  {
    Faults f;
    f.redirect_loop = true;
    cases.push_back({"redirect loop", f, DriverErrorCode::bad_response});
  }
  {
    Faults f;
    f.huge_body_bytes = 2 << 20;
    cases.push_back({"huge body", f, DriverErrorCode::bad_response});
  }
  {
    Faults f;
    f.timeout = true;
    cases.push_back({"no answer", f, DriverErrorCode::timeout});
  }
  {
    Faults f;
    f.error_rate = 1.0;
    cases.push_back({"5xx", f, DriverErrorCode::rejected});
  }
  {
    Faults f;
    f.reset_connections = true;
    cases.push_back({"connection reset", f, DriverErrorCode::unreachable});
  }
  for (const auto& c : cases) {
    SECTION(c.name) {
      bmc.fleet->set_faults(0, c.faults);
      const StatusReport bad = io.run(driver.poll_status(bmc.target("password", 0)));
      INFO((bad.error ? bad.error->message : "ok"));
      REQUIRE_FALSE(bad.ok());
      CHECK(bad.error->code == c.expected);
      CHECK(bad.error->message.find("password") == std::string::npos);
      const StatusReport good = io.run(driver.poll_status(bmc.target("password", 1)));
      INFO((good.error ? good.error->message : "ok"));
      CHECK(good.ok());
      bmc.fleet->clear_faults(0);
    }
  }
}
