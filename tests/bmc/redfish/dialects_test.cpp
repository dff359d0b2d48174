// What real BMC firmware does that a tidy mockup does not, acted out by the simulator over real
// HTTPS on loopback, and the Redfish driver meeting it: collections answered 200 with no members
// (a BMC still starting; bmcweb before it has read the host's inventory), a full session table
// (iDRAC's RAC0218), a BMC that refuses bursts (Supermicro), Boot taken only through a
// @Redfish.Settings object (iDRAC 10, Lenovo XCC), a Boot PATCH refused without the boot mode
// (Supermicro). Expected values come from the DMTF
// mockup's files and from error bodies real BMCs sent (quoted where they are used).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "bmc/redfish/redfish_driver.hpp"
#include "tests/bmc/redfish/driver_test_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace dialects_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace ironhold::bmc::redfish;
using sim::redfish::Faults;
namespace beast_http = boost::beast::http;

namespace {

bool has_kind(const std::vector<Component>& components, ComponentKind kind) {
  return std::any_of(components.begin(), components.end(),
                     [kind](const Component& c) { return c.kind == kind; });
}

std::filesystem::path capture_tree(const std::string& vendor) {
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "data" /
         "vendor-captures" / vendor / "tree";
}

nlohmann::json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

// A document as the simulated BMC serves it now.
nlohmann::json served(sim::redfish::BmcState& bmc, const std::string& path) {
  sim::redfish::Request request{beast_http::verb::get, path, 11};
  request.set(beast_http::field::authorization, "Basic YWRtaW46cGFzc3dvcmQ=");  // admin:password
  return nlohmann::json::parse(bmc.handle(request).body());
}

bool unlisted(const SystemInventory& system, ComponentKind kind) {
  return std::find(system.unlisted_kinds.begin(), system.unlisted_kinds.end(), kind) !=
         system.unlisted_kinds.end();
}

}  // namespace

TEST_CASE("a Systems collection answered with no members is an error, not every System gone",
          "[redfish][driver][dialect]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc;
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());

  Faults empty;
  empty.empty_collections = {"Systems"};
  bmc.state().set_faults(empty);
  const InspectionReport inspected = io.run(driver.inspect(bmc.target()));
  REQUIRE(inspected.error);
  CHECK(inspected.error->code == DriverErrorCode::bad_response);
  CHECK(inspected.error->message.find("lists no Systems") != std::string::npos);
  CHECK(inspected.systems.empty());
  const StatusReport status = io.run(driver.poll_status(bmc.target()));
  CHECK(status.error);

  // Once the BMC lists its System again, everything reads as before.
  bmc.state().set_faults({});
  const InspectionReport again = io.run(driver.inspect(bmc.target()));
  REQUIRE_FALSE(again.error);
  REQUIRE(again.systems.size() == 1);
  CHECK(again.systems[0].unlisted_kinds.empty());
}

TEST_CASE("a host's Processors and Memory answered empty are unlisted, not removed",
          "[redfish][driver][dialect]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc;
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  const auto system = mockup_document(rackmount_mockup(), mockup_first_system(rackmount_mockup()));

  Faults empty;
  empty.empty_collections = {"Processors", "Memory"};
  bmc.state().set_faults(empty);
  const InspectionReport inspected = io.run(driver.inspect(bmc.target()));
  REQUIRE_FALSE(inspected.error);
  REQUIRE(inspected.systems.size() == 1);
  const SystemInventory& host = inspected.systems[0];
  CHECK(unlisted(host, ComponentKind::cpu));
  CHECK(unlisted(host, ComponentKind::gpu));  // no GPU baseboard: its GPUs would be Processors
  CHECK(unlisted(host, ComponentKind::memory));
  CHECK_FALSE(unlisted(host, ComponentKind::drive));
  CHECK_FALSE(has_kind(host.components, ComponentKind::cpu));
  CHECK_FALSE(has_kind(host.components, ComponentKind::memory));
  CHECK(has_kind(host.components, ComponentKind::drive));
  // The System's own summaries stand in for what was not listed.
  CHECK(host.summary.cpu_count == system["ProcessorSummary"]["Count"].get<int>());
  CHECK(host.summary.cpu_model == system["ProcessorSummary"]["Model"].get<std::string>());
  CHECK(host.summary.memory_gib == system["MemorySummary"]["TotalSystemMemoryGiB"].get<double>());

  bmc.state().set_faults({});
  const InspectionReport listed = io.run(driver.inspect(bmc.target()));
  REQUIRE_FALSE(listed.error);
  CHECK(listed.systems[0].unlisted_kinds.empty());
  CHECK(has_kind(listed.systems[0].components, ComponentKind::cpu));
  CHECK(has_kind(listed.systems[0].components, ComponentKind::memory));
}

TEST_CASE("a session-limit refusal is told from others by its message, as real BMCs word it",
          "[redfish][dialect]") {
  // iDRAC 9, as quoted in gofish issue 75: 503, a GeneralError holding RAC0218.
  const auto idrac = nlohmann::json::parse(R"({"error":{"@Message.ExtendedInfo":[{"Message":
    "The maximum number of user sessions is reached.","MessageArgs":[],"MessageArgs@odata.count":0,
    "MessageId":"IDRAC.2.1.RAC0218","RelatedProperties":[],"RelatedProperties@odata.count":0,
    "Resolution":"Close one or more sessions before opening another session.",
    "Severity":"Informational"}],"code":"Base.1.5.GeneralError",
    "message":"A general error has occurred. See ExtendedInfo for more information"}})");
  CHECK(is_session_limit(503, idrac));
  // A Cisco UCS C240 M5 (CIMC): 400, Base's own SessionLimitExceeded.
  const auto cimc = nlohmann::json::parse(R"({"error":{"code":"Base.1.4.0.GeneralError",
    "message":"See ExtendedInfo for more information.","@Message.ExtendedInfo":[{
    "@odata.type":"#Message.v1_1_1.Message","MessageId":"Base.1.4.0.SessionLimitExceeded",
    "Message":"The session establishment failed due to the number of simultaneous sessions exceeding the limit of the implementation.",
    "MessageArgs":[],"Severity":"Warning","Resolution":"Reduce the number of other sessions before trying to establish the session or increase the limit of simultaneous sessions (if supported)."}]}})");
  CHECK(is_session_limit(400, cimc));
  // The same words without a MessageId still say it; other errors do not.
  CHECK(is_session_limit(
      503, {{"error", {{"message", "The maximum number of user sessions is reached."}}}}));
  CHECK_FALSE(is_session_limit(
      400, {{"error", {{"code", "Base.1.16.0.MalformedJSON"}, {"message", "malformed"}}}}));
  CHECK_FALSE(is_session_limit(500, idrac));
  CHECK_FALSE(is_session_limit(503, nlohmann::json()));
}

TEST_CASE("a BMC whose sessions are all taken is read with Basic auth, and a session tried later",
          "[redfish][driver][dialect]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc;
  IoThreads io;
  Faults limit;
  limit.session_limit = 1;
  bmc.state().set_faults(limit);
  const auto refused = [&] { return bmc.state().counters().sessions_refused; };

  // Another client holds the only slot.
  RedfishDriver other(io.io.get_executor());
  REQUIRE(io.run(other.poll_status(bmc.target())).ok());
  REQUIRE(bmc.state().open_sessions() == 1);

  std::mutex clock_mutex;
  auto now = SessionCache::Clock::now();
  RedfishDriverOptions options;
  options.now = [&] {
    std::lock_guard lock(clock_mutex);
    return now;
  };
  RedfishDriver driver(io.io.get_executor(), options);
  const StatusReport first = io.run(driver.poll_status(bmc.target()));
  REQUIRE(first.ok());
  CHECK(refused() == 1);
  CHECK(bmc.state().open_sessions() == 1);
  // Later calls go on with Basic auth without knocking again.
  const InspectionReport inspected = io.run(driver.inspect(bmc.target()));
  REQUIRE_FALSE(inspected.error);
  CHECK(refused() == 1);

  // A BMC that refuses Basic auth as well: a clear error, and no bar on the credentials.
  Faults no_basic = limit;
  no_basic.basic_auth_refused = true;
  bmc.state().set_faults(no_basic);
  const StatusReport stuck = io.run(driver.poll_status(bmc.target()));
  REQUIRE(stuck.error);
  CHECK(stuck.error->code == DriverErrorCode::rejected);
  CHECK(stuck.error->message.find("no free session slot") != std::string::npos);
  bmc.state().set_faults(limit);
  REQUIRE(io.run(driver.poll_status(bmc.target())).ok());  // logged in again: refused, Basic
  CHECK(refused() == 2);

  // The other client logs out; once the retry time has passed, a session is opened again.
  io.run(other.shutdown());
  CHECK(bmc.state().open_sessions() == 0);
  REQUIRE(io.run(driver.poll_status(bmc.target())).ok());
  CHECK(bmc.state().open_sessions() == 0);  // still Basic: the retry time has not passed
  {
    std::lock_guard lock(clock_mutex);
    now += AuthBackoffOptions{}.session_slots_retry + std::chrono::seconds(1);
  }
  REQUIRE(io.run(driver.poll_status(bmc.target())).ok());
  CHECK(bmc.state().open_sessions() == 1);
  CHECK(refused() == 2);
  io.run(driver.shutdown());
  CHECK(bmc.state().open_sessions() == 0);
}

TEST_CASE("a BMC that refuses bursts is paced from its refusals and read whole",
          "[redfish][driver][dialect]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc;
  IoThreads io;
  RedfishDriver reference(io.io.get_executor());
  const InspectionReport whole = io.run(reference.inspect(bmc.target()));
  REQUIRE_FALSE(whole.error);

  Faults burst;
  burst.burst_limit = 20;
  bmc.state().set_faults(burst);
  RedfishDriver driver(io.io.get_executor());
  // The refusals and requests of one inspection, which must have read everything.
  const auto inspect = [&] {
    const auto before = bmc.state().counters();
    const InspectionReport report = io.run(driver.inspect(bmc.target()));
    REQUIRE_FALSE(report.error);
    REQUIRE(report.systems.size() == whole.systems.size());
    CHECK(report.systems[0].components.size() == whole.systems[0].components.size());
    CHECK(report.systems[0].firmware.size() == whole.systems[0].firmware.size());
    CHECK(report.systems[0].sensors.size() == whole.systems[0].sensors.size());
    const auto after = bmc.state().counters();
    return std::pair{after.requests_refused - before.requests_refused,
                     after.requests_received - before.requests_received};
  };
  // Asked as fast as the driver goes, the BMC refuses: that is where the pace comes from.
  const auto first = inspect();
  CHECK(first.first >= 1);
  // Paced and patient from then on, every inspection reads the whole tree. Refusals do not stop:
  // the pace speeds up again after each run of answers (RefusalThrottle) and meets the limit
  // again. Measured alone on 2026-12-07: 7 to 21 refusals in two inspections of some 97 requests,
  // as many as a driver that only retries (which then lost documents or its inspection), so no
  // share of refusals is asserted here.
  for (int i = 0; i < 2; ++i) {
    const auto next = inspect();
    UNSCOPED_INFO("refused " << first.first << " of " << first.second << " first, then "
                             << next.first << " of " << next.second);
  }
}

TEST_CASE("Boot refused on the System goes through its settings object, acted on at the reset",
          "[redfish][driver][dialect]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc;
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  const std::string system = mockup_first_system(rackmount_mockup());
  // The System boots from its disk, until told otherwise.
  REQUIRE(
      io.run(driver.set_boot(bmc.target(), "", BootRequest{BootDevice::disk, true, std::nullopt}))
          .ok());
  const auto before = served(bmc.state(), system)["Boot"];
  REQUIRE(before["BootSourceOverrideTarget"] == "Hdd");

  Faults settings_only;
  settings_only.boot_via_settings = true;
  bmc.state().set_faults(settings_only);
  const std::string settings =
      served(bmc.state(), system)["@Redfish.Settings"]["SettingsObject"]["@odata.id"];
  const ActionReport boot =
      io.run(driver.set_boot(bmc.target(), "", BootRequest{BootDevice::pxe, false, std::nullopt}));
  INFO((boot.error ? boot.error->message : boot.detail));
  REQUIRE(boot.ok());
  CHECK(boot.detail.find("through the settings object " + settings) != std::string::npos);
  CHECK(boot.detail.find("ApplyTime OnReset") != std::string::npos);
  // Pending until the reset: the System still boots as before, the settings object holds it.
  CHECK(served(bmc.state(), system)["Boot"]["BootSourceOverrideTarget"] ==
        before["BootSourceOverrideTarget"]);
  CHECK(served(bmc.state(), settings)["Boot"]["BootSourceOverrideTarget"] == "Pxe");
  CHECK(bmc.state().counters().network_boots == 0);

  REQUIRE(io.run(driver.power(bmc.target(), "", PowerAction::reset)).ok());
  CHECK(bmc.state().counters().network_boots == 1);
  // Used once, as a one-time override is.
  CHECK(served(bmc.state(), system)["Boot"]["BootSourceOverrideEnabled"] == "Disabled");
  CHECK(served(bmc.state(), settings)["Boot"].empty());
}

TEST_CASE("a Lenovo XCC capture's own settings object takes the override when the System will not",
          "[redfish][driver][dialect][vendor]") {
  const auto tree = capture_tree("lenovo-xcc");
  const auto captured = read_json(tree / "Systems" / "1" / "index.json");
  const std::string pending = captured["@Redfish.Settings"]["SettingsObject"]["@odata.id"];
  SimulatedBmc bmc(tree);
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  Faults settings_only;
  settings_only.boot_via_settings = true;  // keeps the settings object the capture declares
  bmc.state().set_faults(settings_only);
  const ActionReport boot =
      io.run(driver.set_boot(bmc.target(), "", BootRequest{BootDevice::pxe, false, std::nullopt}));
  INFO((boot.error ? boot.error->message : boot.detail));
  REQUIRE(boot.ok());
  CHECK(boot.detail.find("through the settings object " + pending) != std::string::npos);
  CHECK(served(bmc.state(), pending)["Boot"]["BootSourceOverrideTarget"] == "Pxe");
  REQUIRE(io.run(driver.power(bmc.target(), "", PowerAction::reset)).ok());
  CHECK(bmc.state().counters().network_boots == 1);
}

TEST_CASE("a Supermicro capture that wants the boot mode with every override gets its own back",
          "[redfish][driver][dialect][vendor]") {
  const auto tree = capture_tree("supermicro");
  const auto captured = read_json(tree / "Systems" / "1" / "index.json");
  SimulatedBmc bmc(tree);
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  Faults mode_required;
  mode_required.boot_mode_required = true;
  bmc.state().set_faults(mode_required);
  const ActionReport boot =
      io.run(driver.set_boot(bmc.target(), "", BootRequest{BootDevice::pxe, false, std::nullopt}));
  INFO((boot.error ? boot.error->message : boot.detail));
  REQUIRE(boot.ok());
  const auto now = served(bmc.state(), "/redfish/v1/Systems/1")["Boot"];
  CHECK(now["BootSourceOverrideTarget"] == "Pxe");
  CHECK(now["BootSourceOverrideMode"] == captured["Boot"]["BootSourceOverrideMode"]);
}

}  // namespace dialects_test
