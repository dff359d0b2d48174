// Subscriptions on a BMC's EventService: what is read from the service and sent (pure), and the
// driver against simulated BMCs over real HTTPS — a subscription made, an older one of ours
// replaced (never another client's), read back, removed, and a BMC without an EventService
// answered `unsupported`. Expected values come from the mockups and the simulator, not the driver.
#include "bmc/redfish/event_subscription.hpp"

#include <catch2/catch.hpp>

#include "bmc/redfish/redfish_driver.hpp"
#include "tests/bmc/redfish/driver_test_fixture.hpp"
#include "tests/support/project_mockups.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace event_subscription_test {

using namespace ironhold;
using namespace ironhold::bmc::redfish;
using namespace ironhold::test;
using nlohmann::json;

namespace {

const std::string kPrefix = "http://127.0.0.1:8080/api/v1/redfish-events/";

EventSubscriptionRequest request_for(const std::string& secret, const std::string& previous = {}) {
  EventSubscriptionRequest r;
  r.destination = kPrefix + secret;
  r.context = "ironhold node-1";
  r.ours_prefix = kPrefix;
  r.previous = previous;
  return r;
}

// The destinations the simulated BMC delivers to.
std::vector<std::string> destinations(sim::redfish::BmcState& bmc) {
  std::vector<std::string> out;
  for (const auto& s : bmc.subscriptions()) out.push_back(s["destination"]);
  return out;
}

}  // namespace

TEST_CASE("an EventService takes a subscription only when enabled, with a collection, by Redfish",
          "[redfish][events]") {
  const json usable = {
      {"ServiceEnabled", true},
      {"Subscriptions", {{"@odata.id", "/redfish/v1/EventService/Subscriptions"}}}};
  CHECK_FALSE(event_service_refusal(usable));
  json disabled = usable;
  disabled["ServiceEnabled"] = false;
  CHECK(event_service_refusal(disabled)->find("disabled") != std::string::npos);
  json no_collection = usable;
  no_collection.erase("Subscriptions");
  CHECK(event_service_refusal(no_collection)->find("Subscriptions") != std::string::npos);
  json snmp_only = usable;
  snmp_only["SupportedDeliveryProtocols"] = {"SNMPv3", "SMTP"};
  CHECK(event_service_refusal(snmp_only)->find("Redfish protocol") != std::string::npos);
  snmp_only["SupportedDeliveryProtocols"].push_back("Redfish");
  CHECK_FALSE(event_service_refusal(snmp_only));
}

TEST_CASE("the EventDestination asks for alerts and status changes where the BMC lists types",
          "[redfish][events]") {
  const json service = {{"EventTypesForSubscription", {"StatusChange", "ResourceAdded", "Alert"}}};
  const json with = subscription_body(request_for("s3cret"), service, true);
  CHECK(with["Destination"] == kPrefix + "s3cret");
  CHECK(with["Protocol"] == "Redfish");
  CHECK(with["Context"] == "ironhold node-1");
  CHECK(with["EventTypes"] == json::array({"Alert", "StatusChange"}));
  CHECK_FALSE(subscription_body(request_for("s3cret"), service, false).contains("EventTypes"));
  CHECK_FALSE(
      subscription_body(request_for("s3cret"), json::object(), true).contains("EventTypes"));

  CHECK(is_ours({{"Destination", kPrefix + "old"}}, kPrefix));
  CHECK_FALSE(is_ours({{"Destination", "https://collector.example/events"}}, kPrefix));
  CHECK_FALSE(is_ours({{"Destination", 42}}, kPrefix));
  CHECK_FALSE(is_ours({{"Destination", kPrefix + "x"}}, ""));
}

TEST_CASE("the driver subscribes, replaces its older subscription, reads it back and removes it",
          "[redfish][events]") {
  SimulatedBmc bmc(project_mockup("compute-server"));
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());

  const auto first = io.run(driver.subscribe_events(bmc.target(), request_for("one")));
  INFO((first.error ? first.error->message : first.subscription));
  REQUIRE(first.ok());
  CHECK(first.subscription.starts_with("/redfish/v1/EventService/Subscriptions/"));
  CHECK(first.removed == 0);
  CHECK(destinations(bmc.state()) == std::vector<std::string>{kPrefix + "one"});

  const auto present = io.run(driver.check_event_subscription(bmc.target(), first.subscription));
  REQUIRE(present.ok());
  CHECK(present.state == SubscriptionState::present);
  if (present.destination) CHECK(*present.destination == kPrefix + "one");

  // Subscribing again (a new secret) leaves one subscription of ours, the new one.
  const auto second =
      io.run(driver.subscribe_events(bmc.target(), request_for("two", first.subscription)));
  REQUIRE(second.ok());
  CHECK(second.removed == 1);
  CHECK(destinations(bmc.state()) == std::vector<std::string>{kPrefix + "two"});
  CHECK(io.run(driver.check_event_subscription(bmc.target(), first.subscription)).state ==
        SubscriptionState::gone);

  const auto removed = io.run(driver.unsubscribe_events(bmc.target(), second.subscription));
  REQUIRE(removed.ok());
  CHECK(destinations(bmc.state()).empty());
  // Removing what is gone already is no error.
  CHECK(io.run(driver.unsubscribe_events(bmc.target(), second.subscription)).ok());
}

TEST_CASE("another client's subscriptions on the BMC are left alone", "[redfish][events]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc;  // public-rackmount1: its EventService holds others' subscriptions
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  const auto members_before = mockup_document(rackmount_mockup(),
                                              "/redfish/v1/EventService/"
                                              "Subscriptions")["Members"];
  const auto report = io.run(driver.subscribe_events(bmc.target(), request_for("mine")));
  INFO((report.error ? report.error->message : report.subscription));
  REQUIRE(report.ok());
  CHECK(report.removed == 0);
  for (const auto& member : members_before) {
    const auto check = io.run(
        driver.check_event_subscription(bmc.target(), member["@odata.id"].get<std::string>()));
    CHECK(check.state == SubscriptionState::present);
  }
}

TEST_CASE("a BMC without a usable EventService is unsupported, saying why", "[redfish][events]") {
  if (!have_rackmount_mockup()) return;  // ../shared holds the DMTF mockups
  SimulatedBmc bmc(shared_dir() / "redfish-mockups" / "public-cxl");
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  const auto report = io.run(driver.subscribe_events(bmc.target(), request_for("x")));
  REQUIRE_FALSE(report.ok());
  CHECK(report.error->code == DriverErrorCode::unsupported);
  CHECK(report.error->message == "the BMC has no EventService");
}

}  // namespace event_subscription_test
