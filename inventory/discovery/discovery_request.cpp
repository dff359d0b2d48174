#include "inventory/discovery/discovery_request.hpp"

#include <algorithm>

#include "inventory/discovery/address_range.hpp"
#include "inventory/error.hpp"
#include "inventory/model/json_fields.hpp"
#include "inventory/model/node_spec.hpp"

namespace ironhold::discovery {
namespace {

using nlohmann::json;

constexpr int kMinTimeoutMs = 100;
constexpr int kMaxTimeoutMs = 30000;

Error wrong_type(const std::string& field, const char* expected) {
  return invalid("\"" + field + "\" must be " + expected, field);
}

void reject_unknown_keys(const json& body) {
  static const std::vector<std::string> known = {"addresses",   "ports",       "credentials",
                                                 "enroll",      "name_prefix", "tags",
                                                 "concurrency", "timeout_ms",  "project"};
  for (const auto& [key, value] : body.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    throw unprocessable("unknown field \"" + key.substr(0, 80) + "\" (known: " + list + ")", key);
  }
}

const json* field_of(const json& body, const char* name) {
  auto it = body.find(name);
  return it == body.end() || it->is_null() ? nullptr : &*it;
}

std::vector<std::uint16_t> parse_ports(const json& body) {
  const json* ports = field_of(body, "ports");
  if (!ports) return {};
  if (!ports->is_array()) throw wrong_type("ports", "an array of port numbers");
  if (ports->empty() || ports->size() > max_ports)
    throw unprocessable("\"ports\" lists 1 to " + std::to_string(max_ports) +
                            " ports (each is tried for Redfish over HTTPS and IPMI over UDP); "
                            "leave it out for the standard ports 443 and 623",
                        "ports");
  std::vector<std::uint16_t> out;
  for (std::size_t i = 0; i < ports->size(); ++i) {
    const json& p = (*ports)[i];
    const std::string field = "ports[" + std::to_string(i) + "]";
    if (!p.is_number_integer()) throw wrong_type(field, "an integer");
    const auto value = p.get<long long>();
    if (value < 1 || value > 65535)
      throw unprocessable("\"" + field + "\" must be a port from 1 to 65535", field);
    const auto port = static_cast<std::uint16_t>(value);
    if (std::find(out.begin(), out.end(), port) != out.end())
      throw unprocessable("\"" + field + "\" repeats port " + std::to_string(port), field);
    out.push_back(port);
  }
  return out;
}

int parse_int(const json& body, const char* name, int min, int max, int fallback) {
  const json* v = field_of(body, name);
  if (!v) return fallback;
  if (!v->is_number_integer()) throw wrong_type(name, "an integer");
  const auto value = v->get<long long>();
  if (value < min || value > max)
    throw unprocessable("\"" + std::string(name) + "\" must be from " + std::to_string(min) +
                            " to " + std::to_string(max),
                        name);
  return static_cast<int>(value);
}

bool valid_prefix(const std::string& prefix) {
  if (prefix.empty() || prefix.size() > max_name_prefix) return false;
  if (!std::isalnum(static_cast<unsigned char>(prefix[0]))) return false;
  return std::all_of(prefix.begin(), prefix.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '_' || c == '-';
  });
}

// Credentials and tags are checked by the enrollment's own validation (parse_node_spec), on a
// stand-in node, so that a discovery accepts exactly what POST /api/v1/nodes accepts.
void check_as_enrollment(const json& body, const DiscoveryRequest& request) {
  json node = {{"name", request.name_prefix + "check"},
               {"driver", "redfish"},
               {"endpoint", "https://192.0.2.1"}};
  if (const json* c = field_of(body, "credentials")) node["credentials"] = *c;
  if (const json* t = field_of(body, "tags")) node["tags"] = *t;
  parse_node_spec(node);
}

}  // namespace

DiscoveryRequest parse_discovery_request(const json& body) {
  if (!body.is_object()) throw invalid("the request body must be a JSON object");
  reject_unknown_keys(body);
  DiscoveryRequest r;

  const json* addresses = field_of(body, "addresses");
  if (!addresses) throw invalid("\"addresses\" is required", "addresses");
  if (!addresses->is_string())
    throw wrong_type("addresses", "a string: an address, a range or a CIDR block");
  r.addresses = expand_addresses(addresses->get_ref<const std::string&>(), "addresses");
  r.addresses_text = addresses->get<std::string>();
  r.addresses_text.erase(0, r.addresses_text.find_first_not_of(' '));
  r.addresses_text.erase(r.addresses_text.find_last_not_of(' ') + 1);

  r.ports = parse_ports(body);

  if (const json* e = field_of(body, "enroll")) {
    if (!e->is_boolean()) throw wrong_type("enroll", "a boolean");
    r.enroll = e->get<bool>();
  }
  if (const json* p = field_of(body, "name_prefix")) {
    if (!p->is_string()) throw wrong_type("name_prefix", "a string");
    r.name_prefix = p->get<std::string>();
    if (!valid_prefix(r.name_prefix))
      throw unprocessable("\"name_prefix\" must be 1 to " + std::to_string(max_name_prefix) +
                              " letters, digits, '.', '_' or '-', starting with a letter or digit "
                              "(node names are the prefix and the address)",
                          "name_prefix");
  }
  r.project = project_field(body);
  r.concurrency = parse_int(body, "concurrency", 1, max_concurrency, default_concurrency);
  if (field_of(body, "timeout_ms"))
    r.timeout = std::chrono::milliseconds(
        parse_int(body, "timeout_ms", kMinTimeoutMs, kMaxTimeoutMs, kMinTimeoutMs));

  check_as_enrollment(body, r);
  if (const json* c = field_of(body, "credentials")) {
    r.credentials =
        Credentials{c->at("username").get<std::string>(), c->at("password").get<std::string>()};
  }
  if (const json* t = field_of(body, "tags")) r.tags = *t;
  if (r.enroll && !r.credentials)
    throw unprocessable(
        "\"credentials\" ({\"username\", \"password\"}) are required with \"enroll\": true: the "
        "enrolled nodes need them to talk to their BMCs",
        "credentials");
  return r;
}

json public_parameters(const DiscoveryRequest& r) {
  json out = {{"addresses", r.addresses_text},
              {"ports", r.ports},
              {"enroll", r.enroll},
              {"name_prefix", r.name_prefix},
              {"project", r.project},
              {"tags", r.tags},
              {"concurrency", r.concurrency},
              {"timeout_ms", r.timeout ? json(r.timeout->count()) : json(nullptr)}};
  if (r.credentials) out["credentials"] = {{"username", r.credentials->username}};
  return out;
}

std::string node_name_for(const std::string& prefix, const Endpoint& endpoint) {
  std::string name = prefix + endpoint.host;
  std::replace_if(
      name.begin() + static_cast<std::ptrdiff_t>(prefix.size()), name.end(),
      [](char c) { return c == '.' || c == ':'; }, '-');
  if (endpoint.port) {
    name += '-';
    name += std::to_string(*endpoint.port);
  }
  return name;
}

}  // namespace ironhold::discovery
