#pragma once
// A task: one action on one node (power, boot device, identify LED, reprovision, inspection),
// written to PostgreSQL before anything is sent and carried out by the task engine step by step.
// Steps are what makes a resumed task honest: a step that talks to a BMC or provider is recorded
// as "sending" before it sends, so a worker that takes over after a crash knows the action may
// have happened and checks the target instead of sending it again.
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/model/enums.hpp"

namespace ironhold {

// clean: a release's cleaning of an owned server (power off, verified), moving its lifecycle on.
// bios: an owned server's BIOS attributes (and boot order) written, applied by a reset, verified.
// credentials: the password of the BMC account Ironhold uses changed, verified, then stored.
enum class TaskKind {
  power,
  boot,
  identify,
  reprovision,
  inspect,
  clean,
  firmware,
  bios,
  credentials
};
enum class TaskState { queued, running, succeeded, failed, cancelled };
// pending: not started. sending: the request is about to go out, or went out and its answer was
// not recorded (in doubt after a crash). running: sent, now waiting or checking. The rest are
// final.
enum class StepState { pending, sending, running, succeeded, failed, skipped, cancelled };

std::string_view to_string(TaskKind);
std::string_view to_string(TaskState);
std::string_view to_string(StepState);
template <>
std::optional<TaskKind> parse_enum<TaskKind>(std::string_view);
template <>
std::optional<TaskState> parse_enum<TaskState>(std::string_view);
template <>
std::optional<StepState> parse_enum<StepState>(std::string_view);
template <>
std::span<const std::string_view> enum_names<TaskKind>();
template <>
std::span<const std::string_view> enum_names<TaskState>();
template <>
std::span<const std::string_view> enum_names<StepState>();

bool is_final(TaskState state);

struct TaskStep {
  std::string name;
  StepState state = StepState::pending;
  std::optional<std::string> started_at, finished_at;  // RFC 3339 UTC
  std::string detail;  // what was sent, seen or decided, for a person
  // Set when a resumed worker found this step "sending": whether the action had happened, how
  // that was decided (the evidence read from the target), and what was done about it.
  std::optional<std::string> in_doubt;
  // What a resumed worker needs from this step (the reset time read before a reset was sent);
  // null when nothing.
  nlohmann::json data;
};

struct Task {
  std::string id;
  TaskKind kind = TaskKind::power;
  std::optional<std::string> node_id, node_name;
  std::optional<std::string> project;                    // its node's project when it was created
  nlohmann::json parameters = nlohmann::json::object();  // never holds a write-only secret
  TaskState state = TaskState::queued;
  std::vector<TaskStep> steps;
  int attempts = 0;       // claims: more than one means a worker took it over (or it was retried)
  nlohmann::json result;  // null until it ends; what the task established (final power state, ...)
  std::optional<std::string> error;
  std::optional<std::string> requested_by, bulk_id;
  bool automatic = false;  // started by Ironhold itself (a rollout), not by a person
  bool cancel_requested = false;
  std::optional<std::string> cancelled_by;
  std::optional<std::string> created_at, started_at, finished_at, updated_at;
};

nlohmann::json to_json(const TaskStep& step);
nlohmann::json to_json(const Task& task);
nlohmann::json steps_to_json(std::span<const TaskStep> steps);
// The steps column as the database holds it; a malformed entry becomes a failed step saying so
// rather than an exception, so one damaged row cannot stop the engine.
std::vector<TaskStep> steps_from_json(const nlohmann::json& steps);

// What a request to create a task asks for, validated. Secrets (an admin password) are kept
// apart from the parameters, which are shown by the API and kept in the audit trail.
struct TaskParameters {
  nlohmann::json parameters = nlohmann::json::object();
  nlohmann::json secrets = nlohmann::json::object();
};

// The body of POST /nodes/{id}/power|boot|identify|reprovision (and a bulk action's
// "parameters"), checked for `kind`: invalid (400) for wrong types and unknown fields,
// unprocessable (422) for values out of range. Defaults are filled in, so that the stored
// parameters say exactly what will be done.
TaskParameters parse_task_parameters(TaskKind kind, const nlohmann::json& body);

}  // namespace ironhold
