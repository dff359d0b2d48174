#include "inventory/events/redfish_event.hpp"

#include "inventory/error.hpp"
#include "inventory/util/time.hpp"

namespace ironhold::events {
namespace {

using nlohmann::json;

// Long texts from a BMC are cut: they are stored and shown, never parsed further.
constexpr std::size_t kMaxText = 2000;

std::string text(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return {};
  std::string value = it->get<std::string>();
  if (value.size() > kMaxText) value.resize(kMaxText);
  return value;
}

// {"@odata.id": "..."}, or the bare string some BMCs send instead of the link object.
std::string link_of(const json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end()) return {};
  if (it->is_string()) return it->get<std::string>().substr(0, kMaxText);
  if (it->is_object()) return text(*it, "@odata.id");
  return {};
}

std::optional<Severity> severity_named(const std::string& name) {
  if (name == "OK") return Severity::info;
  if (name == "Warning") return Severity::warning;
  if (name == "Critical") return Severity::critical;
  return std::nullopt;
}

// "ResourceEvent.1.0.ResourceStatusChangedCritical" -> critical; anything else nothing.
std::optional<Health> status_change(const std::string& message_id) {
  const auto dot = message_id.find('.');
  if (dot == std::string::npos || message_id.substr(0, dot) != "ResourceEvent") return std::nullopt;
  const std::string key = message_id.substr(message_id.rfind('.') + 1);
  if (key == "ResourceStatusChangedOK") return Health::ok;
  if (key == "ResourceStatusChangedWarning") return Health::warning;
  if (key == "ResourceStatusChangedCritical") return Health::critical;
  return std::nullopt;
}

// "/redfish/v1/Systems/1" or "/redfish/v1/Systems/1/LogServices/..." -> "1".
std::string system_of(const std::string& path) {
  static constexpr std::string_view prefix = "/redfish/v1/Systems/";
  if (!path.starts_with(prefix)) return {};
  std::string rest = path.substr(prefix.size());
  rest = rest.substr(0, rest.find('/'));
  return rest;
}

PushedEvent read_record(const json& record) {
  PushedEvent e;
  e.event_type = text(record, "EventType");
  if (e.event_type.empty()) e.event_type = "Other";
  e.event_id = text(record, "EventId");
  if (const std::string at = text(record, "EventTimestamp"); !at.empty())
    if (const auto t = parse_rfc3339(at)) e.occurred_at = format_rfc3339(*t);
  auto severity = severity_named(text(record, "MessageSeverity"));
  if (!severity) severity = severity_named(text(record, "Severity"));
  e.severity = severity.value_or(Severity::info);
  e.message = text(record, "Message");
  e.message_id = text(record, "MessageId");
  if (const auto args = record.find("MessageArgs"); args != record.end() && args->is_array())
    for (const auto& arg : *args)
      if (arg.is_string() && e.message_args.size() < 16)
        e.message_args.push_back(arg.get<std::string>().substr(0, 200));
  e.origin = link_of(record, "OriginOfCondition");
  e.log_entry = link_of(record, "LogEntry");
  e.system_id = system_of(e.origin);
  if (e.system_id.empty()) e.system_id = system_of(e.log_entry);
  // A status change counts for a System itself, not for a part of it (a fan's own status is in
  // the sensors, read by the poll this event brings forward).
  if (!e.system_id.empty() && e.origin == "/redfish/v1/Systems/" + e.system_id)
    e.health = status_change(e.message_id);
  if (e.message.empty()) e.message = e.message_id.empty() ? e.event_type + " event" : e.message_id;
  return e;
}

}  // namespace

PushedEvents read_redfish_event(const json& document) {
  if (!document.is_object()) throw invalid("a Redfish Event must be a JSON object");
  const auto records = document.find("Events");
  if (records == document.end() || !records->is_array())
    throw invalid("a Redfish Event must have an \"Events\" array", "Events");
  if (records->size() > kMaxEventsPerDocument)
    throw invalid("a Redfish Event may carry at most " + std::to_string(kMaxEventsPerDocument) +
                      " records, this one has " + std::to_string(records->size()),
                  "Events");
  PushedEvents out;
  out.context = text(document, "Context");
  out.events.reserve(records->size());
  for (std::size_t i = 0; i < records->size(); ++i) {
    const json& record = (*records)[i];
    if (!record.is_object())
      throw invalid("Events[" + std::to_string(i) + "] must be an object",
                    "Events[" + std::to_string(i) + "]");
    out.events.push_back(read_record(record));
  }
  return out;
}

}  // namespace ironhold::events
