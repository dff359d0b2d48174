#pragma once
// What the simulated EventService tests share: the paths, the fleet options, and helpers to
// subscribe and to read what a receiver got.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include "curl_client.hpp"
#include "sim/redfish/events.hpp"
#include "sim/redfish/fleet.hpp"
#include "sim_fixture.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/support/server/webhook_receiver.hpp"

namespace ironhold::test::sim_events {

// What both test files use, brought in by their `using namespace ironhold::test::sim_events`.
using namespace std::chrono_literals;
using ironhold::test::control_call;
using ironhold::test::curl_fetch;
using ironhold::test::CurlCall;
using ironhold::test::CurlReply;
using ironhold::test::WebhookReceiver;
using nlohmann::json;
namespace fs = std::filesystem;
namespace rf = ironhold::sim::redfish;

inline const std::string kSubscriptions = "/redfish/v1/EventService/Subscriptions";
inline const std::string kTestEvent =
    "/redfish/v1/EventService/Actions/EventService.SubmitTestEvent";
inline const std::string kSystem = "/redfish/v1/Systems/1";  // compute-server's
inline const std::string kSelEntries = kSystem + "/LogServices/SEL/Entries";

inline ironhold::sim::RedfishFleetOptions events_options() {
  ironhold::sim::RedfishFleetOptions o;
  o.mockup_dir = ironhold::test::project_mockup("compute-server");
  o.tls = false;
  o.reset_delay = 100ms;
  o.control = "127.0.0.1:0";
  o.events.retry_interval = 20ms;
  return o;
}

inline CurlCall with_body(const std::string& method, const json& body) {
  CurlCall call;
  call.method = method;
  call.body = body.dump();
  return call;
}

inline CurlReply subscribe(const std::string& bmc, const json& body) {
  return curl_fetch(bmc + kSubscriptions, with_body("POST", body));
}

inline std::string url_of(const WebhookReceiver& receiver, const std::string& path = "/events") {
  return "http://127.0.0.1:" + std::to_string(receiver.port()) + path;
}

// "PropertyMissing" of a Redfish error's first ExtendedInfo MessageId
// "Base.1.16.0.PropertyMissing".
inline std::string error_key(const CurlReply& reply) {
  const json doc = reply.doc();
  if (!doc.is_object() || !doc.contains("error")) return "(no Redfish error: " + reply.body + ")";
  const std::string id = doc["error"]["@Message.ExtendedInfo"].at(0).value("MessageId", "");
  return id.substr(id.rfind('.') + 1);
}

inline json received_doc(const WebhookReceiver& receiver, std::size_t i) {
  return json::parse(receiver.received().at(i).body, nullptr, false);
}

inline json record_of(const WebhookReceiver& receiver, std::size_t i) {
  const json doc = received_doc(receiver, i);
  REQUIRE(doc.is_object());
  REQUIRE(doc["Events"].size() == 1);
  return doc["Events"][0];
}

inline void require_subscribed(const CurlReply& reply) {
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

}  // namespace ironhold::test::sim_events
