// A misbehaving BMC (the simulator's wire faults) becomes one DriverError on its node; a healthy
// BMC polled by the same driver is unaffected.
#include "bmc/redfish/redfish_driver.hpp"
#include "tests/bmc/redfish/driver_test_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace driver_faults_test {

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

TEST_CASE(
    "a BMC that stopped answering is asked for its known Systems only, garbage sends the next "
    "poll back to the root",
    "[redfish][driver]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc(rackmount_mockup(), true, 1);
  IoThreads io;
  RedfishDriver driver(io.io.get_executor(), quick_options());
  const auto root = mockup_document(rackmount_mockup(), "/redfish/v1");
  const std::size_t systems =
      mockup_document(rackmount_mockup(),
                      root["Systems"]["@odata.id"].get<std::string>())["Members"]
          .size();
  REQUIRE(systems > 0);
  const auto poll = [&] {
    const unsigned before = bmc.state().counters().requests;
    const StatusReport report = io.run(driver.poll_status(bmc.target()));
    INFO((report.error ? report.error->message : "ok"));
    CHECK(report.ok());
    return bmc.state().counters().requests - before;
  };
  poll();                      // learns the Systems (and opens a session)
  REQUIRE(poll() == systems);  // steady: one document per System

  const auto fail_once = [&](const Faults& faults) {
    bmc.fleet->set_faults(0, faults);
    const StatusReport bad = io.run(driver.poll_status(bmc.target()));
    REQUIRE_FALSE(bad.ok());
    bmc.fleet->clear_faults(0);
  };
  SECTION("silence, or a connection reset: the Systems are still known") {
    Faults silent;
    silent.timeout = true;
    fail_once(silent);
    CHECK(poll() == systems);
    Faults reset;
    reset.reset_connections = true;
    fail_once(reset);
    CHECK(poll() == systems);
  }
  SECTION("an answer that is not JSON: walked from the root again") {
    Faults garbage;
    garbage.invalid_json = true;
    fail_once(garbage);
    CHECK(poll() >= systems + 2);  // the root and the Systems collection besides
    CHECK(poll() == systems);
  }
}

// A connection reset is retried within the poll of a BMC that was answering (a blip), but not
// within the poll of one whose last poll failed too: there the next poll is the retry, and each
// attempt would be a TLS handshake on both sides while the healthy fleet waits for the CPU.
TEST_CASE("a BMC already failing gets one attempt per request, a working one its retries",
          "[redfish][driver]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc(rackmount_mockup(), true, 1);
  IoThreads io;
  RedfishDriverOptions options = quick_options();
  options.http.retry.max_attempts = 3;
  options.http.retry.base_delay = std::chrono::milliseconds(1);
  options.http.retry.max_delay = std::chrono::milliseconds(2);
  RedfishDriver driver(io.io.get_executor(), options);
  {
    const StatusReport first = io.run(driver.poll_status(bmc.target()));
    REQUIRE(first.ok());  // the Systems are known now: one request each per poll
  }
  Faults reset;
  reset.reset_connections = true;
  bmc.fleet->set_faults(0, reset);
  const auto requests_of_a_poll = [&](int previous_failures) {
    DriverTarget target = bmc.target();
    target.previous_failures = previous_failures;
    const unsigned before = bmc.state().counters().requests_received;
    const StatusReport report = io.run(driver.poll_status(target));
    CHECK_FALSE(report.ok());
    return bmc.state().counters().requests_received - before;
  };
  // The first poll's connection is still open: libcurl would repeat a request that a reused
  // connection lost on its own, once, so the count would depend on whether it was reused. One poll
  // first ends that connection; every attempt after it is a fresh connection.
  requests_of_a_poll(1);
  const unsigned working = requests_of_a_poll(0);
  const unsigned failing = requests_of_a_poll(1);
  CHECK(failing >= 1);
  CHECK(working == 3 * failing);
}

}  // namespace driver_faults_test
