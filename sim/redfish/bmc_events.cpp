// BmcState's EventService: subscriptions (EventDestination) created, read, patched, deleted and
// resumed over Redfish, SubmitTestEvent, and the events the BMC's own changes raise — each made
// into one Event document per subscription that wants it and handed to config_.deliver_event,
// under the lock; the fleet's EventSender (event_sender.hpp) delivers them off it and reports
// each outcome back here (delivery_*), where the subscription's DeliveryRetryPolicy is applied.
#include <algorithm>
#include <charconv>

#include "inventory/util/log.hpp"
#include "inventory/util/time.hpp"
#include "sim/redfish/bmc_state.hpp"
#include "sim/redfish/errors.hpp"

namespace ironhold::sim::redfish {

using nlohmann::json;

namespace {

constexpr std::string_view resume_suffix = "/Actions/EventDestination.ResumeSubscription";
const std::string test_event_action = "EventService.SubmitTestEvent";

std::string submit_target_of(const json& service) {
  const json actions = service.value("Actions", json::object());
  if (!actions.is_object()) return {};
  const json action = actions.value("#EventService.SubmitTestEvent", json::object());
  if (!action.is_object() || !action.contains("target") || !action["target"].is_string()) return {};
  return resource_path(action["target"].get<std::string>());
}

// What EventTypes a subscription may name: the service's EventTypesForSubscription.
std::vector<std::string> offered_event_types(const json& service) {
  std::vector<std::string> out;
  for (const auto& type : service.value("EventTypesForSubscription", json::array()))
    if (type.is_string()) out.push_back(type.get<std::string>());
  if (out.empty())
    out = {"StatusChange", "ResourceUpdated", "ResourceAdded", "ResourceRemoved", "Alert"};
  return out;
}

Response subscription_error(const SubscriptionProblem& p) {
  if (p.message == "PropertyMissing") return property_missing(p.property);
  if (p.message == "PropertyValueTypeError") return property_value_type_error(p.value, p.property);
  if (p.message == "PropertyValueFormatError")
    return property_value_format_error(p.value, p.property);
  if (p.message == "PropertyValueNotInList") return property_value_not_in_list(p.value, p.property);
  if (p.message == "PropertyNotWritable") return property_not_writable(p.property);
  return property_unknown(p.property);
}

unsigned numeric_id(const std::string& path) {
  const std::string last = path.substr(path.rfind('/') + 1);
  unsigned n = 0;
  const auto [p, ec] = std::from_chars(last.data(), last.data() + last.size(), n);
  return ec == std::errc{} && p == last.data() + last.size() ? n : 0;
}

// A SubmitTestEvent parameter that must be a string, or the error for it.
std::optional<Response> test_event_string(const json& value, const std::string& name) {
  if (value.is_string()) return std::nullopt;
  return action_parameter_value_type_error(value.dump(), name, test_event_action);
}

bool is_severity(const std::string& text) {
  return text == "OK" || text == "Warning" || text == "Critical";
}

}  // namespace

void BmcState::find_event_service() {
  for (const auto& [path, doc] : documents_) {
    if (!doc.is_json || !doc.json.value("@odata.type", "").starts_with("#EventService.")) continue;
    event_service_path_ = path;
    const json link = doc.json.value("Subscriptions", json::object());
    if (link.is_object() && link.contains("@odata.id") && link["@odata.id"].is_string())
      subscriptions_path_ = resource_path(link["@odata.id"].get<std::string>());
    test_event_target_ = submit_target_of(doc.json);
    const auto enabled = doc.json.find("ServiceEnabled");
    event_service_enabled_ =
        enabled == doc.json.end() || !enabled->is_boolean() || enabled->get<bool>();
    break;
  }
  if (subscriptions_path_.empty()) return;
  json& collection = documents_[subscriptions_path_].json;
  if (!collection.is_object() || collection.empty())
    collection = {{"@odata.id", subscriptions_path_},
                  {"@odata.type", "#EventDestinationCollection.EventDestinationCollection"},
                  {"Name", "Event Subscriptions Collection"}};
  if (!collection.contains("Members") || !collection["Members"].is_array())
    collection["Members"] = json::array();
  collection["Members@odata.count"] = collection["Members"].size();
  for (const auto& member : collection["Members"])
    if (member.is_object() && member.value("@odata.id", json()).is_string())
      next_subscription_ =
          std::max(next_subscription_, numeric_id(member["@odata.id"].get<std::string>()) + 1);
}

bool BmcState::events_enabled() const {
  return !event_service_path_.empty() && event_service_enabled_ && !faults_.event_service_disabled;
}

void BmcState::apply_event_fault() {
  if (event_service_path_.empty()) return;
  json& service = documents_.at(event_service_path_).json;
  service["ServiceEnabled"] = events_enabled();
  if (service.contains("Status") && service["Status"].is_object())
    service["Status"]["State"] = events_enabled() ? "Enabled" : "Disabled";
}

bool BmcState::is_subscription(const std::string& path) const {
  if (subscriptions_path_.empty() || path.size() <= subscriptions_path_.size() + 1 ||
      !path.starts_with(subscriptions_path_ + "/"))
    return false;
  return path.find('/', subscriptions_path_.size() + 1) == std::string::npos &&
         documents_.count(path) != 0;
}

void BmcState::put_subscription(const Subscription& subscription) {
  const std::string path = subscriptions_path_ + "/" + subscription.id;
  documents_[path] =
      Document{true, subscription_document(path, subscription), {}, "application/json"};
  json& collection = documents_.at(subscriptions_path_).json;
  json& members = collection["Members"];
  const json member = {{"@odata.id", path}};
  if (std::find(members.begin(), members.end(), member) == members.end()) members.push_back(member);
  collection["Members@odata.count"] = members.size();
}

std::optional<Response> BmcState::event_service_post(const std::string& path,
                                                     const Request& request) {
  if (!subscriptions_path_.empty() && path == subscriptions_path_)
    return create_subscription(request);
  if (!test_event_target_.empty() && path == test_event_target_) return submit_test_event(request);
  if (path.ends_with(resume_suffix)) {
    const std::string member = path.substr(0, path.size() - resume_suffix.size());
    if (subscriptions_.count(member)) return resume_subscription(member);
  }
  return std::nullopt;
}

Response BmcState::create_subscription(const Request& request) {
  if (!events_enabled()) return service_disabled(event_service_path_);
  const json body = json::parse(request.body(), nullptr, false);
  if (body.is_discarded() || !body.is_object()) return malformed_json();
  while (documents_.count(subscriptions_path_ + "/" + std::to_string(next_subscription_)))
    ++next_subscription_;
  Subscription s;
  s.id = std::to_string(next_subscription_);
  s.name = "Event Subscription " + s.id;
  const auto types = offered_event_types(documents_.at(event_service_path_).json);
  if (const auto problem = apply_subscription_body(body, true, types, s))
    return subscription_error(*problem);
  if (documents_.at(subscriptions_path_).json["Members"].size() >= max_subscriptions)
    return create_limit_reached_for_resource();
  ++next_subscription_;
  const std::string path = subscriptions_path_ + "/" + s.id;
  subscriptions_[path] = s;
  put_subscription(s);
  ++counters_.subscriptions_created;
  changed();
  auto res = json_response(http::status::created, documents_.at(path).json);
  res.set(http::field::location, path);
  return res;
}

// Only the subscriptions made here change; the mockup's own examples (SNMP, syslog, ...) are
// shown as they are.
Response BmcState::patch_subscription(const std::string& path, const Request& request) {
  const auto it = subscriptions_.find(path);
  if (it == subscriptions_.end()) return method_not_allowed(path);
  const json body = json::parse(request.body(), nullptr, false);
  if (body.is_discarded() || !body.is_object()) return malformed_json();
  const auto types = offered_event_types(documents_.at(event_service_path_).json);
  if (const auto problem = apply_subscription_body(body, false, types, it->second))
    return subscription_error(*problem);
  put_subscription(it->second);
  changed();
  return json_response(http::status::ok, documents_.at(path).json);
}

Response BmcState::remove_subscription(const std::string& path) {
  documents_.erase(path);
  json& collection = documents_.at(subscriptions_path_).json;
  json& members = collection["Members"];
  members.erase(std::remove(members.begin(), members.end(), json{{"@odata.id", path}}),
                members.end());
  collection["Members@odata.count"] = members.size();
  if (subscriptions_.erase(path) == 0) removed_mockup_subscriptions_.push_back(path);
  changed();
  return no_content();
}

Response BmcState::resume_subscription(const std::string& path) {
  Subscription& s = subscriptions_.at(path);
  s.suspended = false;
  put_subscription(s);
  changed();
  return no_content();
}

Response BmcState::submit_test_event(const Request& request) {
  if (!events_enabled()) return service_disabled(event_service_path_);
  const json body =
      request.body().empty() ? json::object() : json::parse(request.body(), nullptr, false);
  if (body.is_discarded() || !body.is_object()) return malformed_json();
  std::string type = "Other", message_id = std::string(base_registry) + ".Success",
              message = "A test event from the simulated BMC's EventService.", origin;
  std::optional<std::string> severity, message_severity, event_id, timestamp;
  json args = json::array();
  std::optional<std::int64_t> group;
  static const std::vector<std::string> event_types = {
      "StatusChange", "ResourceUpdated", "ResourceAdded", "ResourceRemoved", "Alert", "Other"};
  for (const auto& [key, value] : body.items()) {
    if (key.starts_with("@") || key == "Oem") continue;
    if (key == "MessageArgs") {
      if (!value.is_array() ||
          !std::all_of(value.begin(), value.end(), [](const json& a) { return a.is_string(); }))
        return action_parameter_value_type_error(value.dump(), key, test_event_action);
      args = value;
      continue;
    }
    if (key == "EventGroupId") {
      if (!value.is_number_integer())
        return action_parameter_value_type_error(value.dump(), key, test_event_action);
      group = value.get<std::int64_t>();
      continue;
    }
    if (key == "OriginOfCondition" && value.is_object()) {  // a link, as in an EventRecord
      const auto id = value.find("@odata.id");
      if (id == value.end() || !id->is_string())
        return action_parameter_value_type_error(value.dump(), key, test_event_action);
      origin = id->get<std::string>();
      continue;
    }
    static const std::vector<std::string> strings = {"EventType",       "EventId",
                                                     "EventTimestamp",  "Message",
                                                     "MessageId",       "Severity",
                                                     "MessageSeverity", "OriginOfCondition",
                                                     "Username",        "UserAuthenticationSource"};
    if (std::find(strings.begin(), strings.end(), key) == strings.end())
      return action_parameter_unknown(test_event_action, key);
    if (auto bad = test_event_string(value, key)) return std::move(*bad);
    const std::string text = value.get<std::string>();
    if (key == "EventType") {
      if (std::find(event_types.begin(), event_types.end(), text) == event_types.end())
        return action_parameter_value_not_in_list(text, key, test_event_action);
      type = text;
    } else if (key == "Severity" || key == "MessageSeverity") {
      if (!is_severity(text))
        return action_parameter_value_not_in_list(text, key, test_event_action);
      (key == "Severity" ? severity : message_severity) = text;
    } else if (key == "EventTimestamp") {
      if (!parse_rfc3339(text))
        return action_parameter_value_format_error(text, key, test_event_action);
      timestamp = text;
    } else if (key == "MessageId") {
      const auto dot = text.find('.');
      if (dot == 0 || dot == std::string::npos || text.back() == '.')
        return action_parameter_value_format_error(text, key, test_event_action);
      message_id = text;
    } else if (key == "OriginOfCondition") {
      if (resource_path(text).empty())
        return action_parameter_value_format_error(text, key, test_event_action);
      origin = text;
    } else if (key == "EventId") {
      event_id = text;
    } else if (key == "Message") {
      message = text;
    }  // Username, UserAuthenticationSource: accepted, not part of the record we send
  }
  const std::string shown_severity = message_severity.value_or(severity.value_or("OK"));
  json record = event_record(type, message_id, args, message, shown_severity, origin);
  record["Severity"] = severity.value_or(shown_severity);
  if (event_id) record["EventId"] = *event_id;
  if (timestamp) record["EventTimestamp"] = *timestamp;
  if (group) record["EventGroupId"] = *group;
  emit_locked(record, /*to_all=*/true);
  changed();
  return no_content();
}

json BmcState::event_record(const std::string& type, const std::string& message_id,
                            const json& args, const std::string& message,
                            const std::string& severity, const std::string& origin) {
  json record = {{"MemberId", "0"},
                 {"EventType", type},
                 {"EventId", std::to_string(next_event_++)},
                 {"EventTimestamp", format_rfc3339(std::chrono::system_clock::now())},
                 {"MessageSeverity", severity},
                 {"Severity", severity},
                 {"Message", message},
                 {"MessageId", message_id},
                 {"MessageArgs", args}};
  if (!origin.empty()) record["OriginOfCondition"] = {{"@odata.id", origin}};
  return record;
}

void BmcState::emit_locked(const json& record, bool to_all) {
  if (!events_enabled() || subscriptions_.empty()) return;
  // The names a ResourceTypes filter may use for the origin: its schema ("ComputerSystem") and
  // its collection ("Systems").
  std::vector<std::string> origin_types;
  if (record.contains("OriginOfCondition")) {
    const std::string origin = resource_path(record["OriginOfCondition"].value("@odata.id", ""));
    const auto doc = documents_.find(origin);
    if (doc != documents_.end() && doc->second.is_json)
      origin_types.push_back(type_of(doc->second.json.value("@odata.type", "")));
    const std::string_view root = "/redfish/v1/";
    if (origin.starts_with(root)) {
      const std::string rest = origin.substr(root.size());
      origin_types.push_back(rest.substr(0, rest.find('/')));
    }
  }
  for (const auto& [path, s] : subscriptions_) {
    if (s.suspended || (!to_all && !wants(s, record, origin_types))) continue;
    json doc = {{"@odata.type", "#Event.v1_7_0.Event"},
                {"Id", std::to_string(next_delivery_++)},
                {"Name", "Event Array"}};
    if (s.context) doc["Context"] = *s.context;
    doc["Events"] = json::array({record});
    if (config_.deliver_event)
      config_.deliver_event(EventDelivery{config_.index, path, doc.dump()});
  }
}

// ResourceEvent has no message that carries the new power state: ResourceChanged says something
// changed, the Message says what.
void BmcState::emit_power_locked(const std::string& system_path, const std::string& state) {
  emit_locked(event_record("ResourceUpdated", "ResourceEvent.1.0.ResourceChanged", json::array(),
                           "The power state of " + system_path + " changed to " + state + ".", "OK",
                           system_path));
}

void BmcState::power_settled(const std::string& system_path, std::uint64_t generation) {
  std::lock_guard lock(mutex_);
  const auto it = power_.find(system_path);
  if (it == power_.end() || it->second.generation != generation) return;
  const std::string state = it->second.steps.back().state;
  if (state != "On" && state != "Off") return;
  emit_power_locked(system_path, state);
  changed();
}

std::optional<DeliveryTarget> BmcState::delivery_target(const std::string& subscription) const {
  std::lock_guard lock(mutex_);
  const auto it = subscriptions_.find(subscription);
  if (!events_enabled() || it == subscriptions_.end() || it->second.suspended) return std::nullopt;
  const auto url = parse_destination(it->second.destination);
  if (!url) return std::nullopt;
  DeliveryTarget target;
  target.url = *url;
  target.headers = it->second.headers;
  target.policy = it->second.policy;
  const json& service = documents_.at(event_service_path_).json;
  const json attempts = service.value("DeliveryRetryAttempts", json(3));
  const json interval = service.value("DeliveryRetryIntervalSeconds", json(60));
  if (attempts.is_number_unsigned())
    target.retry_attempts = std::min(attempts.get<unsigned>(), 100u);
  if (interval.is_number_unsigned())
    target.retry_interval = std::chrono::seconds(std::min(interval.get<unsigned>(), 86400u));
  return target;
}

void BmcState::delivery_succeeded() {
  std::lock_guard lock(mutex_);
  ++counters_.events_delivered;
}

void BmcState::delivery_failed() {
  std::lock_guard lock(mutex_);
  ++counters_.event_deliveries_failed;
}

void BmcState::delivery_dropped() {
  std::lock_guard lock(mutex_);
  ++counters_.events_dropped;
}

void BmcState::delivery_gave_up(const std::string& subscription) {
  std::lock_guard lock(mutex_);
  ++counters_.events_dropped;
  const auto it = subscriptions_.find(subscription);
  if (it == subscriptions_.end()) return;
  log::warn("simulated BMC: an event delivery gave up after its retries",
            {{"index", config_.index},
             {"subscription", subscription},
             {"destination", it->second.destination},
             {"policy", name_of(it->second.policy)}});
  if (it->second.policy == RetryPolicy::terminate_after_retries) {
    remove_subscription(subscription);
  } else if (it->second.policy == RetryPolicy::suspend_retries) {
    it->second.suspended = true;
    put_subscription(it->second);
    changed();
  }
}

json BmcState::subscriptions() const {
  std::lock_guard lock(mutex_);
  return describe_subscriptions(subscriptions_);
}

json BmcState::saved_events_locked() const {
  json list = json::array();
  for (const auto& [path, s] : subscriptions_) list.push_back(to_saved(s));
  return {{"subscriptions", list},
          {"removed_subscriptions", removed_mockup_subscriptions_},
          {"next_subscription", next_subscription_},
          {"next_event", next_event_},
          {"next_delivery", next_delivery_}};
}

// Tolerant, like restore_state: what does not fit this mockup is skipped.
void BmcState::restore_events(const json& saved) {
  if (subscriptions_path_.empty() || !saved.is_object()) return;
  for (const auto& path : saved.value("removed_subscriptions", json::array())) {
    if (!path.is_string() || !is_subscription(path.get<std::string>())) continue;
    remove_subscription(path.get<std::string>());
  }
  for (const auto& item : saved.value("subscriptions", json::array())) {
    const auto s = subscription_from_saved(item);
    if (!s || s->id.find('/') != std::string::npos) continue;
    subscriptions_[subscriptions_path_ + "/" + s->id] = *s;
    put_subscription(*s);
  }
  const auto number = [&](const char* key) -> std::uint64_t {
    const json value = saved.value(key, json(0));
    return value.is_number_unsigned() ? value.get<std::uint64_t>() : 0;
  };
  next_subscription_ = std::max<unsigned>(
      next_subscription_,
      static_cast<unsigned>(std::min<std::uint64_t>(number("next_subscription"), 1u << 30)));
  next_event_ = std::max(next_event_, number("next_event"));
  next_delivery_ = std::max(next_delivery_, number("next_delivery"));
}

}  // namespace ironhold::sim::redfish
