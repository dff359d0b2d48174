#include "sim/redfish/events.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace ironhold::sim::redfish {

using nlohmann::json;

namespace {

bool lower_prefix(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  return true;
}

// RFC 9110 token characters: what a header name may be made of.
bool is_header_token(const std::string& name) {
  if (name.empty() || name.size() > 256) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

// No CR, LF or NUL: a header value that cannot smuggle another header into a delivery.
bool is_header_value(const std::string& value) {
  return value.size() <= 8192 &&
         value.find_first_of(std::string_view("\r\n\0", 3)) == std::string::npos;
}

std::string value_text(const json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

bool in_list(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

SubscriptionProblem subscription_problem(const char* message, const json& value,
                                         const std::string& property) {
  return {message, value.is_null() ? std::string() : value_text(value), property};
}

// An array of strings, or the problem with it.
std::optional<SubscriptionProblem> string_list(const json& value, const std::string& property,
                                               std::vector<std::string>& out) {
  if (!value.is_array()) return subscription_problem("PropertyValueTypeError", value, property);
  std::vector<std::string> list;
  for (const auto& item : value) {
    if (!item.is_string()) return subscription_problem("PropertyValueTypeError", item, property);
    list.push_back(item.get<std::string>());
  }
  out = std::move(list);
  return std::nullopt;
}

// HttpHeaders: an array of objects of header name -> value (null clears them).
std::optional<SubscriptionProblem> header_list(
    const json& value, std::vector<std::pair<std::string, std::string>>& out) {
  const std::string property = "HttpHeaders";
  std::vector<std::pair<std::string, std::string>> headers;
  if (!value.is_null()) {
    if (!value.is_array()) return subscription_problem("PropertyValueTypeError", value, property);
    for (const auto& item : value) {
      if (!item.is_object()) return subscription_problem("PropertyValueTypeError", item, property);
      for (const auto& [name, text] : item.items()) {
        if (!text.is_string())
          return subscription_problem("PropertyValueTypeError", text, property);
        if (!is_header_token(name) || !is_header_value(text.get<std::string>()))
          return subscription_problem("PropertyValueFormatError", json(name), property);
        headers.emplace_back(name, text.get<std::string>());
      }
    }
  }
  out = std::move(headers);
  return std::nullopt;
}

}  // namespace

std::optional<RetryPolicy> retry_policy_from(std::string_view name) {
  if (name == "TerminateAfterRetries") return RetryPolicy::terminate_after_retries;
  if (name == "SuspendRetries") return RetryPolicy::suspend_retries;
  if (name == "RetryForever") return RetryPolicy::retry_forever;
  return std::nullopt;
}

const char* name_of(RetryPolicy policy) {
  switch (policy) {
    case RetryPolicy::suspend_retries:
      return "SuspendRetries";
    case RetryPolicy::retry_forever:
      return "RetryForever";
    case RetryPolicy::terminate_after_retries:
      break;
  }
  return "TerminateAfterRetries";
}

std::optional<DestinationUrl> parse_destination(std::string_view url) {
  DestinationUrl out;
  if (lower_prefix(url, "https://")) {
    out.tls = true;
    url.remove_prefix(8);
  } else if (lower_prefix(url, "http://")) {
    url.remove_prefix(7);
  } else {
    return std::nullopt;
  }
  if (url.size() > 2048) return std::nullopt;
  const auto end = url.find_first_of("/?#");
  std::string_view authority = url.substr(0, end);
  if (end != std::string_view::npos) {
    std::string_view rest = url.substr(end);
    rest = rest.substr(0, rest.find('#'));
    out.target = rest.empty() || rest.front() != '/' ? "/" + std::string(rest) : std::string(rest);
  }
  if (authority.find('@') != std::string_view::npos) return std::nullopt;  // no user:password@
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {  // [::1]:8080
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    out.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return std::nullopt;
      port = after.substr(1);
    }
  } else {
    const auto colon = authority.rfind(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (out.host.empty() || std::any_of(out.host.begin(), out.host.end(), [](char c) {
        return std::isspace(static_cast<unsigned char>(c)) != 0 || c == '/' || c == '\\';
      }))
    return std::nullopt;
  if (port.empty()) {
    out.port = out.tls ? "443" : "80";
  } else {
    unsigned number = 0;
    const auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), number);
    if (ec != std::errc{} || p != port.data() + port.size() || number == 0 || number > 65535)
      return std::nullopt;
    out.port = std::to_string(number);
  }
  if (std::any_of(out.target.begin(), out.target.end(),
                  [](char c) { return static_cast<unsigned char>(c) <= ' ' || c == 0x7f; }))
    return std::nullopt;
  return out;
}

json to_saved(const Subscription& s) {
  json headers = json::array();
  for (const auto& [name, value] : s.headers) headers.push_back({name, value});
  json saved = {{"id", s.id},
                {"name", s.name},
                {"destination", s.destination},
                {"headers", headers},
                {"registry_prefixes", s.registry_prefixes},
                {"resource_types", s.resource_types},
                {"event_types", s.event_types},
                {"policy", name_of(s.policy)},
                {"suspended", s.suspended}};
  if (s.context) saved["context"] = *s.context;
  return saved;
}

std::optional<Subscription> subscription_from_saved(const json& saved) {
  if (!saved.is_object()) return std::nullopt;
  Subscription s;
  try {
    s.id = saved.at("id").get<std::string>();
    s.name = saved.value("name", "Event Subscription " + s.id);
    s.destination = saved.at("destination").get<std::string>();
    if (saved.contains("context")) s.context = saved["context"].get<std::string>();
    for (const auto& pair : saved.value("headers", json::array()))
      s.headers.emplace_back(pair.at(0).get<std::string>(), pair.at(1).get<std::string>());
    s.registry_prefixes = saved.value("registry_prefixes", std::vector<std::string>());
    s.resource_types = saved.value("resource_types", std::vector<std::string>());
    s.event_types = saved.value("event_types", std::vector<std::string>());
    s.policy = retry_policy_from(saved.value("policy", "")).value_or(s.policy);
    s.suspended = saved.value("suspended", false);
  } catch (const json::exception&) {
    return std::nullopt;
  }
  if (s.id.empty() || !parse_destination(s.destination)) return std::nullopt;
  return s;
}

json subscription_document(const std::string& path, const Subscription& s) {
  json doc = {{"@odata.id", path},
              {"@odata.type", "#EventDestination.v1_14_0.EventDestination"},
              {"Id", s.id},
              {"Name", s.name},
              {"Destination", s.destination},
              {"Protocol", "Redfish"},
              {"SubscriptionType", "RedfishEvent"},
              {"EventFormatType", "Event"},
              {"RegistryPrefixes", s.registry_prefixes},
              {"ResourceTypes", s.resource_types},
              {"HttpHeaders", nullptr},
              {"DeliveryRetryPolicy", name_of(s.policy)},
              {"Status", {{"State", s.suspended ? "Disabled" : "Enabled"}, {"Health", "OK"}}},
              {"Actions",
               {{"#EventDestination.ResumeSubscription",
                 {{"target", path + "/Actions/EventDestination.ResumeSubscription"}}}}}};
  if (s.context) doc["Context"] = *s.context;
  if (!s.event_types.empty()) doc["EventTypes"] = s.event_types;
  return doc;
}

json describe_subscriptions(const std::map<std::string, Subscription>& by_path) {
  json list = json::array();
  for (const auto& [path, s] : by_path)
    list.push_back({{"id", s.id},
                    {"path", path},
                    {"destination", s.destination},
                    {"context", s.context ? json(*s.context) : json(nullptr)},
                    {"state", s.suspended ? "Disabled" : "Enabled"},
                    {"policy", name_of(s.policy)}});
  return list;
}

std::optional<SubscriptionProblem> apply_subscription_body(
    const json& body, bool creating, const std::vector<std::string>& event_types,
    Subscription& into) {
  if (creating) {
    for (const char* required : {"Destination", "Protocol"})
      if (!body.contains(required)) return SubscriptionProblem{"PropertyMissing", "", required};
  }
  Subscription s = into;  // all or nothing
  for (const auto& [key, value] : body.items()) {
    if (key.starts_with("@") || key == "Oem") continue;  // annotations, vendor extensions
    const bool create_only = key == "Destination" || key == "Protocol" ||
                             key == "EventFormatType" || key == "SubscriptionType" ||
                             key == "RegistryPrefixes" || key == "ResourceTypes" ||
                             key == "EventTypes" || key == "Name";
    const bool read_only = key == "Id" || key == "Status" || key == "Actions";
    if (read_only || (create_only && !creating))
      return SubscriptionProblem{"PropertyNotWritable", "", key};
    if (key == "Context") {
      if (value.is_null() && !creating) {
        s.context.reset();
        continue;
      }
      if (!value.is_string()) return subscription_problem("PropertyValueTypeError", value, key);
      s.context = value.get<std::string>();
    } else if (key == "DeliveryRetryPolicy") {
      if (!value.is_string()) return subscription_problem("PropertyValueTypeError", value, key);
      const auto policy = retry_policy_from(value.get<std::string>());
      if (!policy) return subscription_problem("PropertyValueNotInList", value, key);
      s.policy = *policy;
    } else if (key == "HttpHeaders") {
      if (auto bad = header_list(value, s.headers)) return bad;
    } else if (!create_only) {
      return SubscriptionProblem{"PropertyUnknown", "", key};
    } else if (key == "RegistryPrefixes") {
      if (auto bad = string_list(value, key, s.registry_prefixes)) return bad;
    } else if (key == "ResourceTypes") {
      if (auto bad = string_list(value, key, s.resource_types)) return bad;
    } else if (key == "EventTypes") {
      if (auto bad = string_list(value, key, s.event_types)) return bad;
      for (const auto& type : s.event_types)
        if (!in_list(event_types, type))
          return subscription_problem("PropertyValueNotInList", json(type), key);
    } else {
      // Destination, Protocol, EventFormatType, SubscriptionType, Name: strings.
      if (!value.is_string()) return subscription_problem("PropertyValueTypeError", value, key);
      const std::string text = value.get<std::string>();
      if (key == "Destination") {
        if (!parse_destination(text))
          return subscription_problem("PropertyValueFormatError", value, key);
        s.destination = text;
      } else if (key == "Protocol" && text != "Redfish") {
        return subscription_problem("PropertyValueNotInList", value, key);
      } else if (key == "EventFormatType" && text != "Event") {
        return subscription_problem("PropertyValueNotInList", value, key);
      } else if (key == "SubscriptionType" && text != "RedfishEvent") {
        return subscription_problem("PropertyValueNotInList", value, key);
      } else if (key == "Name") {
        s.name = text;
      }
    }
  }
  into = std::move(s);
  return std::nullopt;
}

std::string registry_of(const std::string& message_id) {
  return message_id.substr(0, message_id.find('.'));
}

std::string type_of(const std::string& odata_type) {
  std::string_view t = odata_type;
  if (!t.empty() && t.front() == '#') t.remove_prefix(1);
  return std::string(t.substr(0, t.find('.')));
}

bool wants(const Subscription& s, const json& record,
           const std::vector<std::string>& origin_types) {
  if (!s.event_types.empty() && !in_list(s.event_types, record.value("EventType", "")))
    return false;
  if (!s.registry_prefixes.empty() &&
      !in_list(s.registry_prefixes, registry_of(record.value("MessageId", ""))))
    return false;
  if (!s.resource_types.empty() &&
      std::none_of(origin_types.begin(), origin_types.end(),
                   [&](const std::string& type) { return in_list(s.resource_types, type); }))
    return false;
  return true;
}

}  // namespace ironhold::sim::redfish
