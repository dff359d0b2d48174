#include "inventory/model/node_spec.hpp"

#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <set>

#include "inventory/error.hpp"
#include "inventory/model/bmc_options.hpp"
#include "inventory/model/json_fields.hpp"

namespace ironhold {
namespace {

using nlohmann::json;

Location parse_location(const json& body) {
  Location loc;
  auto it = body.find("location");
  if (it == body.end() || it->is_null()) return loc;
  if (!it->is_object()) throw wrong_type("location", "an object", *it);
  reject_unknown_keys(*it, {"site", "rack", "unit"}, "location", ErrorKind::unprocessable);
  loc.site = optional_string(*it, "site", "location.site", 100);
  loc.rack = optional_string(*it, "rack", "location.rack", 100);
  if (auto u = it->find("unit"); u != it->end() && !u->is_null()) {
    if (!u->is_number_integer()) throw wrong_type("location.unit", "an integer", *u);
    const auto unit = u->get<long long>();
    if (unit < 0 || unit > 1000)
      throw unprocessable("\"location.unit\" must be between 0 and 1000", "location.unit");
    loc.unit = static_cast<int>(unit);
  }
  return loc;
}

json parse_tags(const json& body) {
  auto it = body.find("tags");
  if (it == body.end() || it->is_null()) return json::object();
  if (!it->is_object()) throw wrong_type("tags", "an object of strings", *it);
  if (it->size() > 64) throw unprocessable("a node has at most 64 tags", "tags");
  for (const auto& [key, value] : it->items()) {
    const std::string field = "tags." + key;
    if (key.empty() || key.size() > 63 || key.find(':') != std::string::npos)
      throw unprocessable(
          "tag keys must be 1 to 63 characters without ':' (got \"" + key.substr(0, 80) + "\")",
          field);
    if (!value.is_string()) throw wrong_type(field, "a string", value);
    if (value.get_ref<const std::string&>().size() > 255)
      throw unprocessable("tag values are at most 255 characters", field);
  }
  return *it;
}

std::optional<Credentials> parse_credentials(const json& body) {
  auto it = body.find("credentials");
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_object()) throw wrong_type("credentials", "an object", *it);
  reject_unknown_keys(*it, {"username", "password"}, "credentials", ErrorKind::unprocessable);
  Credentials c;
  auto user = it->find("username");
  if (user == it->end() || !user->is_string())
    throw invalid("\"credentials.username\" must be a string", "credentials.username");
  auto pass = it->find("password");
  if (pass == it->end() || !pass->is_string())
    throw invalid("\"credentials.password\" must be a string", "credentials.password");
  c.username = user->get<std::string>();
  c.password = pass->get<std::string>();
  if (c.username.empty() || c.username.size() > 255)
    throw unprocessable("\"credentials.username\" must be 1 to 255 characters",
                        "credentials.username");
  if (c.password.size() > 1024)
    throw unprocessable("\"credentials.password\" is longer than 1024 characters",
                        "credentials.password");
  return c;
}

std::string resolve_driver(const std::string& driver, const Endpoint& ep) {
  if (driver == "auto") {
    if (ep.scheme == "ipmi") return "ipmi";
    if (ep.scheme == "https" || ep.scheme == "http") return "redfish";
    return "auto";  // a bare host: the enrollment probe decides
  }
  if (driver == "redfish" && ep.scheme != "https" && ep.scheme != "http")
    throw unprocessable("driver redfish needs an https:// (or http:// to opt out of TLS) endpoint",
                        "endpoint");
  if (driver == "ipmi" && ep.scheme != "ipmi")
    throw unprocessable("driver ipmi needs an ipmi://host[:port] endpoint", "endpoint");
  return driver;
}

}  // namespace

NodeSpec parse_node_spec(const json& body) {
  if (!body.is_object()) throw invalid("the request body must be a JSON object");
  reject_unknown_keys(body,
                      {"name", "project", "driver", "endpoint", "credentials", "location", "tags",
                       "options", "maintenance", "maintenance_reason"},
                      "", ErrorKind::unprocessable);
  NodeSpec spec;
  spec.name = required_string(body, "name");
  check_resource_name(spec.name, "node");
  spec.project = project_field(body);
  const std::string driver = required_string(body, "driver");
  if (driver != "redfish" && driver != "ipmi" && driver != "auto")
    throw unprocessable(
        "unknown driver \"" + driver.substr(0, 80) + "\": use redfish, ipmi or auto", "driver");
  const std::string endpoint_text = required_string(body, "endpoint");
  std::string why;
  auto endpoint = parse_endpoint(endpoint_text, why);
  if (!endpoint) throw unprocessable("invalid endpoint: " + why, "endpoint");
  if (endpoint->scheme.empty() && driver != "auto")
    throw unprocessable(
        "the endpoint needs a scheme (https://, http:// or ipmi://); only driver "
        "auto takes a bare host",
        "endpoint");
  spec.endpoint = *endpoint;
  spec.driver = resolve_driver(driver, spec.endpoint);
  spec.credentials = parse_credentials(body);
  spec.location = parse_location(body);
  spec.tags = parse_tags(body);
  if (auto it = body.find("options"); it != body.end() && !it->is_null()) {
    if (!it->is_object()) throw wrong_type("options", "an object", *it);
    validate_bmc_options(*it, spec.endpoint.scheme, spec.options, spec.kg);
  }
  if (auto it = body.find("maintenance"); it != body.end() && !it->is_null()) {
    if (!it->is_boolean()) throw wrong_type("maintenance", "a boolean", *it);
    spec.maintenance = it->get<bool>();
  }
  spec.maintenance_reason = optional_string(body, "maintenance_reason", "maintenance_reason", 1000);
  return spec;
}

json patchable_document(const Node& n) {
  return {
      {"name", n.name},
      {"project", n.project},
      {"driver", n.driver},
      {"endpoint", n.endpoint ? json(*n.endpoint) : json(nullptr)},
      {"options", n.options},
      {"location",
       {{"site", n.location.site ? json(*n.location.site) : json(nullptr)},
        {"rack", n.location.rack ? json(*n.location.rack) : json(nullptr)},
        {"unit", n.location.unit ? json(*n.location.unit) : json(nullptr)}}},
      {"tags", n.tags},
      {"maintenance", n.maintenance},
      {"maintenance_reason", n.maintenance_reason ? json(*n.maintenance_reason) : json(nullptr)}};
}

NodeSpec apply_node_patch(const Node& current, const std::optional<std::string>& current_kg,
                          const json& patch, bool& credentials_changed) {
  if (!patch.is_object()) throw invalid("the request body must be a JSON object");
  reject_unknown_keys(patch,
                      {"name", "project", "driver", "endpoint", "credentials", "location", "tags",
                       "options", "maintenance", "maintenance_reason"},
                      "", ErrorKind::unprocessable);
  json doc = patchable_document(current);
  for (const auto& [key, value] : patch.items()) {
    if (key == "credentials") continue;
    if (key == "options" || key == "location" || key == "tags") {
      if (!value.is_object() && !value.is_null()) throw wrong_type(key, "an object", value);
      merge_patch(doc[key], value);
    } else {
      doc[key] = value;
    }
  }
  // A write-only kg is not in the document; carry it unless the patch speaks about it.
  const auto patch_options = patch.find("options");
  const bool patch_speaks_of_kg =
      patch_options != patch.end() && patch_options->is_object() && patch_options->contains("kg");
  if (!patch_speaks_of_kg && current_kg && doc["options"].is_object())
    doc["options"]["kg"] = *current_kg;
  if (auto c = patch.find("credentials"); c != patch.end()) doc["credentials"] = *c;
  credentials_changed = patch.contains("credentials");
  NodeSpec spec = parse_node_spec(doc);
  // Probing a bare host happens at enrollment only; a stored node always has a concrete driver.
  if (spec.driver == "auto")
    throw unprocessable(
        "a changed endpoint needs its scheme (https://, http:// or ipmi://) or an explicit "
        "driver: only enrollment probes a bare host",
        "endpoint");
  return spec;
}

std::optional<int> parse_gpus_expected(const json& value) {
  if (value.is_null()) return std::nullopt;
  if (!value.is_number_integer() || value.get<std::int64_t>() < 1 ||
      value.get<std::int64_t>() > max_gpus_expected)
    throw unprocessable("\"gpus_expected\" must be a whole number from 1 to " +
                            std::to_string(max_gpus_expected) +
                            ", or null to take the count of the last inspection",
                        "gpus_expected");
  return static_cast<int>(value.get<std::int64_t>());
}

CloudNodePatch apply_cloud_node_patch(const Node& current, const json& patch) {
  if (!patch.is_object()) throw invalid("the request body must be a JSON object");
  for (const auto& [key, value] : patch.items())
    if (key == "project")
      throw unprocessable(
          "a cloud instance's node belongs to its cloud account's project: move the account", key);
    else if (key != "name" && key != "tags" && key != "maintenance" && key != "maintenance_reason")
      throw unprocessable("\"" + key + "\" of a cloud instance's node comes from its provider " +
                              "at every sync; only name, tags, maintenance and " +
                              "maintenance_reason can be changed here",
                          key);
  json doc = {{"name", current.name},
              {"tags", current.tags},
              {"maintenance", current.maintenance},
              {"maintenance_reason",
               current.maintenance_reason ? json(*current.maintenance_reason) : json(nullptr)}};
  for (const auto& [key, value] : patch.items()) {
    if (key == "tags") {
      if (!value.is_object() && !value.is_null()) throw wrong_type(key, "an object", value);
      merge_patch(doc[key], value);
    } else {
      doc[key] = value;
    }
  }
  CloudNodePatch out;
  out.name = required_string(doc, "name");
  check_resource_name(out.name, "node");
  out.tags = parse_tags(doc);
  if (!doc["maintenance"].is_boolean())
    throw wrong_type("maintenance", "a boolean", doc["maintenance"]);
  out.maintenance = doc["maintenance"].get<bool>();
  out.maintenance_reason = optional_string(doc, "maintenance_reason", "maintenance_reason", 1000);
  return out;
}

void merge_patch(json& target, const json& patch) {
  if (!patch.is_object()) {
    target = patch;
    return;
  }
  if (!target.is_object()) target = json::object();
  for (const auto& [key, value] : patch.items()) {
    if (value.is_null())
      target.erase(key);
    else
      merge_patch(target[key], value);
  }
}

bool split_tag_selector(std::string_view selector, std::string& key, std::string& value) {
  const auto colon = selector.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  key = selector.substr(0, colon);
  value = selector.substr(colon + 1);
  return true;
}

}  // namespace ironhold
