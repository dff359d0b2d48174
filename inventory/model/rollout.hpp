#pragma once
// A firmware rollout: one image to every node a selector matched, staged like a canary release.
// The canary nodes go first (batch 0), then batches of batch_size; a batch starts only when the
// one before it has ended. Each node's update is a firmware task, then a health gate: the node
// must stay healthy and on the new version for health_gate_seconds. A failing canary, failures
// beyond max_failures, or a node turning unhealthy in its gate halt the rollout.
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "inventory/model/enums.hpp"
#include "inventory/model/node_query.hpp"

namespace ironhold {

enum class RolloutState { running, paused, halted, aborted, succeeded };
enum class RolloutNodeState { pending, updating, gating, succeeded, failed, skipped, cancelled };
std::string_view to_string(RolloutState state);
std::string_view to_string(RolloutNodeState state);
template <>
std::optional<RolloutState> parse_enum<RolloutState>(std::string_view);
template <>
std::optional<RolloutNodeState> parse_enum<RolloutNodeState>(std::string_view);
template <>
std::span<const std::string_view> enum_names<RolloutState>();
template <>
std::span<const std::string_view> enum_names<RolloutNodeState>();

// Ended for good: succeeded, failed, skipped or cancelled.
bool is_final(RolloutNodeState state);

// POST /api/v1/firmware/rollouts, validated.
struct RolloutSpec {
  std::string image;                // the firmware image's id
  nlohmann::json selector;          // as given, for the record
  NodeFilter filter;                // parsed from it, limited to the project
  std::string project = "default";  // a rollout updates the nodes of one project
  int canary = 1;                   // nodes updated first, alone in their batch
  int batch_size = 10;              // nodes per batch after the canary
  int max_parallel_per_rack = 2;
  int max_failures = 0;  // failed nodes tolerated before the rollout halts
  int health_gate_seconds = 300;
  nlohmann::json task_parameters = nlohmann::json::object();  // reset, timeout_s
};

// Invalid (400) for wrong types and unknown fields, unprocessable (422) for values out of range
// and for an empty selector.
RolloutSpec parse_rollout_spec(const nlohmann::json& body);

struct RolloutNode {
  std::string node_id, node_name;
  std::optional<std::string> rack;  // "site/rack"; none: the node is not in a rack
  int position = 0;
  int batch = 0;
  RolloutNodeState state = RolloutNodeState::pending;
  std::optional<std::string> task_id, health_before, from_version, gate_until, error;
  std::optional<std::string> started_at, finished_at;
};

struct Rollout {
  std::string id;
  std::string image_id, image_name, component, version;
  nlohmann::json selector = nlohmann::json::object();
  std::string project = "default";
  int canary = 0, batch_size = 1, max_parallel_per_rack = 1, max_failures = 0;
  int health_gate_seconds = 0;
  nlohmann::json task_parameters = nlohmann::json::object();
  RolloutState state = RolloutState::running;
  std::optional<std::string> halt_reason, requested_by;
  int failures_accepted = 0;
  std::string created_at, updated_at;
  std::optional<std::string> finished_at;
  std::vector<RolloutNode> nodes;
};

// The API's form; `with_nodes` adds the per-node progress (GET of one rollout). `counts` (nodes
// per state) and `batches` are always there.
nlohmann::json to_json(const Rollout& rollout, bool with_nodes);

// Which pending nodes to start now: those of the current batch (the lowest one with a node not
// yet ended), in order, while their rack has fewer than max_parallel_per_rack nodes updating or
// in their gate (a node without a rack counts alone). Indexes into `nodes`.
std::vector<std::size_t> nodes_to_start(std::span<const RolloutNode> nodes,
                                        int max_parallel_per_rack);

}  // namespace ironhold
