#include "sim/redfish/faults.hpp"

#include "inventory/error.hpp"

namespace ironhold::sim::redfish {

using nlohmann::json;

namespace {

// Caps that keep a typo from making the simulator unusable (a day of latency, a 100 GB body).
constexpr unsigned max_delay_ms = 600'000;
constexpr std::uint64_t max_body_bytes = 1ull << 30;

unsigned delay_field(const json& value, const char* name) {
  if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<std::int64_t>() >= 0))
    throw invalid(std::string(name) + " must be a whole number of milliseconds >= 0", name);
  const auto ms = value.get<std::uint64_t>();
  if (ms > max_delay_ms)
    throw invalid(std::string(name) + " must be at most " + std::to_string(max_delay_ms), name);
  return static_cast<unsigned>(ms);
}

unsigned count_field(const json& value, const char* name) {
  if (!value.is_number_integer() || value.get<std::int64_t>() < 0 ||
      value.get<std::int64_t>() > 1'000'000)
    throw invalid(std::string(name) + " must be a whole number from 0 (no limit) to 1000000", name);
  return static_cast<unsigned>(value.get<std::int64_t>());
}

bool bool_field(const json& value, const char* name) {
  if (!value.is_boolean()) throw invalid(std::string(name) + " must be true or false", name);
  return value.get<bool>();
}

}  // namespace

bool Faults::any() const {
  return *this != Faults{};
}

Faults faults_from_json(const json& body, Faults f) {
  if (!body.is_object()) throw invalid("faults must be a JSON object");
  for (const auto& [key, value] : body.items()) {
    if (key == "latency_ms") {
      f.latency_ms = delay_field(value, "latency_ms");
    } else if (key == "slow_drip_ms") {
      f.slow_drip_ms = delay_field(value, "slow_drip_ms");
    } else if (key == "error_rate") {
      if (!value.is_number() || value.get<double>() < 0 || value.get<double>() > 1)
        throw invalid("error_rate must be a number from 0 to 1", "error_rate");
      f.error_rate = value.get<double>();
    } else if (key == "huge_body_bytes") {
      if (!value.is_number_integer() || value.get<std::int64_t>() < 0 ||
          value.get<std::uint64_t>() > max_body_bytes)
        throw invalid("huge_body_bytes must be a whole number from 0 to 1073741824",
                      "huge_body_bytes");
      f.huge_body_bytes = value.get<std::uint64_t>();
    } else if (key == "reset_connections") {
      f.reset_connections = bool_field(value, "reset_connections");
    } else if (key == "timeout") {
      f.timeout = bool_field(value, "timeout");
    } else if (key == "truncated_json") {
      f.truncated_json = bool_field(value, "truncated_json");
    } else if (key == "invalid_json") {
      f.invalid_json = bool_field(value, "invalid_json");
    } else if (key == "redirect_loop") {
      f.redirect_loop = bool_field(value, "redirect_loop");
    } else if (key == "ignore_resets") {
      f.ignore_resets = bool_field(value, "ignore_resets");
    } else if (key == "install_fails") {
      f.install_fails = bool_field(value, "install_fails");
    } else if (key == "install_hangs") {
      f.install_hangs = bool_field(value, "install_hangs");
    } else if (key == "update_fails") {
      f.update_fails = bool_field(value, "update_fails");
    } else if (key == "update_hangs") {
      f.update_hangs = bool_field(value, "update_hangs");
    } else if (key == "event_service_disabled") {
      f.event_service_disabled = bool_field(value, "event_service_disabled");
    } else if (key == "session_limit") {
      f.session_limit = count_field(value, "session_limit");
    } else if (key == "burst_limit") {
      f.burst_limit = count_field(value, "burst_limit");
    } else if (key == "basic_auth_refused") {
      f.basic_auth_refused = bool_field(value, "basic_auth_refused");
    } else if (key == "boot_via_settings") {
      f.boot_via_settings = bool_field(value, "boot_via_settings");
    } else if (key == "boot_mode_required") {
      f.boot_mode_required = bool_field(value, "boot_mode_required");
    } else if (key == "empty_collections") {
      if (!value.is_array())
        throw invalid("empty_collections must be a list of collection names, like [\"Systems\"]",
                      key);
      f.empty_collections.clear();
      for (const auto& name : value) {
        if (!name.is_string() || name.get_ref<const std::string&>().empty() ||
            name.get_ref<const std::string&>().find('/') != std::string::npos)
          throw invalid(
              "empty_collections holds collection names without a slash, like "
              "\"Processors\"",
              key);
        f.empty_collections.push_back(name.get<std::string>());
      }
    } else {
      throw invalid("unknown fault \"" + key + "\"", key);
    }
  }
  return f;
}

json to_json(const Faults& f) {
  return {{"latency_ms", f.latency_ms},
          {"error_rate", f.error_rate},
          {"reset_connections", f.reset_connections},
          {"timeout", f.timeout},
          {"truncated_json", f.truncated_json},
          {"invalid_json", f.invalid_json},
          {"slow_drip_ms", f.slow_drip_ms},
          {"redirect_loop", f.redirect_loop},
          {"huge_body_bytes", f.huge_body_bytes},
          {"ignore_resets", f.ignore_resets},
          {"install_fails", f.install_fails},
          {"install_hangs", f.install_hangs},
          {"update_fails", f.update_fails},
          {"update_hangs", f.update_hangs},
          {"event_service_disabled", f.event_service_disabled},
          {"empty_collections", f.empty_collections},
          {"session_limit", f.session_limit},
          {"basic_auth_refused", f.basic_auth_refused},
          {"burst_limit", f.burst_limit},
          {"boot_via_settings", f.boot_via_settings},
          {"boot_mode_required", f.boot_mode_required}};
}

json active_faults(const Faults& f) {
  json names = json::array();
  const json all = to_json(f);
  for (const auto& [key, value] : all.items()) {
    const bool on = value.is_boolean() ? value.get<bool>()
                    : value.is_array() ? !value.empty()
                                       : value.get<double>() != 0;
    if (on) names.push_back(key);
  }
  return names;
}

std::string mangle_body(const Faults& f, std::string body) {
  if (f.invalid_json) return "<html><body>Internal error {\"Id\": }</body>";  // what some BMCs send
  if (f.huge_body_bytes > body.size() && !body.empty() && body.back() == '}') {
    // Still valid JSON, just big: a client has to cap what it reads, not choke on the parse.
    body.pop_back();
    const bool empty_object = body.find_last_not_of(" \n\t\r") == body.find('{');
    const std::size_t pad = f.huge_body_bytes - body.size();
    body += std::string(empty_object ? "" : ",") + "\"Padding\":\"" + std::string(pad, 'x') + "\"}";
  }
  if (f.truncated_json && body.size() > 1) body.resize(body.size() / 2);
  return body;
}

std::string empty_members(const Faults& f, std::string_view target, std::string body) {
  if (f.empty_collections.empty()) return body;
  std::string_view path = target.substr(0, target.find('?'));
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  const std::string_view last = path.substr(path.rfind('/') + 1);
  bool named = false;
  for (const auto& name : f.empty_collections) named = named || name == last;
  if (!named) return body;
  json document = json::parse(body, nullptr, false);
  if (!document.is_object() || !document.contains("Members")) return body;
  document["Members"] = json::array();
  document["Members@odata.count"] = 0;
  document.erase("Members@odata.nextLink");
  return document.dump();
}

}  // namespace ironhold::sim::redfish
