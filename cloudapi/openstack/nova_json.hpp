#pragma once
// Nova's JSON for the OpenStack driver, as pure functions: version discovery and the microversion
// to ask for, servers/detail pages and their next marker, a server turned into a CloudInstance
// (states by the table in nova_state.cpp, GPUs from flavor extra specs in nova_gpu.cpp), flavors,
// and Nova's error bodies.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cloudapi/common/gpu.hpp"
#include "inventory/drivers/cloud_driver.hpp"

namespace ironhold::cloudapi::openstack {

// A compute microversion 2.<minor>; Nova has never had another major.
struct Microversion {
  int minor = 1;
  std::string text() const { return "2." + std::to_string(minor); }
  friend auto operator<=>(const Microversion&, const Microversion&) = default;
};

// The highest microversion whose answers this driver reads (v2.100 adds nothing it needs, and
// nothing it cannot read). 2.47 embeds the flavor with its extra_specs in each server.
inline constexpr Microversion kHighestMicroversion{100};
inline constexpr Microversion kEmbeddedFlavor{47};

// "2.47" -> {47}; absent for anything else ("", "latest", "3.1").
std::optional<Microversion> parse_microversion(std::string_view text);

struct ComputeVersions {
  std::optional<Microversion> min;  // absent: the server has no microversions (plain v2.1)
  std::optional<Microversion> max;
};

// GET / ({"versions": [...]}, the CURRENT v2.1 entry) or GET /v2.1/ ({"version": {...}}).
// Absent when the document is neither.
std::optional<ComputeVersions> parse_compute_versions(const nlohmann::json& doc);

// The highest version both sides speak; absent when the server has no microversions (send no
// header) or when its minimum is above what we read.
std::optional<Microversion> choose_microversion(const ComputeVersions& versions,
                                                Microversion highest = kHighestMicroversion);

struct ServersPage {
  std::vector<nlohmann::json> servers;
  std::optional<std::string> next_marker;  // from servers_links rel=next (its marker= parameter)
};

// {"servers": [...], "servers_links": [...]}. Throws ironhold::Error (invalid) when there is no
// servers array.
ServersPage parse_servers_page(const nlohmann::json& doc);

// The marker= query parameter of a link, percent-decoded.
std::optional<std::string> marker_of(std::string_view href);

struct Flavor {
  std::string id;  // empty for an embedded flavor (2.47+ names it only by original_name)
  std::string name;
  int vcpus = 0;
  long long ram_mib = 0;
  long long disk_gb = 0;
  nlohmann::json extra_specs = nlohmann::json::object();
};

// One flavor of flavors/detail or GET /flavors/{id} ("flavor" unwrapped by the caller).
std::optional<Flavor> parse_flavor(const nlohmann::json& flavor);
// {"flavors": [...]}; entries that are not flavors are skipped. Throws ironhold::Error (invalid)
// without a flavors array.
std::vector<Flavor> parse_flavors(const nlohmann::json& doc);
// {"extra_specs": {...}} of os-extra_specs, string values only. Throws ironhold::Error (invalid).
nlohmann::json parse_extra_specs(const nlohmann::json& doc);

// The flavor a 2.47+ server embeds ({original_name, vcpus, ram, extra_specs}); absent when the
// server carries only {"id", "links"} (older microversions).
std::optional<Flavor> embedded_flavor(const nlohmann::json& server);
// The flavor id of a pre-2.47 server; absent when the flavor is embedded.
std::optional<std::string> flavor_id(const nlohmann::json& server);

// GPUs a flavor's extra specs ask for: "pci_passthrough:alias" ("a100:8", "a100:4,nvme:1"),
// "resources[N]:VGPU", "resources[N]:PGPU" and GPU-like custom classes
// ("resources:CUSTOM_GPU_H100"). `aliases` is the account's options["gpu_aliases"] (alias -> model
// name, e.g. {"a100": "NVIDIA A100"}); an alias it does not name counts only when it looks like a
// GPU ("a100", "l40s").
GpuFacts gpus_from_extra_specs(const nlohmann::json& extra_specs, const nlohmann::json& aliases);

struct ServerState {
  PowerState power = PowerState::unknown;
  bool gone = false;
  Health health = Health::unknown;
};

// status + OS-EXT-STS:power_state + OS-EXT-STS:task_state -> the normalized state (the table is in
// nova_state.cpp).
ServerState map_server_state(std::string_view status, std::optional<long long> power_state,
                             std::optional<std::string_view> task_state, bool has_fault);

// A servers/detail entry (or GET /servers/{id}'s "server") as a CloudInstance. `flavor` is the
// embedded flavor, or the one looked up by id for older microversions (absent: unknown).
// Throws ironhold::Error (invalid) when the server has no id.
CloudInstance server_to_instance(const nlohmann::json& server, const std::optional<Flavor>& flavor,
                                 const nlohmann::json& gpu_aliases);

// "conflictingRequest (409): Cannot 'start' instance ..." from Nova's {"<kind>": {"code",
// "message"}}, or Keystone's {"error": {...}}; absent when the body is neither.
std::optional<std::string> nova_error_message(std::string_view body);

// "2013-09-03T04:01:32Z" from any RFC 3339 time, or Nova's zone-less "2013-09-23T13:53:12.774549"
// (UTC); absent when it is not a time.
std::optional<std::string> utc_seconds(std::string_view text);

}  // namespace ironhold::cloudapi::openstack
