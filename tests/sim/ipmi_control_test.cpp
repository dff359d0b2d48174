// The IPMI simulator's control API over HTTP: listing, faults the wire then shows, sensors and
// SEL entries the clients then read, sessions, counters.
#include <catch2/catch.hpp>

#include "curl_client.hpp"
#include "ipmi_tools.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace ipmi_control_test {

using namespace std::chrono_literals;
using ironhold::sim::IpmiFleet;
using ironhold::test::control_call;
using ironhold::test::have_tool;
using ironhold::test::ipmi_fleet_options;
using ironhold::test::ipmitool;
using nlohmann::json;

namespace {

ironhold::sim::IpmiFleetOptions with_control(unsigned count) {
  auto o = ipmi_fleet_options(count);
  o.control = "127.0.0.1:0";
  return o;
}

}  // namespace

TEST_CASE("the IPMI control API lists BMCs and changes power, sensors and the SEL",
          "[sim][ipmi][control]") {
  IpmiFleet fleet(with_control(3));
  fleet.start();
  const std::string control = fleet.control_endpoint();
  REQUIRE(control.rfind("http://127.0.0.1:", 0) == 0);

  const auto list = control_call(control + "/bmcs", "GET");
  REQUIRE(list.status == 200);
  const json bmcs = list.doc()["bmcs"];
  REQUIRE(bmcs.size() == 3);
  CHECK(bmcs[2]["index"] == 2);
  CHECK(bmcs[2]["endpoint"] == fleet.endpoint(2));
  CHECK(fleet.endpoint(2).rfind("ipmi://127.0.0.1:", 0) == 0);
  CHECK(bmcs[0]["power"] == "on");
  CHECK(bmcs[0]["faults"].empty());

  const auto off = control_call(control + "/bmcs/1/power", "POST", {{"state", "off"}});
  CHECK(off.status == 200);
  CHECK(off.doc()["power"] == "off");
  CHECK_FALSE(fleet.state(1).power_on());
  CHECK(control_call(control + "/bmcs/1/power", "POST", {{"state", "sideways"}}).status == 400);

  const auto set =
      control_call(control + "/bmcs/0/sensors", "POST", {{"sensor", "12V"}, {"value", 10.5}});
  REQUIRE(set.status == 200);
  CHECK(set.doc()["value"].get<double>() == Approx(10.5).margin(0.06));
  CHECK(set.doc()["state"] == "critical");  // below lower critical 10.8 V
  CHECK(control_call(control + "/bmcs/0/sensors", "POST", {{"sensor", "12V"}, {"value", 99}})
            .status == 400);
  CHECK(control_call(control + "/bmcs/0/sensors", "POST", {{"sensor", "Warp Core"}, {"value", 1}})
            .status == 404);
  const auto sensors = control_call(control + "/bmcs/0/sensors", "GET").doc()["sensors"];
  CHECK(sensors.size() == 15);

  const auto before = fleet.state(0).sel().size();
  const auto entry = control_call(control + "/bmcs/0/sel", "POST",
                                  {{"sensor", "Fan2"}, {"offset", 2}, {"deassertion", false}});
  REQUIRE(entry.status == 201);
  CHECK(entry.doc()["sensor_number"] == 9);
  CHECK(fleet.state(0).sel().size() == before + 1);
  CHECK(control_call(control + "/bmcs/0/sel", "GET").doc()["entries"].size() == before + 1);

  CHECK(control_call(control + "/bmcs/3", "GET").status == 404);
  CHECK(control_call(control + "/bmcs/0/nothing", "GET").status == 404);
  CHECK(control_call(control + "/bmcs/0/counters", "DELETE").status == 405);
  CHECK(control_call(control + "/bmcs/0/faults", "PUT", {{"loss", 2}}).status == 400);
  CHECK(control_call(control + "/bmcs/0/faults", "PUT", {{"bogus", true}}).status == 400);
}

TEST_CASE("faults set through the control API show on the wire", "[sim][ipmi][control]") {
  if (!have_tool("ipmitool")) return;
  IpmiFleet fleet(with_control(1));
  fleet.start();
  const std::string faults = fleet.control_endpoint() + "/bmcs/0/faults";

  REQUIRE(control_call(faults, "PUT", {{"no_answer", true}}).status == 200);
  CHECK(control_call(fleet.control_endpoint() + "/bmcs/0", "GET").doc()["faults"] ==
        json{"no_answer"});
  CHECK_FALSE(ipmitool(fleet, 3, {"chassis", "power", "status"}).ok());
  CHECK(fleet.state(0).counters().datagrams_dropped > 0);
  CHECK(fleet.state(0).counters().sessions_opened == 0);

  // POST merges, PUT replaces, DELETE clears.
  control_call(faults, "POST", {{"lockout", true}});
  CHECK(fleet.state(0).faults().no_answer);
  CHECK(fleet.state(0).faults().lockout);
  control_call(faults, "PUT", {{"lockout", true}});
  CHECK_FALSE(fleet.state(0).faults().no_answer);
  const auto locked = ipmitool(fleet, 3, {"chassis", "power", "status"});
  CHECK_FALSE(locked.ok());
  CHECK(fleet.state(0).counters().logins_failed >= 1);

  control_call(faults, "PUT", {{"delay_ms", 300}});
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(ipmitool(fleet, 17, {"chassis", "power", "status"}).ok());
  // Get Channel Auth Capabilities, Open Session, RAKP 1, RAKP 3, and the commands: each delayed.
  CHECK(std::chrono::steady_clock::now() - t0 >= 1500ms);

  REQUIRE(control_call(faults, "DELETE").status == 200);
  CHECK_FALSE(fleet.state(0).faults().any());
  const auto counters = control_call(fleet.control_endpoint() + "/bmcs/0/counters", "GET").doc();
  CHECK(counters["sessions_opened"] == 1);
  CHECK(counters["sessions_closed"] == 1);
  CHECK(
      control_call(fleet.control_endpoint() + "/bmcs/0/sessions", "GET").doc()["sessions"].empty());
}

}  // namespace ipmi_control_test
