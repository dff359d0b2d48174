// The simulated BMCs' EventService subscriptions over real HTTP on loopback: created, read,
// patched and deleted; the Redfish errors for bad bodies; subscriptions kept on the state dir; the
// event_service_disabled fault; the mockups' own subscriptions. Delivery: redfish_events_test.
#include <catch2/catch.hpp>

#include "redfish_events_support.hpp"
#include "tests/support/eventually.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace redfish_event_subscriptions_test {

using namespace ironhold::test::sim_events;
using ironhold::test::eventually;

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

}  // namespace redfish_event_subscriptions_test
