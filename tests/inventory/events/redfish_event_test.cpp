// Reading the Redfish Event documents BMCs post: the fields the inventory keeps, the severities
// of old and new BMCs, the status changes that are a System's health, and every malformed
// document refused with a message naming what is wrong (a BMC's document is untrusted input).
#include "inventory/events/redfish_event.hpp"

#include <catch2/catch.hpp>

#include "inventory/error.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace redfish_event_test {

using namespace ironhold;
using nlohmann::json;

namespace {

json document(json records) {
  return {{"@odata.type", "#Event.v1_7_0.Event"},
          {"Id", "5"},
          {"Name", "Event Array"},
          {"Context", "ironhold 1b4e28ba-2fa1-11d2-883f-0016d3cca427"},
          {"Events", std::move(records)}};
}

}  // namespace

TEST_CASE("a log entry's event keeps its entry, severity, time and System", "[events]") {
  const auto read = events::read_redfish_event(
      document({{{"EventType", "Alert"},
                 {"EventId", "981"},
                 {"EventTimestamp", "2026-12-01T09:30:12+01:00"},
                 {"MessageSeverity", "Critical"},
                 {"Message", "Power supply 2 input lost"},
                 {"MessageId", "PowerSupplyEvent.1.0.InputLost"},
                 {"MessageArgs", {"PSU2"}},
                 {"OriginOfCondition", {{"@odata.id", "/redfish/v1/Systems/Blade4"}}},
                 {"LogEntry",
                  {{"@odata.id",
                    "/redfish/v1/Systems/Blade4/LogServices/SEL/"
                    "Entries/17"}}}}}));
  CHECK(read.context == "ironhold 1b4e28ba-2fa1-11d2-883f-0016d3cca427");
  REQUIRE(read.events.size() == 1);
  const auto& e = read.events[0];
  CHECK(e.event_type == "Alert");
  CHECK(e.event_id == "981");
  CHECK(e.occurred_at == std::optional<std::string>("2026-12-01T08:30:12.000000Z"));
  CHECK(e.severity == Severity::critical);
  CHECK(e.message == "Power supply 2 input lost");
  CHECK(e.message_args == json::array({"PSU2"}));
  CHECK(e.log_entry == "/redfish/v1/Systems/Blade4/LogServices/SEL/Entries/17");
  CHECK(e.system_id == "Blade4");
  CHECK_FALSE(e.health);
}

TEST_CASE("old BMCs' Severity counts where MessageSeverity is missing, unknown ones are info",
          "[events]") {
  const auto read = events::read_redfish_event(
      document({{{"EventType", "Alert"}, {"Severity", "Warning"}, {"Message", "Fan 3 low"}},
                {{"EventType", "Alert"}, {"Severity", "Warning"}, {"MessageSeverity", "OK"}},
                {{"MessageSeverity", "Fatal"}, {"MessageId", "Vendor.1.0.Thing"}},
                {{"EventTimestamp", "yesterday"}, {"Message", 42}}}));
  REQUIRE(read.events.size() == 4);
  CHECK(read.events[0].severity == Severity::warning);
  CHECK(read.events[1].severity == Severity::info);
  CHECK(read.events[2].severity == Severity::info);
  CHECK(read.events[2].event_type == "Other");
  CHECK(read.events[2].message == "Vendor.1.0.Thing");  // no text: its message id says what
  CHECK_FALSE(read.events[3].occurred_at);              // a clock that does not parse
  CHECK(read.events[3].message == "Other event");
}

TEST_CASE("ResourceStatusChanged events about a System are its health, not a part's", "[events]") {
  auto status = [](const std::string& key, const std::string& origin) {
    return json{{"EventType", "StatusChange"},
                {"MessageId", "ResourceEvent.1.0." + key},
                {"OriginOfCondition", origin}};  // some BMCs send the bare path
  };
  const auto read = events::read_redfish_event(
      document({status("ResourceStatusChangedCritical", "/redfish/v1/Systems/1"),
                status("ResourceStatusChangedOK", "/redfish/v1/Systems/1"),
                status("ResourceStatusChangedWarning", "/redfish/v1/Chassis/1/Thermal#/Fans/0"),
                status("ResourceStatusChangedWarning", "/redfish/v1/Systems/1/Processors/CPU0"),
                status("ResourceCreated", "/redfish/v1/Systems/1")}));
  REQUIRE(read.events.size() == 5);
  CHECK(read.events[0].health == std::optional<Health>(Health::critical));
  CHECK(read.events[1].health == std::optional<Health>(Health::ok));
  CHECK_FALSE(read.events[2].health);
  CHECK(read.events[2].system_id.empty());
  CHECK_FALSE(read.events[3].health);
  CHECK(read.events[3].system_id == "1");
  CHECK_FALSE(read.events[4].health);
}

TEST_CASE("what is not an Event document is refused, saying what is wrong", "[events]") {
  auto refusal = [](const json& doc) {
    try {
      events::read_redfish_event(doc);
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::invalid);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(refusal(json::array()) == "a Redfish Event must be a JSON object");
  CHECK(refusal(json{{"Id", "1"}}).find("\"Events\" array") != std::string::npos);
  CHECK(refusal(json{{"Events", "x"}}).find("\"Events\" array") != std::string::npos);
  CHECK(refusal(document({{{"EventType", "Alert"}}, 7})) == "Events[1] must be an object");
  json many = json::array();
  for (std::size_t i = 0; i <= events::kMaxEventsPerDocument; ++i) many.push_back(json::object());
  CHECK(refusal(document(many)).find("at most") != std::string::npos);
  // An empty array is a document with nothing in it, not an error.
  CHECK(events::read_redfish_event(document(json::array())).events.empty());
}

}  // namespace redfish_event_test
