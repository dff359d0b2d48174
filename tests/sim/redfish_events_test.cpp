// The simulated BMCs' EventService, over real HTTP on loopback: subscriptions created, read,
// patched and deleted; the events a SEL entry, a health change, a power change and
// SubmitTestEvent raise, as a real HTTP(S) receiver gets them (HttpHeaders, Context, filters);
// a receiver that fails (retries, then the DeliveryRetryPolicy); the Redfish errors for bad
// bodies; subscriptions kept on the state dir; the event_service_disabled fault.
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <catch2/catch.hpp>
#include <filesystem>

#include "curl_client.hpp"
#include "sim/redfish/events.hpp"
#include "sim/redfish/fleet.hpp"
#include "sim_fixture.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/support/server/tls_test_server.hpp"
#include "tests/support/server/webhook_receiver.hpp"

using namespace std::chrono_literals;
using ironhold::test::control_call;
using ironhold::test::curl_fetch;
using ironhold::test::CurlCall;
using ironhold::test::CurlReply;
using ironhold::test::eventually;
using ironhold::test::WebhookReceiver;
using nlohmann::json;
namespace fs = std::filesystem;
namespace rf = ironhold::sim::redfish;

namespace {

const std::string kSubscriptions = "/redfish/v1/EventService/Subscriptions";
const std::string kTestEvent = "/redfish/v1/EventService/Actions/EventService.SubmitTestEvent";
const std::string kSystem = "/redfish/v1/Systems/1";  // compute-server's
const std::string kSelEntries = kSystem + "/LogServices/SEL/Entries";

ironhold::sim::RedfishFleetOptions events_options() {
  ironhold::sim::RedfishFleetOptions o;
  o.mockup_dir = ironhold::test::project_mockup("compute-server");
  o.tls = false;
  o.reset_delay = 100ms;
  o.control = "127.0.0.1:0";
  o.events.retry_interval = 20ms;
  return o;
}

CurlCall with_body(const std::string& method, const json& body) {
  CurlCall call;
  call.method = method;
  call.body = body.dump();
  return call;
}

CurlReply subscribe(const std::string& bmc, const json& body) {
  return curl_fetch(bmc + kSubscriptions, with_body("POST", body));
}

std::string url_of(const WebhookReceiver& receiver, const std::string& path = "/events") {
  return "http://127.0.0.1:" + std::to_string(receiver.port()) + path;
}

// "PropertyMissing" of a Redfish error's first ExtendedInfo MessageId
// "Base.1.16.0.PropertyMissing".
std::string error_key(const CurlReply& reply) {
  const json doc = reply.doc();
  if (!doc.is_object() || !doc.contains("error")) return "(no Redfish error: " + reply.body + ")";
  const std::string id = doc["error"]["@Message.ExtendedInfo"].at(0).value("MessageId", "");
  return id.substr(id.rfind('.') + 1);
}

json received_doc(const WebhookReceiver& receiver, std::size_t i) {
  return json::parse(receiver.received().at(i).body, nullptr, false);
}

json record_of(const WebhookReceiver& receiver, std::size_t i) {
  const json doc = received_doc(receiver, i);
  REQUIRE(doc.is_object());
  REQUIRE(doc["Events"].size() == 1);
  return doc["Events"][0];
}

void require_subscribed(const CurlReply& reply) {
  INFO(reply.body);
  REQUIRE(reply.status == 201);
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("ih-sim-events-" + std::to_string(::getpid()) + "-" +
                                               std::to_string(std::rand()));
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

TEST_CASE("our mockups have an EventService, and a mockup without one answers 404 for it",
          "[sim][redfish][events]") {
  ironhold::sim::RedfishFleet fleet(events_options());
  fleet.start();
  const std::string bmc = fleet.endpoint(0);
  const json root = curl_fetch(bmc + "/redfish/v1").doc();
  REQUIRE(root["EventService"]["@odata.id"] == "/redfish/v1/EventService");
  const json service = curl_fetch(bmc + "/redfish/v1/EventService").doc();
  CHECK(service["@odata.type"].get<std::string>().rfind("#EventService.v1_", 0) == 0);
  CHECK(service["ServiceEnabled"] == true);
  CHECK(service["DeliveryRetryAttempts"] == 3);
  CHECK(service["DeliveryRetryIntervalSeconds"] == 60);
  CHECK(service["EventTypesForSubscription"].size() >= 3);
  CHECK(service["Subscriptions"]["@odata.id"] == kSubscriptions);
  CHECK(service["Actions"]["#EventService.SubmitTestEvent"]["target"] == kTestEvent);
  const json collection = curl_fetch(bmc + kSubscriptions).doc();
  CHECK(collection["Members"] == json::array());
  CHECK(collection["Members@odata.count"] == 0);

  CurlCall anonymous;
  anonymous.basic.clear();
  CHECK(curl_fetch(bmc + kSubscriptions, anonymous).status == 401);

  // The same server without its EventService, as older BMCs are.
  TempDir dir;
  fs::copy(ironhold::test::project_mockup("compute-server"), dir.path, fs::copy_options::recursive);
  fs::remove_all(dir.path / "EventService");
  auto options = events_options();
  options.mockup_dir = dir.path;
  options.control.clear();
  ironhold::sim::RedfishFleet old(options);
  old.start();
  CHECK(curl_fetch(old.endpoint(0) + "/redfish/v1/EventService").status == 404);
  CHECK(
      subscribe(old.endpoint(0), {{"Destination", "http://127.0.0.1:9/"}, {"Protocol", "Redfish"}})
          .status == 404);
  CHECK(curl_fetch(old.endpoint(0) + kTestEvent, with_body("POST", json::object())).status == 404);
}

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

TEST_CASE("bad subscriptions get the Redfish error they deserve, and at most 20 are taken",
          "[sim][redfish][events]") {
  ironhold::sim::RedfishFleet fleet(events_options());
  fleet.start();
  const std::string bmc = fleet.endpoint(0);
  const json ok = {{"Destination", "http://127.0.0.1:9/events"}, {"Protocol", "Redfish"}};
  const auto with = [&](const json& change) {
    json body = ok;
    body.update(change);
    return body;
  };
  const std::vector<std::pair<json, std::string>> bad = {
      {{{"Protocol", "Redfish"}}, "PropertyMissing"},
      {{{"Destination", "http://127.0.0.1:9/"}}, "PropertyMissing"},
      {with({{"Destination", 5}}), "PropertyValueTypeError"},
      {with({{"Destination", "ftp://127.0.0.1/events"}}), "PropertyValueFormatError"},
      {with({{"Destination", "http:///events"}}), "PropertyValueFormatError"},
      {with({{"Destination", "http://127.0.0.1:99999/"}}), "PropertyValueFormatError"},
      {with({{"Protocol", "SNMPv3"}}), "PropertyValueNotInList"},
      {with({{"Context", 5}}), "PropertyValueTypeError"},
      {with({{"EventFormatType", "MetricReport"}}), "PropertyValueNotInList"},
      {with({{"RegistryPrefixes", "ResourceEvent"}}), "PropertyValueTypeError"},
      {with({{"ResourceTypes", {1}}}), "PropertyValueTypeError"},
      {with({{"EventTypes", {"Sometimes"}}}), "PropertyValueNotInList"},
      {with({{"HttpHeaders", {{"Authorization", "x"}}}}), "PropertyValueTypeError"},
      {with({{"HttpHeaders", {{{"Authorization", 5}}}}}), "PropertyValueTypeError"},
      {with({{"HttpHeaders", {{{"X-A", "1\r\nX-B: 2"}}}}}), "PropertyValueFormatError"},
      {with({{"HttpHeaders", {{{"Bad Name", "1"}}}}}), "PropertyValueFormatError"},
      {with({{"DeliveryRetryPolicy", "Sometimes"}}), "PropertyValueNotInList"},
      {with({{"Colour", "red"}}), "PropertyUnknown"},
      {with({{"Id", "7"}}), "PropertyNotWritable"},
  };
  for (const auto& [body, key] : bad) {
    INFO(body.dump());
    const auto reply = subscribe(bmc, body);
    CHECK(reply.status == 400);
    CHECK(error_key(reply) == key);
  }
  CurlCall broken;
  broken.method = "POST";
  broken.body = "{\"Destination\": ";
  CHECK(error_key(curl_fetch(bmc + kSubscriptions, broken)) == "MalformedJSON");
  CurlCall anonymous = with_body("POST", ok);
  anonymous.basic.clear();
  CHECK(curl_fetch(bmc + kSubscriptions, anonymous).status == 401);
  CHECK(curl_fetch(bmc + kSubscriptions).doc()["Members@odata.count"] == 0);

  for (std::size_t i = 0; i < rf::max_subscriptions; ++i) require_subscribed(subscribe(bmc, ok));
  const auto refused = subscribe(bmc, ok);
  CHECK(refused.status == 400);
  CHECK(error_key(refused) == "CreateLimitReachedForResource");
  CHECK(fleet.state(0).counters().subscriptions_created == rf::max_subscriptions);
}

TEST_CASE("a subscription is read, patched and deleted, and once deleted gets nothing more",
          "[sim][redfish][events]") {
  WebhookReceiver kept, deleted;
  ironhold::sim::RedfishFleet fleet(events_options());
  fleet.start();
  const std::string bmc = fleet.endpoint(0);
  const auto first = subscribe(
      bmc, {{"Destination", url_of(deleted)}, {"Protocol", "Redfish"}, {"Context", "before"}});
  require_subscribed(first);
  require_subscribed(subscribe(bmc, {{"Destination", url_of(kept)}, {"Protocol", "Redfish"}}));
  const std::string member = first.headers.at("location");

  const auto patched = curl_fetch(
      bmc + member,
      with_body("PATCH", {{"Context", "after"}, {"DeliveryRetryPolicy", "SuspendRetries"}}));
  REQUIRE(patched.status == 200);
  CHECK(patched.doc()["Context"] == "after");
  CHECK(patched.doc()["DeliveryRetryPolicy"] == "SuspendRetries");
  CHECK(curl_fetch(bmc + member).doc()["Context"] == "after");
  const auto refused =
      curl_fetch(bmc + member, with_body("PATCH", {{"Destination", "http://127.0.0.1:1/"}}));
  CHECK(refused.status == 400);
  CHECK(error_key(refused) == "PropertyNotWritable");
  CHECK(error_key(curl_fetch(bmc + member, with_body("PATCH", {{"Context", 1}}))) ==
        "PropertyValueTypeError");

  fleet.state(0).append_sel("Warning", "first");
  REQUIRE(deleted.wait_for(1));
  CHECK(received_doc(deleted, 0)["Context"] == "after");

  CurlCall remove;
  remove.method = "DELETE";
  CHECK(curl_fetch(bmc + member, remove).status == 204);
  CHECK(curl_fetch(bmc + member).status == 404);
  CHECK(curl_fetch(bmc + member, remove).status == 404);
  CHECK(curl_fetch(bmc + kSubscriptions).doc()["Members@odata.count"] == 1);

  fleet.state(0).append_sel("Warning", "second");
  REQUIRE(kept.wait_for(2));
  CHECK(eventually([&] { return fleet.state(0).counters().events_delivered == 3; }));
  CHECK(deleted.received().size() == 1);
  CHECK(fleet.state(0).counters().events_dropped == 0);
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

TEST_CASE("subscriptions are kept across a restart on the state dir", "[sim][redfish][events]") {
  WebhookReceiver receiver;
  TempDir dir;
  auto options = events_options();
  options.state_dir = dir.path;
  std::string member;
  {
    ironhold::sim::RedfishFleet first(options);
    first.start();
    const auto created =
        subscribe(first.endpoint(0), {{"Destination", url_of(receiver)},
                                      {"Protocol", "Redfish"},
                                      {"Context", "kept"},
                                      {"HttpHeaders", {{{"Authorization", "Bearer kept-token"}}}}});
    require_subscribed(created);
    member = created.headers.at("location");
  }
  struct stat file {};
  REQUIRE(::stat((dir.path / "bmc-0000" / "state.json").c_str(), &file) == 0);
  CHECK((file.st_mode & 0077) == 0);  // it holds the HttpHeaders

  ironhold::sim::RedfishFleet second(options);
  second.start();
  const std::string bmc = second.endpoint(0);
  const json doc = curl_fetch(bmc + member).doc();
  CHECK(doc["Context"] == "kept");
  CHECK(doc["HttpHeaders"].is_null());
  second.state(0).set_health("Warning");
  REQUIRE(receiver.wait_for(1));
  CHECK(receiver.received().at(0).headers.at("authorization") == "Bearer kept-token");
  CHECK(received_doc(receiver, 0)["Context"] == "kept");
  // Ids are not reused: a new subscription is not mistaken for the old one.
  const auto another = subscribe(bmc, {{"Destination", url_of(receiver)}, {"Protocol", "Redfish"}});
  require_subscribed(another);
  CHECK(another.headers.at("location") != member);
}

TEST_CASE("the event_service_disabled fault refuses subscriptions and test events",
          "[sim][redfish][events]") {
  WebhookReceiver receiver;
  ironhold::sim::RedfishFleet fleet(events_options());
  fleet.start();
  const std::string bmc = fleet.endpoint(0);
  const std::string faults = fleet.control_endpoint() + "/bmcs/0/faults";
  const json subscription = {{"Destination", url_of(receiver)}, {"Protocol", "Redfish"}};
  require_subscribed(subscribe(bmc, subscription));

  REQUIRE(control_call(faults, "POST", {{"event_service_disabled", true}}).status == 200);
  const json service = curl_fetch(bmc + "/redfish/v1/EventService").doc();
  CHECK(service["ServiceEnabled"] == false);
  CHECK(service["Status"]["State"] == "Disabled");
  auto refused = subscribe(bmc, subscription);
  CHECK(refused.status == 400);
  CHECK(error_key(refused) == "ServiceDisabled");
  refused = curl_fetch(bmc + kTestEvent, with_body("POST", json::object()));
  CHECK(refused.status == 400);
  CHECK(error_key(refused) == "ServiceDisabled");
  fleet.state(0).append_sel("Critical", "not sent: the service is disabled");
  CHECK(curl_fetch(bmc + kSubscriptions).doc()["Members@odata.count"] == 1);

  REQUIRE(control_call(faults, "DELETE").status == 200);
  CHECK(curl_fetch(bmc + "/redfish/v1/EventService").doc()["ServiceEnabled"] == true);
  REQUIRE(curl_fetch(bmc + kTestEvent, with_body("POST", {{"Message", "back"}})).status == 204);
  REQUIRE(receiver.wait_for(1));
  CHECK(record_of(receiver, 0)["Message"] == "back");  // the SEL entry was never queued
}

TEST_CASE("a mockup's own subscriptions stay, and new ones are numbered after them",
          "[sim][redfish][events]") {
  if (!ironhold::test::have_rackmount_mockup()) return;
  auto options = ironhold::test::fleet_options();
  options.events.retry_interval = 20ms;
  ironhold::sim::RedfishFleet fleet(options);
  fleet.start();
  const std::string bmc = fleet.endpoint(0);
  const json before = curl_fetch(bmc + kSubscriptions).doc();
  REQUIRE(before["Members@odata.count"] == 4);
  CHECK(curl_fetch(bmc + kSubscriptions + "/2").doc()["Protocol"] == "SNMPv3");
  const auto created =
      subscribe(bmc, {{"Destination", "http://127.0.0.1:9/"}, {"Protocol", "Redfish"}});
  require_subscribed(created);
  CHECK(created.headers.at("location") == kSubscriptions + "/5");
  CHECK(curl_fetch(bmc + kSubscriptions).doc()["Members@odata.count"] == 5);
  // The examples are shown as they are: not patched, but they can be deleted.
  CHECK(curl_fetch(bmc + kSubscriptions + "/1", with_body("PATCH", {{"Context", "x"}})).status ==
        405);
  CurlCall remove;
  remove.method = "DELETE";
  CHECK(curl_fetch(bmc + kSubscriptions + "/4", remove).status == 204);
  CHECK(curl_fetch(bmc + kSubscriptions).doc()["Members@odata.count"] == 4);
}

TEST_CASE("event destinations: http and https URLs only", "[sim][redfish][events]") {
  const auto url = rf::parse_destination("https://[::1]:8443/a/b?c=d#frag");
  REQUIRE(url);
  CHECK(url->tls);
  CHECK(url->host == "::1");
  CHECK(url->port == "8443");
  CHECK(url->target == "/a/b?c=d");
  const auto plain = rf::parse_destination("HTTP://receiver.example");
  REQUIRE(plain);
  CHECK_FALSE(plain->tls);
  CHECK(plain->port == "80");
  CHECK(plain->target == "/");
  for (const char* bad : {"", "receiver:80", "mailto:a@b", "http://", "http://user:pw@host/",
                          "http://host:0/", "http://host:x/", "http://ho st/", "https://[::1/"}) {
    INFO(bad);
    CHECK_FALSE(rf::parse_destination(bad));
  }
}
