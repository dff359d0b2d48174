#include "inventory/model/rollout.hpp"

#include <map>

#include "inventory/model/json_fields.hpp"
#include "inventory/model/node.hpp"
#include "inventory/model/task.hpp"

namespace ironhold {
namespace {

using nlohmann::json;

constexpr std::string_view rollout_state_names[] = {"running", "paused", "halted", "aborted",
                                                    "succeeded"};
constexpr std::string_view node_state_names[] = {"pending", "updating", "gating",   "succeeded",
                                                 "failed",  "skipped",  "cancelled"};

// A whole number in [min, max], or `fallback` when absent.
int bounded_int(const json& body, const char* field, int min, int max, int fallback) {
  const auto it = body.find(field);
  if (it == body.end() || it->is_null()) return fallback;
  if (!it->is_number_integer()) throw wrong_type(field, "a whole number", *it);
  const auto value = it->get<long long>();
  if (value < min || value > max)
    throw unprocessable("\"" + std::string(field) + "\" must be between " + std::to_string(min) +
                            " and " + std::to_string(max),
                        field);
  return static_cast<int>(value);
}

json nullable_json(const std::optional<std::string>& value) {
  return value ? json(*value) : json(nullptr);
}

}  // namespace

std::string_view to_string(RolloutState v) {
  return rollout_state_names[static_cast<int>(v)];
}
std::string_view to_string(RolloutNodeState v) {
  return node_state_names[static_cast<int>(v)];
}
template <>
std::optional<RolloutState> parse_enum<RolloutState>(std::string_view s) {
  return enum_from_names<RolloutState>(rollout_state_names, s);
}
template <>
std::optional<RolloutNodeState> parse_enum<RolloutNodeState>(std::string_view s) {
  return enum_from_names<RolloutNodeState>(node_state_names, s);
}
template <>
std::span<const std::string_view> enum_names<RolloutState>() {
  return rollout_state_names;
}
template <>
std::span<const std::string_view> enum_names<RolloutNodeState>() {
  return node_state_names;
}

bool is_final(RolloutNodeState s) {
  return s == RolloutNodeState::succeeded || s == RolloutNodeState::failed ||
         s == RolloutNodeState::skipped || s == RolloutNodeState::cancelled;
}

RolloutSpec parse_rollout_spec(const json& body) {
  if (!body.is_object()) throw invalid("the body must be a JSON object");
  reject_unknown_keys(
      body,
      {"image", "selector", "project", "canary", "batch_size", "max_parallel_per_rack",
       "max_failures", "health_gate_seconds", "reset", "timeout_s", "transfer"},
      "", ErrorKind::invalid);
  RolloutSpec spec;
  spec.image = required_string(body, "image");
  if (!is_uuid(spec.image))
    throw unprocessable("\"image\" must be the id of an uploaded firmware image", "image");
  if (!body.contains("selector")) throw invalid("\"selector\" is required", "selector");
  spec.selector = body["selector"];
  spec.filter = parse_node_selector(spec.selector);
  spec.project = project_field(body);
  spec.filter.scope = std::vector<std::string>{spec.project};
  spec.canary = bounded_int(body, "canary", 0, 100, 1);
  spec.batch_size = bounded_int(body, "batch_size", 1, 1000, 10);
  spec.max_parallel_per_rack = bounded_int(body, "max_parallel_per_rack", 1, 1000, 2);
  spec.max_failures = bounded_int(body, "max_failures", 0, 10000, 0);
  spec.health_gate_seconds = bounded_int(body, "health_gate_seconds", 0, 86400, 300);
  // Each node's task takes the single-node route's parameters, checked the same way.
  json task = {{"image", spec.image}};
  if (body.contains("reset")) task["reset"] = body["reset"];
  if (body.contains("timeout_s")) task["timeout_s"] = body["timeout_s"];
  if (body.contains("transfer")) task["transfer"] = body["transfer"];
  spec.task_parameters = parse_task_parameters(TaskKind::firmware, task).parameters;
  return spec;
}

json to_json(const Rollout& r, bool with_nodes) {
  std::map<std::string, int> counts;
  for (const auto name : node_state_names) counts[std::string(name)] = 0;
  int batches = 0;
  for (const auto& n : r.nodes) {
    ++counts[std::string(to_string(n.state))];
    batches = std::max(batches, n.batch + 1);
  }
  json out = {{"id", r.id},
              {"image",
               {{"id", r.image_id},
                {"name", r.image_name},
                {"component", r.component},
                {"version", r.version}}},
              {"selector", r.selector},
              {"project", r.project},
              {"canary", r.canary},
              {"batch_size", r.batch_size},
              {"max_parallel_per_rack", r.max_parallel_per_rack},
              {"max_failures", r.max_failures},
              {"health_gate_seconds", r.health_gate_seconds},
              {"task_parameters", r.task_parameters},
              {"state", to_string(r.state)},
              {"halt_reason", nullable_json(r.halt_reason)},
              {"failures_accepted", r.failures_accepted},
              {"requested_by", nullable_json(r.requested_by)},
              {"matched", r.nodes.size()},
              {"batches", batches},
              {"counts", counts},
              {"created_at", r.created_at},
              {"updated_at", r.updated_at},
              {"finished_at", nullable_json(r.finished_at)}};
  if (with_nodes) {
    json nodes = json::array();
    for (const auto& n : r.nodes)
      nodes.push_back({{"node_id", n.node_id},
                       {"node_name", n.node_name},
                       {"rack", nullable_json(n.rack)},
                       {"batch", n.batch},
                       {"canary", n.batch == 0 && r.canary > 0},
                       {"state", to_string(n.state)},
                       {"task_id", nullable_json(n.task_id)},
                       {"from_version", nullable_json(n.from_version)},
                       {"health_before", nullable_json(n.health_before)},
                       {"gate_until", nullable_json(n.gate_until)},
                       {"error", nullable_json(n.error)},
                       {"started_at", nullable_json(n.started_at)},
                       {"finished_at", nullable_json(n.finished_at)}});
    out["nodes"] = std::move(nodes);
  }
  return out;
}

std::vector<std::size_t> nodes_to_start(std::span<const RolloutNode> nodes,
                                        int max_parallel_per_rack) {
  std::optional<int> current;
  for (const auto& n : nodes)
    if (!is_final(n.state) && (!current || n.batch < *current)) current = n.batch;
  if (!current) return {};
  std::map<std::string, int> busy;  // nodes updating or gating, per rack
  for (const auto& n : nodes)
    if (n.rack && (n.state == RolloutNodeState::updating || n.state == RolloutNodeState::gating))
      ++busy[*n.rack];
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& n = nodes[i];
    if (n.batch != *current || n.state != RolloutNodeState::pending) continue;
    if (n.rack) {
      int& used = busy[*n.rack];
      if (used >= max_parallel_per_rack) continue;
      ++used;
    }
    out.push_back(i);
  }
  return out;
}

}  // namespace ironhold
