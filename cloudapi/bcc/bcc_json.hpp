#pragma once
// BCC v2 response bodies (key names from the Go SDK's model.go) read into the normalized model:
// the instance list page, one instance's detail, the flavorSpec catalogue (GPU facts per spec)
// and the error body. Bodies are untrusted: a body that is not JSON or has a wrong type where a
// value is read throws ironhold::Error (invalid) naming the key; keys nobody reads are ignored.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/drivers/cloud_driver.hpp"

namespace ironhold::cloudapi::bcc {

struct BccListPage {
  std::string marker;
  bool is_truncated = false;
  std::string next_marker;
  int max_keys = 0;
  std::vector<nlohmann::json> instances;  // InstanceModel objects, mapped by instance_from_model
};

// What flavorSpec says about one spec.
struct BccFlavorFacts {
  std::string spec;
  std::string gpu_card_type;  // "A100"; empty when the flavor has no GPU
  int gpu_card_count = 0;
  int cpu_count = 0;
  int memory_gib = 0;
};
using BccFlavorCatalog = std::map<std::string, BccFlavorFacts>;  // by spec

struct BccErrorBody {
  std::string request_id;
  std::string code;
  std::string message;
};

// {"marker", "isTruncated", "nextMarker", "maxKeys", "instances": [...]}
BccListPage parse_list_instances(std::string_view body);
// {"instance": {...}} -> the instance object.
nlohmann::json parse_instance_detail(std::string_view body);
// zoneResources[].bccResources.flavorGroups[].flavors[]; the first entry wins for a spec that
// several zones offer.
BccFlavorCatalog parse_flavor_spec(std::string_view body);
// {"requestId", "code", "message"}; nullopt when the body is not that shape.
std::optional<BccErrorBody> parse_error_body(std::string_view body);

// Whether this instance's GPU facts can only come from flavorSpec: no gpuCard, but a spec.
bool needs_flavor_facts(const nlohmann::json& model);

// One InstanceModel as a CloudInstance. `flavors` (may be null) fills GPU facts that the
// instance does not carry itself.
CloudInstance instance_from_model(const nlohmann::json& model,
                                  const BccFlavorCatalog* flavors = nullptr);

}  // namespace ironhold::cloudapi::bcc
