#include "cloudapi/openstack/nova_json.hpp"

#include <charconv>
#include <ctime>

#include "cloudapi/openstack/json_fields.hpp"
#include "inventory/error.hpp"
#include "inventory/util/percent_decode.hpp"
#include "inventory/util/time.hpp"

namespace ironhold::cloudapi::openstack {

using nlohmann::json;

namespace {

std::optional<ComputeVersions> versions_of(const json& entry) {
  if (!entry.is_object()) return std::nullopt;
  ComputeVersions out;
  out.min = parse_microversion(string_or(entry, "min_version", ""));
  out.max = parse_microversion(string_or(entry, "version", ""));
  return out;
}

// Nova's servers' metadata values are strings, but nothing stops another server from sending
// numbers: they are kept as their JSON text.
json string_map(const json& object) {
  json out = json::object();
  if (!object.is_object()) return out;
  for (const auto& [key, value] : object.items())
    out[key] = value.is_string() ? value.get<std::string>() : value.dump();
  return out;
}

void copy_if_present(const json& from, const char* key, json& to, const char* as) {
  if (!from.is_object()) return;
  const auto it = from.find(key);
  if (it != from.end() && !it->is_null()) to[as] = *it;
}

}  // namespace

std::optional<Microversion> parse_microversion(std::string_view text) {
  if (text.size() < 3 || text.substr(0, 2) != "2.") return std::nullopt;
  int minor = 0;
  const char* first = text.data() + 2;
  const char* last = text.data() + text.size();
  const auto [p, ec] = std::from_chars(first, last, minor);
  if (ec != std::errc{} || p != last || minor < 0) return std::nullopt;
  return Microversion{minor};
}

std::optional<ComputeVersions> parse_compute_versions(const json& doc) {
  if (!doc.is_object()) return std::nullopt;
  if (const auto& version = object_field(doc, "version"); version.is_object())
    return versions_of(version);
  const auto versions = doc.find("versions");
  if (versions == doc.end() || !versions->is_array()) return std::nullopt;
  // The v2.1 API is the one with microversions; v2.0 (legacy) reports "" for both.
  for (const auto& entry : *versions)
    if (string_or(entry, "id", "") == "v2.1") return versions_of(entry);
  for (const auto& entry : *versions)
    if (string_or(entry, "status", "") == "CURRENT") return versions_of(entry);
  return std::nullopt;
}

std::optional<Microversion> choose_microversion(const ComputeVersions& versions,
                                                Microversion highest) {
  if (!versions.max) return std::nullopt;
  if (versions.min && *versions.min > highest) return std::nullopt;
  return std::min(*versions.max, highest);
}

std::optional<std::string> marker_of(std::string_view href) {
  const auto question = href.find('?');
  if (question == std::string_view::npos) return std::nullopt;
  std::string_view query = href.substr(question + 1);
  if (const auto hash = query.find('#'); hash != std::string_view::npos)
    query = query.substr(0, hash);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (pair.substr(0, 7) != "marker=") continue;
    std::string value;
    if (!percent_decode(pair.substr(7), value) || value.empty()) return std::nullopt;
    return value;
  }
  return std::nullopt;
}

ServersPage parse_servers_page(const json& doc) {
  ServersPage out;
  const auto servers = doc.is_object() ? doc.find("servers") : doc.end();
  if (!doc.is_object() || servers == doc.end() || !servers->is_array())
    throw invalid("Nova's servers answer has no \"servers\" array");
  for (const auto& server : *servers)
    if (server.is_object()) out.servers.push_back(server);
  if (const auto links = doc.find("servers_links"); links != doc.end() && links->is_array()) {
    for (const auto& link : *links) {
      if (string_or(link, "rel", "") != "next") continue;
      out.next_marker = marker_of(string_or(link, "href", ""));
    }
  }
  return out;
}

std::optional<Flavor> parse_flavor(const json& flavor) {
  if (!flavor.is_object()) return std::nullopt;
  Flavor out;
  out.id = string_or(flavor, "id", "");
  out.name = string_field(flavor, "name").value_or(string_or(flavor, "original_name", ""));
  const auto vcpus = integer_field(flavor, "vcpus");
  const auto ram = integer_field(flavor, "ram");
  if (out.name.empty() && out.id.empty()) return std::nullopt;
  if (!vcpus || !ram) return std::nullopt;
  out.vcpus = static_cast<int>(*vcpus);
  out.ram_mib = *ram;
  out.disk_gb = integer_field(flavor, "disk").value_or(0);
  out.extra_specs = string_map(object_field(flavor, "extra_specs"));
  return out;
}

std::vector<Flavor> parse_flavors(const json& doc) {
  const auto flavors = doc.is_object() ? doc.find("flavors") : doc.end();
  if (!doc.is_object() || flavors == doc.end() || !flavors->is_array())
    throw invalid("Nova's flavors answer has no \"flavors\" array");
  std::vector<Flavor> out;
  for (const auto& entry : *flavors)
    if (auto flavor = parse_flavor(entry)) out.push_back(std::move(*flavor));
  return out;
}

json parse_extra_specs(const json& doc) {
  const json& specs = object_field(doc, "extra_specs");
  if (!specs.is_object()) throw invalid("Nova's os-extra_specs answer has no \"extra_specs\"");
  return string_map(specs);
}

std::optional<Flavor> embedded_flavor(const json& server) {
  const json& flavor = object_field(server, "flavor");
  if (!flavor.contains("original_name")) return std::nullopt;
  return parse_flavor(flavor);
}

std::optional<std::string> flavor_id(const json& server) {
  const json& flavor = object_field(server, "flavor");
  if (flavor.contains("original_name")) return std::nullopt;
  return string_field(flavor, "id");
}

std::optional<std::string> utc_seconds(std::string_view text) {
  std::string zoned(text);
  // Nova's OS-SRV-USG times are UTC without a zone.
  if (!zoned.empty() && zoned.back() != 'Z' && zoned.find('+', 10) == std::string::npos &&
      zoned.find('-', 10) == std::string::npos)
    zoned += 'Z';
  const auto time = parse_rfc3339(zoned);
  if (!time) return std::nullopt;
  const std::time_t secs = std::chrono::system_clock::to_time_t(*time);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[80];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return std::string(buf);
}

CloudInstance server_to_instance(const json& server, const std::optional<Flavor>& flavor,
                                 const json& gpu_aliases) {
  CloudInstance out;
  const auto id = string_field(server, "id");
  if (!id || id->empty()) throw invalid("a Nova server without an id");
  out.provider_id = *id;
  out.name = string_or(server, "name", "");
  out.provider_state = string_or(server, "status", "");

  const auto task_state = string_field(server, "OS-EXT-STS:task_state");
  const json& fault = object_field(server, "fault");
  const ServerState state = map_server_state(
      out.provider_state, integer_field(server, "OS-EXT-STS:power_state"),
      task_state ? std::optional<std::string_view>(*task_state) : std::nullopt, fault.is_object());
  out.power_state = state.power;
  out.gone = state.gone;
  out.health = state.health;
  if (fault.is_object())
    out.status_detail = string_or(fault, "message", "fault " + string_or(fault, "code", ""));
  else if (out.health == Health::critical)
    out.status_detail = "server status " + out.provider_state;

  out.zone = string_field(server, "OS-EXT-AZ:availability_zone");
  if (out.zone && out.zone->empty()) out.zone.reset();

  // Boot-from-volume servers answer "image": "" instead of an object.
  if (const auto image = string_field(object_field(server, "image"), "id");
      image && !image->empty())
    out.image_id = *image;

  if (const auto created = string_field(server, "created")) out.launched_at = utc_seconds(*created);
  if (!out.launched_at)
    if (const auto launched = string_field(server, "OS-SRV-USG:launched_at"))
      out.launched_at = utc_seconds(*launched);

  if (flavor) {
    out.instance_type = flavor->name.empty() ? flavor->id : flavor->name;
    out.summary.cpu_count = flavor->vcpus;
    out.summary.memory_gib = static_cast<double>(flavor->ram_mib) / 1024.0;
    add_gpus(out, gpus_from_extra_specs(flavor->extra_specs, gpu_aliases));
    if (!flavor->id.empty()) out.details["flavor_id"] = flavor->id;
    if (!flavor->extra_specs.empty()) out.details["flavor_extra_specs"] = flavor->extra_specs;
  } else if (const auto id_of_flavor = flavor_id(server)) {
    out.instance_type = *id_of_flavor;
    out.details["flavor_id"] = *id_of_flavor;
  }

  out.tags = string_map(object_field(server, "metadata"));

  copy_if_present(server, "addresses", out.details, "addresses");
  copy_if_present(server, "accessIPv4", out.details, "access_ipv4");
  copy_if_present(server, "accessIPv6", out.details, "access_ipv6");
  copy_if_present(server, "key_name", out.details, "key_name");
  copy_if_present(server, "hostId", out.details, "host_id");
  copy_if_present(server, "OS-EXT-SRV-ATTR:host", out.details, "host");
  copy_if_present(server, "OS-EXT-SRV-ATTR:hypervisor_hostname", out.details,
                  "hypervisor_hostname");
  copy_if_present(server, "OS-EXT-STS:vm_state", out.details, "vm_state");
  copy_if_present(server, "OS-EXT-STS:task_state", out.details, "task_state");
  copy_if_present(server, "OS-EXT-STS:power_state", out.details, "power_state");
  copy_if_present(server, "locked", out.details, "locked");
  copy_if_present(server, "tags", out.details, "server_tags");
  copy_if_present(server, "updated", out.details, "updated");
  if (out.details.contains("access_ipv4") && out.details["access_ipv4"] == "")
    out.details.erase("access_ipv4");
  if (out.details.contains("access_ipv6") && out.details["access_ipv6"] == "")
    out.details.erase("access_ipv6");
  return out;
}

std::optional<std::string> nova_error_message(std::string_view body) {
  const json doc = json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  if (doc.contains("error") && doc["error"].is_object()) {
    const json& error = doc["error"];
    std::string out = string_or(error, "title", "error");
    if (const auto code = integer_field(error, "code")) out += " (" + std::to_string(*code) + ")";
    return out + ": " + string_or(error, "message", "");
  }
  // Nova wraps a fault in one key named after its kind: itemNotFound, conflictingRequest, ...
  if (doc.size() != 1) return std::nullopt;
  for (const auto& [kind, fault] : doc.items()) {
    if (!fault.is_object() || !fault.contains("message")) return std::nullopt;
    std::string out = kind;
    if (const auto code = integer_field(fault, "code")) out += " (" + std::to_string(*code) + ")";
    return out + ": " + string_or(fault, "message", "");
  }
  return std::nullopt;
}

}  // namespace ironhold::cloudapi::openstack
