#include "sim/redfish/bmc_state.hpp"

#include <openssl/rand.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "sim/redfish/drift.hpp"
#include "sim/redfish/errors.hpp"
#include "sim/redfish/select_query.hpp"

namespace ironhold::sim::redfish {

using nlohmann::json;

namespace {

// The action's target as a resource path, or empty.
std::string action_target(const json& doc, const char* action) {
  const auto actions = doc.find("Actions");
  if (actions == doc.end() || !actions->is_object()) return {};
  const auto it = actions->find(action);
  if (it == actions->end() || !it->is_object()) return {};
  const auto target = it->find("target");
  return target != it->end() && target->is_string() ? resource_path(target->get<std::string>())
                                                    : "";
}

// splitmix64: a fixed, well-spread value per instance (never zero for index 0 too).
std::uint64_t instance_key(unsigned index) {
  std::uint64_t z = 0x9E3779B97F4A7C15ull * (static_cast<std::uint64_t>(index) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// XORs the last `digits` hex digits of `text` (positions listed in `at`) with `key`, keeping case.
std::string xor_hex_digits(std::string text, const std::vector<std::size_t>& at,
                           std::uint64_t key) {
  for (std::size_t i = at.size(); i-- > 0;) {
    char& c = text[at[i]];
    const bool upper = std::isupper(static_cast<unsigned char>(c)) != 0;
    const int v = (hex_value(c) ^ static_cast<int>(key & 0xF));
    key >>= 4;
    c = "0123456789abcdef"[v];
    if (upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return text;
}

void make_unique(json& value, unsigned index) {
  if (value.is_array()) {
    for (auto& item : value) make_unique(item, index);
    return;
  }
  if (!value.is_object()) return;
  for (auto& [key, item] : value.items()) {
    if (item.is_string()) {
      const auto& text = item.get_ref<const std::string&>();
      if (key == "SerialNumber" && !text.empty())
        item = unique_serial(text, index);
      else if (key == "UUID")
        item = unique_uuid(text, index);
      else if (key == "MACAddress" || key == "PermanentMACAddress")
        item = unique_mac(text, index);
    } else {
      make_unique(item, index);
    }
  }
}

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

std::string random_hex(std::size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  if (RAND_bytes(raw.data(), static_cast<int>(raw.size())) != 1)
    throw std::runtime_error("RAND_bytes failed");
  std::string out;
  for (unsigned char b : raw) {
    out += "0123456789abcdef"[b >> 4];
    out += "0123456789abcdef"[b & 0xF];
  }
  return out;
}

std::string base64_decode(std::string_view in) {
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (char c : in) {
    int v;
    if (c >= 'A' && c <= 'Z')
      v = c - 'A';
    else if (c >= 'a' && c <= 'z')
      v = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      v = c - '0' + 52;
    else if (c == '+')
      v = 62;
    else if (c == '/')
      v = 63;
    else if (c == '=')
      break;
    else
      return {};
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xFF);
    }
  }
  return out;
}

}  // namespace

std::string unique_serial(const std::string& serial, unsigned index) {
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "-%04u", index);
  return serial + suffix;
}

std::string unique_uuid(const std::string& uuid, unsigned index) {
  // 8-4-4-4-12 hex digits: the last group (48 bits) is XORed with the instance key, so distinct
  // UUIDs within one instance stay distinct and the same UUID differs between instances.
  if (uuid.size() != 36) return uuid;
  std::vector<std::size_t> last;
  for (std::size_t i = 0; i < uuid.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash != (uuid[i] == '-')) return uuid;
    if (!dash && hex_value(uuid[i]) < 0) return uuid;
    if (i >= 24) last.push_back(i);
  }
  return xor_hex_digits(uuid, last, instance_key(index) & 0xFFFFFFFFFFFFull);
}

std::string unique_mac(const std::string& mac, unsigned index) {
  // The low 24 bits (the NIC part) change; the vendor OUI stays.
  std::vector<std::size_t> digits;
  for (std::size_t i = 0; i < mac.size(); ++i) {
    if (hex_value(mac[i]) >= 0)
      digits.push_back(i);
    else if (mac[i] != ':' && mac[i] != '-' && mac[i] != '.')
      return mac;
  }
  if (digits.size() != 12) return mac;
  digits.erase(digits.begin(), digits.begin() + 6);
  return xor_hex_digits(mac, digits, instance_key(index) & 0xFFFFFFull);
}

json to_json(const BmcCounters& c) {
  return {{"successful_logins", c.successful_logins},
          {"failed_logins", c.failed_logins},
          {"resets", c.resets},
          {"manager_resets", c.manager_resets},
          {"boot_overrides", c.boot_overrides},
          {"bios_writes", c.bios_writes},
          {"bios_applies", c.bios_applies},
          {"password_changes", c.password_changes},
          {"identify_changes", c.identify_changes},
          {"firmware_updates", c.firmware_updates},
          {"firmware_pushes", c.firmware_pushes},
          {"network_boots", c.network_boots},
          {"updates_completed", c.updates_completed},
          {"requests", c.requests},
          {"requests_received", c.requests_received},
          {"selected_reads", c.selected_reads},
          {"sessions_refused", c.sessions_refused},
          {"requests_refused", c.requests_refused},
          {"subscriptions_created", c.subscriptions_created},
          {"events_delivered", c.events_delivered},
          {"event_deliveries_failed", c.event_deliveries_failed},
          {"events_dropped", c.events_dropped},
          {"ssh_logins", c.ssh_logins},
          {"ssh_failed_logins", c.ssh_failed_logins},
          {"console_sessions", c.console_sessions},
          {"media_inserts", c.media_inserts},
          {"media_ejects", c.media_ejects},
          {"media_boots", c.media_boots}};
}

BmcState::BmcState(const Mockup& mockup, BmcConfig config)
    : config_(std::move(config)), console_("sim-node-" + std::to_string(config_.index)) {
  documents_ = mockup.documents();
  seed_ = instance_key(config_.index);
  for (auto& [path, doc] : documents_) {
    if (!doc.is_json) continue;
    make_unique(doc.json, config_.index);
    if (drifts(doc.json)) sensor_base_.emplace(path, doc.json);
    const std::string type = doc.json.value("@odata.type", "");
    if (type.rfind("#SessionCollection.", 0) == 0) sessions_path_ = path;
    if (type.rfind("#Manager.", 0) == 0) {
      const std::string target = action_target(doc.json, "#Manager.Reset");
      if (!target.empty()) manager_reset_targets_.emplace(target, path);
    }
    if (type.rfind("#UpdateService.", 0) == 0) {
      if (config_.update_methods) offer_update_methods(doc.json, *config_.update_methods);
      simple_update_target_ = action_target(doc.json, "#UpdateService.SimpleUpdate");
      const auto push = doc.json.find("MultipartHttpPushUri");
      if (push != doc.json.end() && push->is_string())
        push_uri_ = resource_path(push->get<std::string>());
    }
    if (type.rfind("#ComputerSystem.", 0) != 0) continue;
    const auto actions = doc.json.find("Actions");
    if (actions == doc.json.end() || !actions->is_object() || !actions->contains(reset_action))
      continue;
    const auto& action = (*actions)[reset_action];
    if (!action.is_object() || !action.contains("target") || !action["target"].is_string())
      continue;
    PowerMachine machine;
    machine.reset_target = resource_path(action["target"].get<std::string>());
    machine.steps.push_back({doc.json.value("PowerState", "On"), Clock::duration::zero()});
    machine.started = config_.now();
    power_.emplace(path, std::move(machine));
  }
  for (const auto& [path, machine] : power_) {
    register_settings_object(path);
    register_bios_settings(path);
  }
  find_serial_port();
  find_virtual_media();
  find_accounts();
  if (!simple_update_target_.empty() || !push_uri_.empty()) ensure_task_service();
  find_event_service();
  apply_event_fault();
}

BmcCounters BmcState::counters() const {
  std::lock_guard lock(mutex_);
  return counters_;
}

std::vector<std::string> BmcState::systems() const {
  std::vector<std::string> out;
  for (const auto& [path, machine] : power_) out.push_back(path);
  return out;
}

std::string BmcState::current_power(const PowerMachine& machine) const {
  auto elapsed = config_.now() - machine.started;
  for (const auto& step : machine.steps) {
    if (step.lasts == Clock::duration::zero() || elapsed < step.lasts) return step.state;
    elapsed -= step.lasts;
  }
  return machine.steps.back().state;
}

std::string BmcState::power_state(const std::string& system_path) const {
  std::lock_guard lock(mutex_);
  const auto it = power_.find(system_path);
  return it == power_.end() ? std::string() : current_power(it->second);
}

void BmcState::refresh_power(const std::string& path) {
  const auto it = power_.find(path);
  if (it != power_.end()) documents_[path].json["PowerState"] = current_power(it->second);
}

std::string BmcState::etag(const std::string& path) const {
  char text[24];
  std::snprintf(text, sizeof text, "\"%016llx\"",
                static_cast<unsigned long long>(fnv1a(documents_.at(path).json.dump())));
  return text;
}

Response BmcState::json_response(http::status status, const json& body) const {
  return redfish::json_response(status, body);
}

bool BmcState::authenticated(const Request& request) {
  const auto token = request.find("X-Auth-Token");
  if (token != request.end()) return sessions_.count(std::string(token->value())) != 0;
  const auto authorization = request.find(http::field::authorization);
  if (authorization == request.end()) return false;
  const std::string_view value = authorization->value();
  if (value.size() < 6 || value.substr(0, 6) != "Basic ") return false;
  if (faults_.basic_auth_refused) return false;
  const std::string pair = base64_decode(value.substr(6));
  const auto colon = pair.find(':');
  const bool ok = colon != std::string::npos && pair.substr(0, colon) == config_.username &&
                  pair.substr(colon + 1) == config_.password;
  ++(ok ? counters_.successful_logins : counters_.failed_logins);
  return ok;
}

Response BmcState::handle(const Request& request) {
  std::lock_guard lock(mutex_);
  ++counters_.requests;
  const std::string target(request.target());
  if (target == "/redfish" || target == "/redfish/")
    return json_response(http::status::ok, {{"v1", "/redfish/v1/"}});
  const std::string path = resource_path(target);
  if (path.empty()) return resource_missing(target);
  const auto method = request.method();
  const bool is_public =
      method == http::verb::get &&
      (path == "/redfish/v1" || path == "/redfish/v1/odata" || path == "/redfish/v1/$metadata");
  if (method == http::verb::post && path == sessions_path_) return create_session(request);
  if (!is_public && !authenticated(request)) return no_valid_session();
  switch (method) {
    case http::verb::get:
    case http::verb::head: {
      const auto select = query_parameter(target, "$select");
      if (select) ++counters_.selected_reads;
      auto res = get(path, select);
      if (method == http::verb::head) {
        res.body().clear();
      }
      return res;
    }
    case http::verb::post:
      return post(path, request);
    case http::verb::patch:
      return patch(path, request);
    case http::verb::delete_:
      return remove(path);
    default:
      return method_not_allowed(path);
  }
}

Response BmcState::get(const std::string& path, const std::optional<std::string>& select) {
  const auto it = documents_.find(path);
  if (it == documents_.end()) return resource_missing(path);
  if (!it->second.is_json) {
    Response res{http::status::ok, 11};
    res.set(http::field::content_type, it->second.content_type);
    res.set("OData-Version", "4.0");
    res.body() = it->second.text;
    res.prepare_payload();
    return res;
  }
  refresh_power(path);
  const auto base = sensor_base_.find(path);
  if (base != sensor_base_.end()) {
    Heat heat = Heat::normal;
    for (const auto& [system, health] : health_set_) heat = std::max(heat, heat_of(health));
    it->second.json = drifted(base->second, seed_, ++reads_[path], heat);
  }
  auto res = json_response(http::status::ok,
                           select ? apply_select(it->second.json, *select) : it->second.json);
  if (power_.count(path) || accounts_.count(path)) res.set(http::field::etag, etag(path));
  return res;
}

Response BmcState::post(const std::string& path, const Request& request) {
  for (const auto& [system, machine] : power_)
    if (machine.reset_target == path) return reset(system, request);
  const auto manager = manager_reset_targets_.find(path);
  if (manager != manager_reset_targets_.end()) return manager_reset(manager->second, request);
  if (!simple_update_target_.empty() && path == simple_update_target_)
    return simple_update(request);
  if (!push_uri_.empty() && path == push_uri_) return push_update(request);
  if (auto answered = event_service_post(path, request)) return std::move(*answered);
  if (auto answered = media_post(path, request)) return std::move(*answered);
  if (documents_.count(path)) return method_not_allowed(path);
  return resource_missing(path);
}

Response BmcState::create_session(const Request& request) {
  const json body = json::parse(request.body(), nullptr, false);
  if (body.is_discarded() || !body.is_object()) return malformed_json();
  const auto user = body.find("UserName");
  const auto password = body.find("Password");
  if (user == body.end() || password == body.end() || !user->is_string() ||
      !password->is_string() || *user != config_.username || *password != config_.password) {
    ++counters_.failed_logins;
    return no_valid_session();
  }
  if (faults_.session_limit > 0 && sessions_.size() >= faults_.session_limit) {
    ++counters_.sessions_refused;
    return idrac_session_limit();
  }
  ++counters_.successful_logins;
  Session session{std::to_string(next_session_++), random_hex(16), config_.username};
  const std::string url = sessions_path_ + "/" + session.id;
  json doc = {{"@odata.id", url},
              {"@odata.type", "#Session.v1_7_0.Session"},
              {"Id", session.id},
              {"Name", "User Session"},
              {"UserName", session.username}};
  documents_[url] = Document{true, doc, {}, "application/json"};
  json& collection = documents_[sessions_path_].json;
  collection["Members"].push_back({{"@odata.id", url}});
  collection["Members@odata.count"] = collection["Members"].size();
  auto res = json_response(http::status::created, doc);
  res.set(http::field::location, url);
  res.set("X-Auth-Token", session.token);
  sessions_.emplace(session.token, std::move(session));
  return res;
}

Response BmcState::remove(const std::string& path) {
  if (is_subscription(path)) return remove_subscription(path);
  const auto session = std::find_if(sessions_.begin(), sessions_.end(), [&](const auto& entry) {
    return sessions_path_ + "/" + entry.second.id == path;
  });
  if (session == sessions_.end())
    return documents_.count(path) ? method_not_allowed(path) : resource_missing(path);
  sessions_.erase(session);
  documents_.erase(path);
  json& members = documents_[sessions_path_].json["Members"];
  members.erase(std::remove(members.begin(), members.end(), json{{"@odata.id", path}}),
                members.end());
  documents_[sessions_path_].json["Members@odata.count"] = members.size();
  return no_content();
}

}  // namespace ironhold::sim::redfish
