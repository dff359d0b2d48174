// Pushed hardware events end to end: `ironhold serve` (a real process, polling every hour, so that
// nothing here can come from a poll) subscribes itself on simulated Redfish BMCs; what the BMCs
// then post — a new SEL entry, a System's health — is in the inventory (and raises its alert)
// long before the next poll would have run; a BMC that dropped the subscription gets a new one;
// a retired node's subscription comes off its BMC; and what a stranger posts is refused.
#include <signal.h>
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "sim/redfish/fleet.hpp"
#include "tests/app/ironhold_process.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/test_cluster.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace redfish_events_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr int kNodes = 3;

// The subscriptions a simulated BMC holds, as its control side describes them.
json bmc_subscriptions(sim::RedfishFleet& fleet, int i) {
  const json described = fleet.describe(static_cast<std::size_t>(i));
  return described.value("subscriptions", json::array());
}

// "/api/v1/redfish-events/<secret>" out of "http://127.0.0.1:PORT/api/v1/redfish-events/<secret>".
std::string path_of_url(const std::string& url) {
  const auto scheme = url.find("://");
  const auto slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  return slash == std::string::npos ? std::string() : url.substr(slash);
}

std::string last_segment(const std::string& path) {
  return path.substr(path.rfind('/') + 1);
}

// A request to simulated BMC i's own Redfish API (its handler, without the socket), as its
// administrator.
sim::redfish::Response bmc_request(sim::RedfishFleet& fleet, int i, boost::beast::http::verb verb,
                                   const std::string& target) {
  sim::redfish::Request request{verb, target, 11};
  request.set(boost::beast::http::field::authorization, "Basic YWRtaW46cGFzc3dvcmQ=");  // admin
  return fleet.state(static_cast<std::size_t>(i)).handle(request);
}

json events_of(unsigned short port, const std::string& token, const std::string& node,
               const std::string& kind) {
  const auto res = http_get(port, "/api/v1/nodes/" + node + "/events?kind=" + kind, token);
  REQUIRE(res.status == 200);
  return res.json()["items"];
}

}  // namespace

TEST_CASE("BMCs push their events through the subscriptions serve makes, before any poll",
          "[app][events]") {
  // Removed at the end, a REQUIRE failing or not, with the cluster it relocated.
  const ironhold::test::TempDir scratch("ih-events");
  const fs::path& home = scratch.path();
  const fs::path data = home / "data";

  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("compute-server");
  o.count = kNodes;
  sim::RedfishFleet fleet(o);
  fleet.start();

  // Every poll once at enrollment, then not for an hour: what arrives later was pushed.
  auto serve = start_ironhold(
      {"serve", "--data-dir", data.string(), "--listen", "127.0.0.1:0", "--poll-status-interval",
       "3600", "--poll-sensors-interval", "3600", "--event-check-interval", "10"},
      home / "serve.log");
  const std::string token = admin_token(data, "events");
  std::vector<std::string> ids;
  for (int i = 0; i < kNodes; ++i) {
    const auto res = http_send(serve.port, "POST", "/api/v1/nodes",
                               {{"name", "ev-" + std::to_string(i)},
                                {"driver", "redfish"},
                                {"endpoint", fleet.endpoint(i)},
                                {"credentials", {{"username", "admin"}, {"password", "password"}}}},
                               token);
    REQUIRE(res.status == 201);
    ids.push_back(res.json()["id"]);
  }
  auto subscription = [&](int i) {
    const auto res = http_get(serve.port, "/api/v1/nodes/" + ids[i] + "/event-subscription", token);
    REQUIRE(res.status == 200);
    return res.json();
  };
  // Subscribed, and inspected (what the logs held then is history, not news).
  for (int i = 0; i < kNodes; ++i) {
    INFO("node " << i << ": " << subscription(i).dump());
    REQUIRE(eventually([&] { return subscription(i)["state"] == "active"; }, 120s));
    REQUIRE(eventually(
        [&] {
          const auto res = http_get(serve.port, "/api/v1/nodes/" + ids[i], token);
          return res.json()["lifecycle"] == "available";
        },
        120s));
    const json held = bmc_subscriptions(fleet, i);
    REQUIRE(held.size() == 1);
    const std::string destination = held[0]["destination"];
    CHECK(destination.starts_with("http://127.0.0.1:" + std::to_string(serve.port) +
                                  "/api/v1/redfish-events/"));
    CHECK(subscription(i)["bmc_subscription"].get<std::string>().ends_with(
        "/" + last_segment(held[0]["id"])));
  }

  SECTION("a new log entry is an event and an alert at once; a health change is the node's") {
    const json entry = fleet.state(0).append_sel("Critical", "PSU 1 lost input", "Power Supply");
    const std::string entry_id = entry["@odata.id"];
    json found;
    REQUIRE(eventually([&] {
      for (const auto& e : events_of(serve.port, token, ids[0], "sel"))
        if (e["details"].value("log_entry", "") == entry_id) found = e;
      return !found.is_null();
    }));
    CHECK(found["severity"] == "critical");
    CHECK(found["details"]["pushed"] ==
          true);  // recorded by the push (the next poll is an hour off)
    CHECK(found["message"] == "PSU 1 lost input");
    REQUIRE(eventually([&] {
      const json alerts =
          http_get(serve.port, "/api/v1/alerts?source=hardware_log&state=firing", token).json();
      for (const auto& a : alerts["items"])
        if (a["node_id"] == ids[0]) return a["severity"] == "critical";
      return false;
    }));

    fleet.state(1).set_health("Critical");
    REQUIRE(eventually([&] {
      return http_get(serve.port, "/api/v1/nodes/" + ids[1], token).json()["health"] == "critical";
    }));
    json change;
    for (const auto& e : events_of(serve.port, token, ids[1], "health_change"))
      if (e["details"].value("pushed", false)) change = e;
    INFO(events_of(serve.port, token, ids[1], "health_change").dump());
    CHECK(change["details"]["to"] == "critical");
    CHECK(subscription(1)["events_received"].get<int>() >= 1);

    // The same document again (a BMC repeating a delivery it thinks was lost) adds nothing.
    const std::string path = path_of_url(bmc_subscriptions(fleet, 2)[0]["destination"]);
    const json again = {{"@odata.type", "#Event.v1_7_0.Event"},
                        {"Id", "1"},
                        {"Name", "Event Array"},
                        {"Events",
                         {{{"EventType", "Alert"},
                           {"EventId", "4711"},
                           {"EventTimestamp", "2026-12-01T10:00:00Z"},
                           {"MessageSeverity", "Warning"},
                           {"Message", "Fan 2 speed low"},
                           {"MessageId", "Test.1.0.FanLow"},
                           {"OriginOfCondition", {{"@odata.id", "/redfish/v1/Systems/1"}}}}}}};
    CHECK(http_send(serve.port, "POST", path, again, std::nullopt).status == 204);
    CHECK(http_send(serve.port, "POST", path, again, std::nullopt).status == 204);
    int copies = 0;
    for (const auto& e : events_of(serve.port, token, ids[2], "redfish_event"))
      copies += e["message"] == "Fan 2 speed low";
    CHECK(copies == 1);
  }

  SECTION("what is not a BMC's document, or not under a subscription's secret, is refused") {
    const std::string path = path_of_url(bmc_subscriptions(fleet, 0)[0]["destination"]);
    HttpRequest garbage;
    garbage.method = "POST";
    garbage.target = path;
    garbage.body = "{not json";
    CHECK(http_request(serve.port, garbage).status == 400);
    CHECK(http_send(serve.port, "POST", path, {{"Events", "none"}}, std::nullopt).status == 400);
    CHECK(http_send(serve.port, "POST", path, json::array({1, 2}), std::nullopt).status == 400);
    const auto stranger = http_send(serve.port, "POST", "/api/v1/redfish-events/not-a-secret",
                                    {{"Events", json::array()}}, std::nullopt);
    CHECK(stranger.status == 404);
    CHECK(stranger.body.find("not-a-secret") == std::string::npos);
    // Nothing of that reached the node.
    CHECK(events_of(serve.port, token, ids[0], "redfish_event").empty());
  }

  SECTION("a BMC that dropped the subscription gets a new one; a retired node's comes off") {
    const json held = bmc_subscriptions(fleet, 0);
    REQUIRE(held.size() == 1);
    const std::string old_path = subscription(0)["bmc_subscription"];
    // Its administrator deletes it on the BMC.
    CHECK(bmc_request(fleet, 0, boost::beast::http::verb::delete_, old_path).result_int() / 100 ==
          2);
    REQUIRE(bmc_subscriptions(fleet, 0).empty());
    // Read back within --event-check-interval, found gone, made again.
    REQUIRE(eventually([&] { return bmc_subscriptions(fleet, 0).size() == 1; }, 120s));
    REQUIRE(eventually([&] { return subscription(0)["bmc_subscription"] != old_path; }, 30s));
    const json entry = fleet.state(0).append_sel("Warning", "Fan 4 failed", "Fan");
    REQUIRE(eventually([&] {
      for (const auto& e : events_of(serve.port, token, ids[0], "sel"))
        if (e["details"].value("log_entry", "") == entry["@odata.id"]) return true;
      return false;
    }));

    CHECK(http_send(serve.port, "DELETE", "/api/v1/nodes/" + ids[1], nullptr, token).status == 204);
    REQUIRE(eventually([&] { return bmc_subscriptions(fleet, 1).empty(); }, 60s));
    REQUIRE(eventually(
        [&] {
          return http_get(serve.port, "/api/v1/nodes/" + ids[1] + "/event-subscription", token)
                     .status == 404;
        },
        30s));
  }

  serve.process->signal(SIGTERM);
  CHECK(serve.process->wait(60s) == 0);
  fleet.stop();
}

}  // namespace redfish_events_test
