// The simulated BMCs' EventService delivering events over real HTTP on loopback: what a SEL
// entry, a health change, a power change and SubmitTestEvent raise, as a real HTTP(S) receiver gets
// them (HttpHeaders, Context, filters); a receiver that fails (retries, then the
// DeliveryRetryPolicy); delivery over TLS. Subscriptions themselves:
// redfish_event_subscriptions_test.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <catch2/catch.hpp>

#include "redfish_events_support.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/server/tls_test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace redfish_events_test {

using ironhold::test::eventually;
using namespace ironhold::test::sim_events;

TEST_CASE("a SEL entry is an Alert whose LogEntry is the entry the SEL lists, with the headers",
          "[sim][redfish][events]") {
  WebhookReceiver receiver;
  ironhold::sim::RedfishFleet fleet(events_options());
  fleet.start();
  const std::string bmc = fleet.endpoint(0);

  const auto created = subscribe(
      bmc,
      {{"Destination", url_of(receiver, "/hooks/bmc?node=7")},
       {"Protocol", "Redfish"},
       {"Context", "ironhold-node-7"},
       {"EventFormatType", "Event"},
       {"HttpHeaders", {{{"Authorization", "Bearer s3cret-token"}}, {{"X-Ironhold-Node", "7"}}}}});
  require_subscribed(created);
  const std::string member = created.headers.at("location");
  CHECK(member.rfind(kSubscriptions + "/", 0) == 0);
  const json doc = created.doc();
  CHECK(doc["@odata.id"] == member);
  CHECK(doc["Destination"] == url_of(receiver, "/hooks/bmc?node=7"));
  CHECK(doc["Context"] == "ironhold-node-7");
  CHECK(doc["Protocol"] == "Redfish");
  CHECK(doc["HttpHeaders"].is_null());
  CHECK(doc["DeliveryRetryPolicy"] == "TerminateAfterRetries");
  const CurlReply read = curl_fetch(bmc + member);
  CHECK(read.status == 200);
  CHECK(read.body.find("s3cret") == std::string::npos);
  const json collection = curl_fetch(bmc + kSubscriptions).doc();
  CHECK(collection["Members@odata.count"] == 1);
  CHECK(collection["Members"][0]["@odata.id"] == member);

  const auto sel = control_call(fleet.control_endpoint() + "/bmcs/0/sel", "POST",
                                {{"severity", "Critical"},
                                 {"message", "CPU 2 temperature above upper critical"},
                                 {"sensor_type", "Temperature"}});
  REQUIRE(sel.status == 201);
  REQUIRE(receiver.wait_for(1));
  const auto got = receiver.received().at(0);
  CHECK(got.target == "/hooks/bmc?node=7");
  CHECK(got.headers.at("authorization") == "Bearer s3cret-token");
  CHECK(got.headers.at("x-ironhold-node") == "7");
  CHECK(got.headers.at("content-type") == "application/json");
  const json event = received_doc(receiver, 0);
  CHECK(event["@odata.type"] == "#Event.v1_7_0.Event");
  CHECK(event["Name"] == "Event Array");
  CHECK(event["Id"].is_string());
  CHECK(event["Context"] == "ironhold-node-7");
  const json record = record_of(receiver, 0);
  CHECK(record["EventType"] == "Alert");
  CHECK(record["MessageId"] == "ResourceEvent.1.0.ResourceCreated");
  CHECK(record["Message"] == "CPU 2 temperature above upper critical");
  CHECK(record["MessageSeverity"] == "Critical");
  CHECK(record["Severity"] == "Critical");
  CHECK(record["OriginOfCondition"]["@odata.id"] == kSystem);
  CHECK(record["EventId"].is_string());
  CHECK(record["EventTimestamp"].get<std::string>().back() == 'Z');
  // The subscriber recognises the entry it also reads by polling.
  const std::string entry = record["LogEntry"]["@odata.id"];
  CHECK(entry == sel.doc()["@odata.id"]);
  const json entries = curl_fetch(bmc + kSelEntries).doc();
  CHECK(entries["Members"].back()["@odata.id"] == entry);
  CHECK(curl_fetch(bmc + entry).doc()["Message"] == "CPU 2 temperature above upper critical");

  // A second entry: a new EventId and document Id.
  fleet.state(0).append_sel("OK", "Fan 3 back to normal");
  REQUIRE(receiver.wait_for(2));
  CHECK(record_of(receiver, 1)["EventId"] != record["EventId"]);
  CHECK(received_doc(receiver, 1)["Id"] != event["Id"]);
  CHECK(record_of(receiver, 1)["MessageSeverity"] == "OK");

  CHECK(eventually([&] { return fleet.state(0).counters().events_delivered == 2; }));
  const auto counters = fleet.state(0).counters();
  CHECK(counters.subscriptions_created == 1);
  CHECK(counters.event_deliveries_failed == 0);
  CHECK(counters.events_dropped == 0);
  const json described = control_call(fleet.control_endpoint() + "/bmcs/0", "GET").doc();
  REQUIRE(described["subscriptions"].size() == 1);
  CHECK(described["subscriptions"][0]["id"] == doc["Id"]);
  CHECK(described["subscriptions"][0]["destination"] == url_of(receiver, "/hooks/bmc?node=7"));
  CHECK(described["subscriptions"][0]["context"] == "ironhold-node-7");
  CHECK(described["counters"]["events_delivered"] == 2);
  CHECK(described.dump().find("s3cret") == std::string::npos);
}

TEST_CASE("health changes are StatusChange events, power changes ResourceUpdated ones",
          "[sim][redfish][events]") {
  WebhookReceiver receiver;
  ironhold::sim::RedfishFleet fleet(events_options());
  fleet.start();
  const std::string bmc = fleet.endpoint(0);
  require_subscribed(subscribe(bmc, {{"Destination", url_of(receiver)}, {"Protocol", "Redfish"}}));

  REQUIRE(
      control_call(fleet.control_endpoint() + "/bmcs/0/health", "POST", {{"health", "Critical"}})
          .status == 200);
  REQUIRE(receiver.wait_for(1));
  CHECK_FALSE(received_doc(receiver, 0).contains("Context"));
  json record = record_of(receiver, 0);
  CHECK(record["EventType"] == "StatusChange");
  CHECK(record["MessageId"] == "ResourceEvent.1.0.ResourceStatusChangedCritical");
  CHECK(record["MessageArgs"] == json::array({kSystem, "Critical"}));
  CHECK(record["MessageSeverity"] == "Critical");
  CHECK(record["OriginOfCondition"]["@odata.id"] == kSystem);
  CHECK_FALSE(record.contains("LogEntry"));

  // The same health again changes nothing, so the next event is the one for OK.
  fleet.state(0).set_health("Critical");
  fleet.state(0).set_health("OK");
  REQUIRE(receiver.wait_for(2));
  record = record_of(receiver, 1);
  CHECK(record["MessageId"] == "ResourceEvent.1.0.ResourceStatusChangedOK");
  CHECK(record["MessageSeverity"] == "OK");

  REQUIRE(
      control_call(fleet.control_endpoint() + "/bmcs/0/power", "POST", {{"state", "Off"}}).status ==
      200);
  REQUIRE(receiver.wait_for(3));
  record = record_of(receiver, 2);
  CHECK(record["EventType"] == "ResourceUpdated");
  CHECK(record["MessageId"] == "ResourceEvent.1.0.ResourceChanged");
  CHECK(record["MessageSeverity"] == "OK");
  CHECK(record["OriginOfCondition"]["@odata.id"] == kSystem);
  CHECK_THAT(record["Message"].get<std::string>(), Catch::Matchers::EndsWith("changed to Off."));

  // A reset's transition is reported once it settles on On.
  REQUIRE(curl_fetch(bmc + kSystem + "/Actions/ComputerSystem.Reset",
                     with_body("POST", {{"ResetType", "On"}}))
              .status == 204);
  REQUIRE(receiver.wait_for(4));
  record = record_of(receiver, 3);
  CHECK(record["EventType"] == "ResourceUpdated");
  CHECK_THAT(record["Message"].get<std::string>(), Catch::Matchers::EndsWith("changed to On."));
  CHECK(curl_fetch(bmc + kSystem).doc()["PowerState"] == "On");
}

TEST_CASE("SubmitTestEvent sends its fields to every subscription, whatever its filters",
          "[sim][redfish][events]") {
  WebhookReceiver plain, filtered;
  ironhold::sim::RedfishFleet fleet(events_options());
  fleet.start();
  const std::string bmc = fleet.endpoint(0);
  require_subscribed(subscribe(bmc, {{"Destination", url_of(plain)}, {"Protocol", "Redfish"}}));
  require_subscribed(subscribe(bmc, {{"Destination", url_of(filtered)},
                                     {"Protocol", "Redfish"},
                                     {"Context", "filtered"},
                                     {"RegistryPrefixes", {"Platform"}},
                                     {"EventTypes", {"Alert"}}}));

  const json test = {{"EventType", "Alert"},
                     {"EventId", "test-42"},
                     {"EventTimestamp", "2026-03-01T10:20:30Z"},
                     {"Message", "Test message from the operator"},
                     {"MessageArgs", {"a", "b"}},
                     {"MessageId", "Base.1.16.0.Success"},
                     {"OriginOfCondition", kSystem},
                     {"Severity", "Warning"}};
  REQUIRE(curl_fetch(bmc + kTestEvent, with_body("POST", test)).status == 204);
  REQUIRE(plain.wait_for(1));
  REQUIRE(filtered.wait_for(1));
  CHECK(received_doc(filtered, 0)["Context"] == "filtered");
  for (const WebhookReceiver* receiver : {&plain, &filtered}) {
    const json record = record_of(*receiver, 0);
    CHECK(record["EventType"] == "Alert");
    CHECK(record["EventId"] == "test-42");
    CHECK(record["EventTimestamp"] == "2026-03-01T10:20:30Z");
    CHECK(record["Message"] == "Test message from the operator");
    CHECK(record["MessageArgs"] == json::array({"a", "b"}));
    CHECK(record["MessageId"] == "Base.1.16.0.Success");
    CHECK(record["OriginOfCondition"]["@odata.id"] == kSystem);
    CHECK(record["Severity"] == "Warning");
    CHECK(record["MessageSeverity"] == "Warning");
  }

  // Nothing given: defaults.
  REQUIRE(curl_fetch(bmc + kTestEvent, with_body("POST", json::object())).status == 204);
  REQUIRE(plain.wait_for(2));
  const json defaults = record_of(plain, 1);
  CHECK(defaults["EventType"] == "Other");
  CHECK(defaults["MessageSeverity"] == "OK");
  CHECK(defaults["MessageId"].get<std::string>().rfind("Base.", 0) == 0);
  CHECK_FALSE(defaults.contains("OriginOfCondition"));

  const std::vector<std::pair<json, std::string>> bad = {
      {{{"EventType", 5}}, "ActionParameterValueTypeError"},
      {{{"MessageArgs", "a"}}, "ActionParameterValueTypeError"},
      {{{"MessageArgs", {1}}}, "ActionParameterValueTypeError"},
      {{{"EventType", "Sometimes"}}, "ActionParameterValueNotInList"},
      {{{"Severity", "Fatal"}}, "ActionParameterValueNotInList"},
      {{{"EventTimestamp", "yesterday"}}, "ActionParameterValueFormatError"},
      {{{"MessageId", "NoDots"}}, "ActionParameterValueFormatError"},
      {{{"Colour", "red"}}, "ActionParameterUnknown"},
  };
  for (const auto& [body, key] : bad) {
    INFO(body.dump());
    const auto reply = curl_fetch(bmc + kTestEvent, with_body("POST", body));
    CHECK(reply.status == 400);
    CHECK(error_key(reply) == key);
  }
  CurlCall broken;
  broken.method = "POST";
  broken.body = "{\"EventType\":";
  CHECK(error_key(curl_fetch(bmc + kTestEvent, broken)) == "MalformedJSON");
}

TEST_CASE("RegistryPrefixes, ResourceTypes and EventTypes choose the events a subscription gets",
          "[sim][redfish][events]") {
  WebhookReceiver resource_event, platform, chassis, system, status;
  ironhold::sim::RedfishFleet fleet(events_options());
  fleet.start();
  const std::string bmc = fleet.endpoint(0);
  const auto add = [&](const WebhookReceiver& receiver, const json& filter) {
    json body = {{"Destination", url_of(receiver)}, {"Protocol", "Redfish"}};
    body.update(filter);
    require_subscribed(subscribe(bmc, body));
  };
  add(resource_event, {{"RegistryPrefixes", {"ResourceEvent"}}});
  add(platform, {{"RegistryPrefixes", {"Platform"}}});
  add(chassis, {{"ResourceTypes", {"Chassis"}}});
  add(system, {{"ResourceTypes", {"ComputerSystem"}}});
  add(status, {{"EventTypes", {"StatusChange"}}});

  fleet.state(0).set_health("Warning");
  fleet.state(0).append_sel("Warning", "PSU 1 input lost");
  REQUIRE(curl_fetch(bmc + kTestEvent, with_body("POST", {{"Message", "marker"}})).status == 204);
  // A subscription's events arrive in order, so whatever came before the marker is all it got.
  const auto messages_until_marker = [](const WebhookReceiver& receiver) {
    std::vector<std::string> ids;
    REQUIRE(eventually([&] {
      const auto got = receiver.received();
      return !got.empty() &&
             json::parse(got.back().body)["Events"][0]["Message"] == std::string("marker");
    }));
    const auto got = receiver.received();
    for (std::size_t i = 0; i + 1 < got.size(); ++i)
      ids.push_back(json::parse(got[i].body)["Events"][0]["MessageId"]);
    return ids;
  };
  const std::vector<std::string> health_and_sel = {"ResourceEvent.1.0.ResourceStatusChangedWarning",
                                                   "ResourceEvent.1.0.ResourceCreated"};
  CHECK(messages_until_marker(resource_event) == health_and_sel);
  CHECK(messages_until_marker(platform).empty());
  CHECK(messages_until_marker(chassis).empty());
  CHECK(messages_until_marker(system) == health_and_sel);
  CHECK(messages_until_marker(status) ==
        std::vector<std::string>{"ResourceEvent.1.0.ResourceStatusChangedWarning"});
}

TEST_CASE("a receiver that is down: retries, then the DeliveryRetryPolicy",
          "[sim][redfish][events]") {
  ironhold::sim::RedfishFleet fleet(events_options());
  fleet.start();
  const std::string bmc = fleet.endpoint(0);
  rf::BmcState& state = fleet.state(0);

  SECTION("TerminateAfterRetries (the default) deletes the subscription") {
    const std::string nobody =
        "http://127.0.0.1:" + std::to_string(ironhold::test::free_loopback_port()) + "/events";
    const auto created = subscribe(bmc, {{"Destination", nobody}, {"Protocol", "Redfish"}});
    require_subscribed(created);
    const std::string member = created.headers.at("location");
    state.append_sel("Critical", "nobody hears this");
    REQUIRE(eventually([&] { return curl_fetch(bmc + member).status == 404; }));
    const auto counters = state.counters();
    CHECK(counters.event_deliveries_failed == 4);  // the first attempt and 3 retries
    CHECK(counters.events_dropped == 1);
    CHECK(counters.events_delivered == 0);
    CHECK(curl_fetch(bmc + kSubscriptions).doc()["Members@odata.count"] == 0);
    CHECK(state.subscriptions().empty());
  }

  SECTION("SuspendRetries disables it until ResumeSubscription") {
    WebhookReceiver receiver;
    receiver.answer(500);
    const auto created = subscribe(bmc, {{"Destination", url_of(receiver)},
                                         {"Protocol", "Redfish"},
                                         {"DeliveryRetryPolicy", "SuspendRetries"}});
    require_subscribed(created);
    const std::string member = created.headers.at("location");
    state.append_sel("Critical", "refused");
    REQUIRE(eventually(
        [&] { return curl_fetch(bmc + member).doc()["Status"]["State"] == "Disabled"; }));
    REQUIRE(receiver.wait_for(4));
    CHECK(receiver.received().size() == 4);
    CHECK(state.counters().event_deliveries_failed == 4);
    CHECK(state.counters().events_dropped == 1);
    state.append_sel("Critical", "not sent while suspended");

    receiver.answer(204);
    const std::string resume =
        curl_fetch(bmc + member).doc()["Actions"]["#EventDestination.ResumeSubscription"]["target"];
    CHECK(curl_fetch(bmc + resume, with_body("POST", json::object())).status == 204);
    CHECK(curl_fetch(bmc + member).doc()["Status"]["State"] == "Enabled");
    state.append_sel("OK", "after the resume");
    REQUIRE(receiver.wait_for(5));
    CHECK(record_of(receiver, 4)["Message"] == "after the resume");
    CHECK(eventually([&] { return state.counters().events_delivered == 1; }));
  }

  SECTION("RetryForever keeps trying the event until the receiver takes it") {
    WebhookReceiver receiver;
    receiver.answer(503);
    const auto created = subscribe(bmc, {{"Destination", url_of(receiver)},
                                         {"Protocol", "Redfish"},
                                         {"DeliveryRetryPolicy", "RetryForever"}});
    require_subscribed(created);
    state.append_sel("Critical", "eventually heard");
    state.append_sel("OK", "queued behind it");
    REQUIRE(receiver.wait_for(8));
    receiver.answer(200);
    const auto last_message = [&] {
      const auto got = receiver.received();
      return json::parse(got.back().body)["Events"][0]["Message"].get<std::string>();
    };
    REQUIRE(eventually([&] { return last_message() == "queued behind it"; }));
    const auto got = receiver.received();
    CHECK(json::parse(got[got.size() - 2].body)["Events"][0]["Message"] == "eventually heard");
    CHECK(eventually([&] { return state.counters().events_delivered == 2; }));
    CHECK(state.counters().events_dropped == 0);
    CHECK(curl_fetch(bmc + created.headers.at("location")).status == 200);
  }
}

TEST_CASE("a receiver that takes the connection but never answers times out each attempt",
          "[sim][redfish][events]") {
  // Listening, never accepting: connections complete in the backlog, nothing is ever read.
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor silent(
      io, {boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(0)});
  auto options = events_options();
  options.events.timeout = 200ms;
  ironhold::sim::RedfishFleet fleet(options);
  fleet.start();
  const std::string bmc = fleet.endpoint(0);
  const auto created = subscribe(
      bmc, {{"Destination",
             "http://127.0.0.1:" + std::to_string(silent.local_endpoint().port()) + "/events"},
            {"Protocol", "Redfish"}});
  require_subscribed(created);
  fleet.state(0).set_health("Critical");
  REQUIRE(
      eventually([&] { return curl_fetch(bmc + created.headers.at("location")).status == 404; }));
  CHECK(fleet.state(0).counters().event_deliveries_failed == 4);
  CHECK(fleet.state(0).counters().events_dropped == 1);
}

TEST_CASE("a fleet stopped while deliveries wait for their retry shuts down cleanly",
          "[sim][redfish][events]") {
  auto options = events_options();
  options.events.retry_interval = 10s;
  ironhold::sim::RedfishFleet fleet(options);
  fleet.start();
  const std::string nobody =
      "http://127.0.0.1:" + std::to_string(ironhold::test::free_loopback_port()) + "/events";
  require_subscribed(subscribe(
      fleet.endpoint(0),
      {{"Destination", nobody}, {"Protocol", "Redfish"}, {"DeliveryRetryPolicy", "RetryForever"}}));
  fleet.state(0).append_sel("Critical", "never delivered");
  fleet.state(0).append_sel("OK", "queued behind it");
  REQUIRE(eventually([&] { return fleet.state(0).counters().event_deliveries_failed >= 1; }));
  // The fleet goes out of scope here with both events pending: ASan would report a frame that
  // outlived what it uses.
}

TEST_CASE("https destinations get events over TLS, their certificate not verified",
          "[sim][redfish][events]") {
  ironhold::test::TlsTestServer receiver("127.0.0.1", ironhold::test::CannedResponse{204, "", ""});
  ironhold::sim::RedfishFleet fleet(events_options());
  fleet.start();
  const std::string bmc = fleet.endpoint(0);
  require_subscribed(subscribe(
      bmc, {{"Destination", "https://127.0.0.1:" + std::to_string(receiver.port()) + "/tls/events"},
            {"Protocol", "Redfish"},
            {"HttpHeaders", {{{"Authorization", "Basic aXJvbmhvbGQ6eA=="}}}}}));
  REQUIRE(curl_fetch(bmc + kTestEvent, with_body("POST", json::object())).status == 204);
  REQUIRE(eventually([&] { return !receiver.requests().empty(); }));
  const auto request = receiver.requests().at(0);
  CHECK(request.method == "POST");
  CHECK(request.target == "/tls/events");
  CHECK(request.headers.at("authorization") == "Basic aXJvbmhvbGQ6eA==");
  CHECK(eventually([&] { return fleet.state(0).counters().events_delivered == 1; }));
}

}  // namespace redfish_events_test
