// BmcState's control side: what the control API (control_api.cpp) and tests do to a simulated BMC
// behind its clients' backs — faults, power and health set directly, SEL entries appended, sessions
// expired — and the state --state-dir keeps across restarts.
#include <algorithm>
#include <charconv>
#include <ctime>

#include "inventory/error.hpp"
#include "sim/redfish/bmc_state.hpp"

namespace ironhold::sim::redfish {

using nlohmann::json;

namespace {

std::string rfc3339_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string link(const json& object, const char* name) {
  const auto it = object.find(name);
  if (it == object.end() || !it->is_object() || !it->contains("@odata.id") ||
      !(*it)["@odata.id"].is_string())
    return {};
  return resource_path((*it)["@odata.id"].get<std::string>());
}

std::vector<std::string> member_paths(const json& collection) {
  std::vector<std::string> out;
  const auto members = collection.find("Members");
  if (members == collection.end() || !members->is_array()) return out;
  for (const auto& m : *members)
    if (m.is_object() && m.contains("@odata.id") && m["@odata.id"].is_string())
      out.push_back(resource_path(m["@odata.id"].get<std::string>()));
  return out;
}

// saved[name] when it is an object, else an empty object (named, not a temporary: GCC 12 warns
// about iterating the items() of a temporary json).
const json& section(const json& saved, const char* name) {
  static const json empty = json::object();
  const auto it = saved.find(name);
  return it != saved.end() && it->is_object() ? *it : empty;
}

void check_health(const std::string& health) {
  if (health != "OK" && health != "Warning" && health != "Critical")
    throw invalid("health must be OK, Warning or Critical, got \"" + health + "\"", "health");
}

}  // namespace

Faults BmcState::faults() const {
  std::lock_guard lock(mutex_);
  return faults_;
}

Faults BmcState::request_received() {
  std::lock_guard lock(mutex_);
  ++counters_.requests_received;
  return faults_;
}

bool BmcState::refuse_burst() {
  std::lock_guard lock(mutex_);
  if (faults_.burst_limit == 0) return false;
  const auto now = config_.now();
  while (!burst_window_.empty() && now - burst_window_.front() >= std::chrono::seconds(1))
    burst_window_.pop_front();
  if (burst_window_.size() >= faults_.burst_limit) {
    ++counters_.requests_refused;
    return true;
  }
  burst_window_.push_back(now);
  return false;
}

std::size_t BmcState::open_sessions() const {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

void BmcState::set_faults(const Faults& faults) {
  std::lock_guard lock(mutex_);
  faults_ = faults;
  apply_event_fault();
  apply_settings_fault();
}

std::string BmcState::system_path(const std::string& system) const {
  if (power_.empty()) throw not_found("this BMC has no ComputerSystem with a Reset action");
  if (system.empty()) {
    // The first System in the collection's Members order: the one a client enrolls as the node.
    const auto collection = documents_.find("/redfish/v1/Systems");
    if (collection != documents_.end())
      for (const auto& path : member_paths(collection->second.json))
        if (power_.count(path)) return path;
    return power_.begin()->first;
  }
  for (const auto& [path, machine] : power_) {
    const json& doc = documents_.at(path).json;
    if (path == resource_path(system) || doc.value("Id", "") == system) return path;
  }
  throw not_found("no system \"" + system + "\" on this BMC");
}

void BmcState::set_power(const std::string& system, const std::string& state) {
  if (state != "On" && state != "Off")
    throw invalid("state must be On or Off, got \"" + state + "\"", "state");
  std::lock_guard lock(mutex_);
  const std::string path = system_path(system);
  auto& machine = power_.at(path);
  const std::string before = current_power(machine);
  machine.steps = {{state, Clock::duration::zero()}};
  machine.started = config_.now();
  ++machine.generation;
  if (before != state && path == console_system_) {
    if (state == "On")
      console_.boot(machine.started, "disk");
    else
      console_.power_off(machine.started);
  }
  if (before != state) emit_power_locked(path, state);
  changed();
}

void BmcState::set_health_locked(const std::string& path, const std::string& health) {
  json& status = documents_.at(path).json["Status"];
  if (!status.is_object()) status = json::object();
  status["Health"] = health;
  status["HealthRollup"] = health;
  health_set_[path] = health;
}

void BmcState::set_health(const std::string& health, const std::string& system) {
  check_health(health);
  std::lock_guard lock(mutex_);
  std::vector<std::string> paths;
  if (system.empty()) {
    for (const auto& [path, machine] : power_) paths.push_back(path);
  } else {
    paths.push_back(system_path(system));
  }
  for (const auto& path : paths) {
    const json status = documents_.at(path).json.value("Status", json::object());
    const bool changes = !status.is_object() || status.value("Health", "") != health;
    set_health_locked(path, health);
    // DMTF ResourceEvent: ResourceStatusChangedOK / ...Warning / ...Critical, args (resource,
    // health).
    if (changes)
      emit_locked(event_record(
          "StatusChange", "ResourceEvent.1.0.ResourceStatusChanged" + health,
          json::array({path, health}),
          "The health of resource '" + path + "' has changed to " + health + ".", health, path));
  }
  changed();
}

std::string BmcState::health(const std::string& system_path) const {
  std::lock_guard lock(mutex_);
  const auto it = documents_.find(system_path);
  if (it == documents_.end() || !it->second.json.contains("Status")) return {};
  return it->second.json["Status"].value("Health", "");
}

// The System's first LogService that keeps SEL entries: LogEntryType "SEL", or an entry with
// EntryType "SEL" already in it (older services do not say LogEntryType).
std::string BmcState::sel_entries_path(const std::string& system_path) const {
  const std::string services = link(documents_.at(system_path).json, "LogServices");
  const auto collection = documents_.find(services);
  if (services.empty() || collection == documents_.end()) return {};
  for (const auto& service_path : member_paths(collection->second.json)) {
    const auto service = documents_.find(service_path);
    if (service == documents_.end() || !service->second.is_json) continue;
    const std::string entries = link(service->second.json, "Entries");
    const auto entries_doc = documents_.find(entries);
    if (entries.empty() || entries_doc == documents_.end()) continue;
    if (service->second.json.value("LogEntryType", "") == "SEL") return entries;
    const json members = entries_doc->second.json.value("Members", json::array());
    for (const auto& m : members) {
      json entry = m;
      if (m.is_object() && !m.contains("EntryType") && m.contains("@odata.id") &&
          m["@odata.id"].is_string()) {
        const auto doc = documents_.find(resource_path(m["@odata.id"].get<std::string>()));
        if (doc != documents_.end()) entry = doc->second.json;
      }
      if (entry.is_object() && entry.value("EntryType", "") == "SEL") return entries;
    }
  }
  return {};
}

void BmcState::add_sel_entry(const std::string& entries_path, json entry) {
  const std::string path = resource_path(entry.value("@odata.id", ""));
  if (path.empty() || documents_.count(path)) return;  // restored twice: keep the first
  json& collection = documents_.at(entries_path).json;
  json& members = collection["Members"];
  if (!members.is_array()) members = json::array();
  // Keep the collection's style: expanded members when the mockup expands them.
  const bool expanded = !members.empty() && members[0].is_object() && members[0].size() > 1;
  members.push_back(expanded ? entry : json{{"@odata.id", path}});
  collection["Members@odata.count"] = members.size();
  documents_[path] = Document{true, entry, {}, "application/json"};
  added_sel_[entries_path].push_back(std::move(entry));
}

json BmcState::append_sel(const std::string& severity, const std::string& message,
                          const std::string& sensor_type, const std::string& system) {
  check_health(severity);
  if (message.empty()) throw invalid("message must not be empty", "message");
  std::lock_guard lock(mutex_);
  const std::string sys = system_path(system);
  const std::string entries = sel_entries_path(sys);
  if (entries.empty()) throw conflict("the system " + sys + " has no SEL log service");
  unsigned id = 1;
  for (const auto& path : member_paths(documents_.at(entries).json)) {
    const std::string last = path.substr(path.rfind('/') + 1);
    unsigned n = 0;
    const auto [p, ec] = std::from_chars(last.data(), last.data() + last.size(), n);
    if (ec == std::errc{} && p == last.data() + last.size()) id = std::max(id, n + 1);
  }
  while (documents_.count(entries + "/" + std::to_string(id))) ++id;
  const std::string ids = std::to_string(id);
  json entry = {{"@odata.id", entries + "/" + ids},
                {"@odata.type", "#LogEntry.v1_15_0.LogEntry"},
                {"Id", ids},
                {"Name", "SEL Entry " + ids},
                {"EntryType", "SEL"},
                {"Severity", severity},
                {"Created", rfc3339_now()},
                {"Message", message},
                {"EntryCode", "Assert"}};
  if (!sensor_type.empty()) entry["SensorType"] = sensor_type;
  add_sel_entry(entries, entry);
  // An Alert that links the entry (by the same @odata.id its collection lists). The Base and
  // ResourceEvent registries have no "entry added" message: ResourceCreated says a resource (the
  // LogEntry) was made; Message and severity are the entry's.
  json record = event_record(
      "Alert", entry.value("MessageId", std::string("ResourceEvent.1.0.ResourceCreated")),
      entry.value("MessageArgs", json::array()), message, severity, sys);
  record["LogEntry"] = {{"@odata.id", entry["@odata.id"]}};
  emit_locked(record);
  changed();
  return entry;
}

void BmcState::expire_sessions() {
  std::lock_guard lock(mutex_);
  for (const auto& [token, session] : sessions_)
    documents_.erase(sessions_path_ + "/" + session.id);
  sessions_.clear();
  json& collection = documents_[sessions_path_].json;
  collection["Members"] = json::array();
  collection["Members@odata.count"] = 0;
}

void BmcState::set_password(std::string password) {
  std::lock_guard lock(mutex_);
  config_.password = std::move(password);
}

std::string BmcState::password() const {
  std::lock_guard lock(mutex_);
  return config_.password;
}

std::size_t BmcState::session_count() const {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

json BmcState::describe() const {
  std::lock_guard lock(mutex_);
  json systems = json::array();
  for (const auto& [path, machine] : power_) {
    const json& doc = documents_.at(path).json;
    const json status = doc.value("Status", json::object());
    systems.push_back({{"id", doc.value("Id", "")},
                       {"path", path},
                       {"power_state", current_power(machine)},
                       {"health", status.is_object() ? status.value("Health", "") : ""}});
  }
  return {{"systems", systems},
          {"faults", active_faults(faults_)},
          {"fault_settings", to_json(faults_)},
          {"sessions", sessions_.size()},
          {"subscriptions", describe_subscriptions(subscriptions_)},
          {"counters", to_json(counters_)}};
}

json BmcState::saved_state_locked() const {
  json power = json::object(), boot = json::object(), identify = json::object(),
       sel = json::object();
  for (const auto& [path, machine] : power_) {
    power[path] = machine.steps.back().state;  // where a transition settles
    const json& doc = documents_.at(path).json;
    if (doc.contains("Boot")) boot[path] = doc["Boot"];
    for (const char* key : {"LocationIndicatorActive", "IndicatorLED"})
      if (doc.contains(key)) identify[path][key] = doc[key];
  }
  for (const auto& [entries, list] : added_sel_) sel[entries] = list;
  json saved = {{"power", power},
                {"boot", boot},
                {"identify", identify},
                {"health", health_set_},
                {"sel", sel}};
  saved["events"] = saved_events_locked();  // subscriptions and event numbering
  return saved;
}

json BmcState::saved_state() const {
  std::lock_guard lock(mutex_);
  return saved_state_locked();
}

void BmcState::set_persist(std::function<void(const json&)> persist) {
  std::lock_guard lock(mutex_);
  config_.persist = std::move(persist);
}

void BmcState::changed() {
  if (config_.persist) config_.persist(saved_state_locked());
}

// Tolerant: a saved file from another mockup or version restores what still fits.
void BmcState::restore_state(const json& saved) {
  if (!saved.is_object()) throw invalid("a saved BMC state must be a JSON object");
  std::lock_guard lock(mutex_);
  for (const auto& [path, state] : section(saved, "power").items()) {
    const auto it = power_.find(path);
    if (it == power_.end() || !state.is_string()) continue;
    it->second.steps = {{state.get<std::string>(), Clock::duration::zero()}};
    it->second.started = config_.now();
    ++it->second.generation;
  }
  for (const auto& [path, boot] : section(saved, "boot").items())
    if (power_.count(path) && boot.is_object()) documents_[path].json["Boot"] = boot;
  for (const auto& [path, values] : section(saved, "identify").items())
    if (power_.count(path) && values.is_object())
      for (const auto& [key, value] : values.items()) documents_[path].json[key] = value;
  for (const auto& [path, health] : section(saved, "health").items())
    if (power_.count(path) && health.is_string())
      set_health_locked(path, health.get<std::string>());
  for (const auto& [entries, list] : section(saved, "sel").items()) {
    if (!documents_.count(entries) || !list.is_array()) continue;
    for (const auto& entry : list)
      if (entry.is_object()) add_sel_entry(entries, entry);
  }
  restore_events(section(saved, "events"));
}

}  // namespace ironhold::sim::redfish
