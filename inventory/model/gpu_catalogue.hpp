#pragma once
// The GPU catalogue (migration 0024): canonical GPU models, and the aliases that map every string a
// BMC, an IPMI FRU or a cloud provider gives (a GPU's name, or an instance type) to one of them.
// The hardware summary's gpu_model is the canonical name; strings no alias maps are "unmapped".
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ironhold {

// What an alias names: a GPU ("NVIDIA H100 80GB HBM3") or a cloud instance type ("p5.48xlarge",
// tried first for cloud nodes). An alias ending in '*' is a prefix ("g5.*").
struct GpuAlias {
  std::string kind;  // "gpu" | "instance_type"
  std::string alias;
};

struct GpuModel {
  std::string name;  // the canonical name: "NVIDIA H100 SXM5 80GB"
  std::string vendor, family, model;
  std::optional<double> memory_gib;
  std::string form_factor;  // "SXM" | "PCIe" | "OAM" | "other"
  std::vector<GpuAlias> aliases;
  long long nodes = 0;  // nodes in service (of the caller's projects) whose gpu_model it is
  long long gpus = 0;   // the GPUs those nodes hold
  std::optional<std::string> updated_by;
  std::string updated_at;
};

// The body of PUT /api/v1/gpu-models/{name}: {vendor, family, model, memory_gib?, form_factor,
// name? (a new name: renames), aliases? ([{kind, alias}]: replaces the model's aliases)}.
struct GpuModelSpec {
  std::string name;
  std::string vendor, family, model;
  std::optional<double> memory_gib;
  std::string form_factor;
  std::optional<std::vector<GpuAlias>> aliases;  // absent: the aliases stay as they are
};

// `path_name` is the {name} of the route. Invalid (400) for wrong types and unknown keys,
// unprocessable (422) for empty or overlong strings, a form factor outside the four, a memory
// size that is not positive, an alias kind that is neither "gpu" nor "instance_type".
GpuModelSpec parse_gpu_model_spec(const std::string& path_name, const nlohmann::json& body);
// The body of POST /api/v1/gpu-models/{name}/aliases: {kind?: "gpu" (default), alias}.
GpuAlias parse_gpu_alias(const nlohmann::json& body);
void check_gpu_alias(const GpuAlias& alias, const std::string& field);

// A string some node's driver gave that no alias maps, with where it was seen: what an admin
// needs to decide which canonical model it is.
struct UnmappedGpu {
  std::string name;  // the raw string
  long long nodes = 0;
  long long bmc_nodes = 0, cloud_nodes = 0;
  std::vector<std::string> drivers;         // "redfish", "ec2", ...
  std::vector<std::string> instance_types;  // the cloud nodes' instance types, to alias instead
  std::vector<std::string> example_nodes;   // up to three node names
};

nlohmann::json to_json(const GpuAlias& alias);
nlohmann::json to_json(const GpuModel& model);
nlohmann::json to_json(const UnmappedGpu& unmapped);

}  // namespace ironhold
