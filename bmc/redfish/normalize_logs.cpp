// Log entries (SEL, event logs) of the System's and its Managers' log services -> events.
#include <set>

#include "bmc/redfish/json_read.hpp"
#include "bmc/redfish/normalize_links.hpp"
#include "bmc/redfish/normalize_parts.hpp"

namespace ironhold::bmc::redfish {

namespace {

using nlohmann::json;

bool digits(std::string_view text, std::size_t at, std::size_t count, int& value) {
  if (at + count > text.size()) return false;
  value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    value = value * 10 + (text[i] - '0');
  }
  return true;
}

int days_in_month(int year, int month) {
  static constexpr int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : days[month - 1];
}

Severity severity_of(const std::optional<std::string>& text) {
  if (text == "Critical") return Severity::critical;
  if (text == "Warning") return Severity::warning;
  return Severity::info;  // "OK", and whatever a BMC invents
}

json or_null(const std::optional<std::string>& value) {
  return value ? json(*value) : json();
}

}  // namespace

bool is_rfc3339(std::string_view text) {
  // date-time = full-date "T" partial-time time-offset (RFC 3339 section 5.6)
  int year, month, day, hour, minute, second;
  if (!digits(text, 0, 4, year) || text.size() < 20 || text[4] != '-' ||
      !digits(text, 5, 2, month) || text[7] != '-' || !digits(text, 8, 2, day) ||
      (text[10] != 'T' && text[10] != 't') || !digits(text, 11, 2, hour) || text[13] != ':' ||
      !digits(text, 14, 2, minute) || text[16] != ':' || !digits(text, 17, 2, second))
    return false;
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 ||
      minute > 59 || second > 60)
    return false;
  std::size_t at = 19;
  if (text[at] == '.') {
    std::size_t start = ++at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
    if (at == start) return false;
  }
  if (at >= text.size()) return false;
  if ((text[at] == 'Z' || text[at] == 'z') && at + 1 == text.size()) return true;
  int offset_hour, offset_minute;
  return (text[at] == '+' || text[at] == '-') && at + 6 == text.size() &&
         digits(text, at + 1, 2, offset_hour) && text[at + 3] == ':' &&
         digits(text, at + 4, 2, offset_minute) && offset_hour <= 23 && offset_minute <= 59;
}

std::vector<HardwareEvent> normalize_events(const ResourceGraph& graph,
                                            const std::string& system_path) {
  std::vector<HardwareEvent> events;
  if (!graph.find(system_path)) return events;
  std::vector<std::string> owners = managers_of(graph, system_path);
  owners.insert(owners.begin(), system_path);
  std::set<std::string> seen;
  for (const auto& owner : owners) {
    std::string services = link_of(*graph.find(owner), "LogServices");
    if (services.empty()) continue;
    for (const auto& service_path : graph.members(services)) {
      const json* service = graph.find(service_path);
      if (!service) continue;
      std::string log_name = resource_id(*service, service_path);
      std::string entries = link_of(*service, "Entries");
      if (entries.empty()) continue;
      for (const auto& entry_path : graph.members(entries)) {
        const json* entry = graph.find(entry_path);
        if (!entry || !seen.insert(entry_path).second) continue;
        HardwareEvent event;
        event.source_id = entry_path;
        event.severity = severity_of(read_string(entry, "Severity"));
        std::optional<std::string> created = read_string(entry, "Created");
        if (created && is_rfc3339(*created)) event.occurred_at = created;
        event.message = read_string(entry, "Message").value_or("");
        event.details = {{"entry_type", or_null(read_string(entry, "EntryType"))},
                         {"message_id", or_null(read_string(entry, "MessageId"))},
                         {"sensor_type", or_null(read_string(entry, "SensorType"))},
                         {"log", log_name}};
        events.push_back(std::move(event));
      }
    }
  }
  return events;
}

}  // namespace ironhold::bmc::redfish
