#include "inventory/model/task.hpp"

#include <set>

#include "inventory/drivers/node_driver.hpp"
#include "inventory/model/bios.hpp"
#include "inventory/model/json_fields.hpp"
#include "inventory/model/mac_address.hpp"

namespace ironhold {
namespace {

using nlohmann::json;

constexpr std::string_view kind_names[] = {"power",       "boot",    "identify",
                                           "reprovision", "inspect", "clean",
                                           "firmware",    "bios",    "credentials"};
constexpr std::string_view state_names[] = {"queued", "running", "succeeded", "failed",
                                            "cancelled"};
constexpr std::string_view step_state_names[] = {"pending", "sending", "running",  "succeeded",
                                                 "failed",  "skipped", "cancelled"};

json optional_text(const std::optional<std::string>& value) {
  return value ? json(*value) : json(nullptr);
}

std::optional<std::string> text_or_null(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

// A whole number of seconds in [min, max], or `fallback` when absent.
int bounded_seconds(const json& body, const char* field, int min, int max, int fallback) {
  auto it = body.find(field);
  if (it == body.end() || it->is_null()) return fallback;
  if (!it->is_number_integer()) throw wrong_type(field, "a whole number of seconds", *it);
  const auto value = it->get<long long>();
  if (value < min || value > max)
    throw unprocessable("\"" + std::string(field) + "\" must be between " + std::to_string(min) +
                            " and " + std::to_string(max) + " seconds",
                        field);
  return static_cast<int>(value);
}

bool required_bool(const json& body, const char* field) {
  auto it = body.find(field);
  if (it == body.end() || it->is_null())
    throw invalid("\"" + std::string(field) + "\" is required", field);
  if (!it->is_boolean()) throw wrong_type(field, "true or false", *it);
  return it->get<bool>();
}

bool optional_bool(const json& body, const char* field, bool fallback) {
  auto it = body.find(field);
  if (it == body.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) throw wrong_type(field, "true or false", *it);
  return it->get<bool>();
}

// One of an enum's names, or unprocessable listing them.
template <class E>
std::string required_choice(const json& body, const char* field) {
  const std::string value = required_string(body, field);
  if (!parse_enum<E>(value))
    throw unprocessable("\"" + std::string(field) + "\" must be " + join_names(enum_names<E>()) +
                            ", not \"" + value + "\"",
                        field);
  return value;
}

}  // namespace

std::string_view to_string(TaskKind v) {
  return kind_names[static_cast<int>(v)];
}
std::string_view to_string(TaskState v) {
  return state_names[static_cast<int>(v)];
}
std::string_view to_string(StepState v) {
  return step_state_names[static_cast<int>(v)];
}
template <>
std::optional<TaskKind> parse_enum<TaskKind>(std::string_view s) {
  return enum_from_names<TaskKind>(kind_names, s);
}
template <>
std::optional<TaskState> parse_enum<TaskState>(std::string_view s) {
  return enum_from_names<TaskState>(state_names, s);
}
template <>
std::optional<StepState> parse_enum<StepState>(std::string_view s) {
  return enum_from_names<StepState>(step_state_names, s);
}
template <>
std::span<const std::string_view> enum_names<TaskKind>() {
  return kind_names;
}
template <>
std::span<const std::string_view> enum_names<TaskState>() {
  return state_names;
}
template <>
std::span<const std::string_view> enum_names<StepState>() {
  return step_state_names;
}

bool is_final(TaskState state) {
  return state == TaskState::succeeded || state == TaskState::failed ||
         state == TaskState::cancelled;
}

json to_json(const TaskStep& step) {
  json out = {{"name", step.name},
              {"state", to_string(step.state)},
              {"started_at", optional_text(step.started_at)},
              {"finished_at", optional_text(step.finished_at)},
              {"detail", step.detail}};
  if (step.in_doubt) out["in_doubt"] = *step.in_doubt;
  if (!step.data.is_null()) out["data"] = step.data;
  return out;
}

json steps_to_json(std::span<const TaskStep> steps) {
  json out = json::array();
  for (const auto& step : steps) out.push_back(to_json(step));
  return out;
}

std::vector<TaskStep> steps_from_json(const json& steps) {
  std::vector<TaskStep> out;
  if (!steps.is_array()) return out;
  for (const auto& entry : steps) {
    TaskStep step;
    const auto state = entry.is_object() && entry.contains("state") && entry["state"].is_string()
                           ? parse_enum<StepState>(entry["state"].get<std::string>())
                           : std::nullopt;
    if (!entry.is_object() || !state || !entry.contains("name") || !entry["name"].is_string()) {
      step.name = "unreadable";
      step.state = StepState::failed;
      step.detail = "this step's record is damaged: " + entry.dump();
      out.push_back(std::move(step));
      continue;
    }
    step.name = entry["name"].get<std::string>();
    step.state = *state;
    step.started_at = text_or_null(entry, "started_at");
    step.finished_at = text_or_null(entry, "finished_at");
    step.detail = text_or_null(entry, "detail").value_or("");
    step.in_doubt = text_or_null(entry, "in_doubt");
    if (entry.contains("data") && entry["data"].is_object()) step.data = entry["data"];
    out.push_back(std::move(step));
  }
  return out;
}

json to_json(const Task& task) {
  return {{"id", task.id},
          {"kind", to_string(task.kind)},
          {"node_id", optional_text(task.node_id)},
          {"node_name", optional_text(task.node_name)},
          {"project", optional_text(task.project)},
          {"parameters", task.parameters},
          {"state", to_string(task.state)},
          {"steps", steps_to_json(task.steps)},
          {"attempts", task.attempts},
          {"result", task.result},
          {"error", optional_text(task.error)},
          {"requested_by", optional_text(task.requested_by)},
          {"bulk_id", optional_text(task.bulk_id)},
          {"automatic", task.automatic},
          {"cancel_requested", task.cancel_requested},
          {"cancelled_by", optional_text(task.cancelled_by)},
          {"created_at", optional_text(task.created_at)},
          {"started_at", optional_text(task.started_at)},
          {"finished_at", optional_text(task.finished_at)},
          {"updated_at", optional_text(task.updated_at)}};
}

TaskParameters parse_task_parameters(TaskKind kind, const json& raw) {
  const json body = raw.is_null() ? json::object() : raw;
  if (!body.is_object()) throw invalid("the body must be a JSON object");
  TaskParameters out;
  json& p = out.parameters;
  switch (kind) {
    case TaskKind::power:
      reject_unknown_keys(body, {"action", "timeout_s"}, "", ErrorKind::invalid);
      p["action"] = required_choice<PowerAction>(body, "action");
      // How long the task waits for the node to reach the target state before it fails.
      p["timeout_s"] = bounded_seconds(body, "timeout_s", 5, 3600, 300);
      break;
    case TaskKind::boot:
      reject_unknown_keys(body, {"device", "persistent", "mode"}, "", ErrorKind::invalid);
      p["device"] = required_choice<BootDevice>(body, "device");
      p["persistent"] = optional_bool(body, "persistent", false);
      if (auto mode = optional_string(body, "mode", "mode", 16)) {
        if (*mode != "uefi" && *mode != "legacy")
          throw unprocessable("\"mode\" must be uefi or legacy, not \"" + *mode + "\"", "mode");
        p["mode"] = *mode;
      }
      break;
    case TaskKind::identify:
      reject_unknown_keys(body, {"on"}, "", ErrorKind::invalid);
      p["on"] = required_bool(body, "on");
      break;
    case TaskKind::reprovision:
      reject_unknown_keys(body, {"image", "admin_password", "mac", "timeout_s", "via"}, "",
                          ErrorKind::invalid);
      // How an owned server boots its installer: over PXE (the site's DHCP points it at us), or
      // from a boot image its BMC mounts as a virtual CD.
      if (auto via = optional_string(body, "via", "via", 32)) {
        if (*via != "pxe" && *via != "virtual-media")
          throw unprocessable("\"via\" must be pxe or virtual-media, not \"" + *via + "\"", "via");
        p["via"] = *via;
      }
      if (auto image = optional_string(body, "image", "image", 512)) {
        if (image->empty()) throw unprocessable("\"image\" must not be empty", "image");
        p["image"] = *image;
      }
      if (auto password = optional_string(body, "admin_password", "admin_password", 128)) {
        if (password->empty())
          throw unprocessable("\"admin_password\" must not be empty", "admin_password");
        out.secrets["admin_password"] = *password;
      }
      // An owned server's PXE NIC, where its inventory knows no MAC address (IPMI).
      if (auto mac = optional_string(body, "mac", "mac", 32)) {
        const auto canonical = normalize_mac(*mac);
        if (!canonical)
          throw unprocessable(
              "\"mac\" must be a MAC address like 52:54:00:ab:cd:ef, not \"" + *mac + "\"", "mac");
        p["mac"] = *canonical;
      }
      p["timeout_s"] = bounded_seconds(body, "timeout_s", 5, 14400, 3600);
      break;
    case TaskKind::inspect:
      reject_unknown_keys(body, {"timeout_s"}, "", ErrorKind::invalid);
      p["timeout_s"] = bounded_seconds(body, "timeout_s", 10, 3600, 600);
      break;
    case TaskKind::clean:
      // Cleaning an owned server without an agent on it: power it off and see that it is off.
      reject_unknown_keys(body, {"timeout_s"}, "", ErrorKind::invalid);
      p["action"] = "off";
      p["timeout_s"] = bounded_seconds(body, "timeout_s", 5, 3600, 300);
      break;
    case TaskKind::bios: {
      reject_unknown_keys(
          body, {"attributes", "from_baseline", "boot_order", "apply_time", "reset", "timeout_s"},
          "", ErrorKind::invalid);
      if (body.contains("attributes") && !body["attributes"].is_null())
        p["attributes"] = parse_bios_attributes(body["attributes"], "attributes");
      // The model's BIOS baseline: the store adds its attributes (those named here win).
      p["from_baseline"] = optional_bool(body, "from_baseline", false);
      if (body.contains("boot_order") && !body["boot_order"].is_null()) {
        const json& order = body["boot_order"];
        if (!order.is_array())
          throw wrong_type("boot_order", "an array of boot option references", order);
        if (order.empty() || order.size() > 64)
          throw unprocessable("\"boot_order\" lists 1 to 64 boot options", "boot_order");
        std::set<std::string> seen;
        for (const auto& entry : order) {
          if (!entry.is_string()) throw wrong_type("boot_order", "an array of strings", entry);
          const std::string text = entry.get<std::string>();
          if (text.empty() || text.size() > 200)
            throw unprocessable("boot options are named by 1 to 200 characters", "boot_order");
          if (!seen.insert(text).second)
            throw unprocessable("\"" + text + "\" is listed twice in \"boot_order\"", "boot_order");
        }
        p["boot_order"] = order;
      }
      if (!p.contains("attributes") && !p.contains("boot_order") && !p["from_baseline"])
        throw unprocessable(
            "name what to set: \"attributes\", \"boot_order\" or \"from_baseline\": true");
      const std::string apply_time =
          optional_string(body, "apply_time", "apply_time", 32).value_or("OnReset");
      if (apply_time != "OnReset" && apply_time != "Immediate")
        throw unprocessable("\"apply_time\" must be OnReset or Immediate, not \"" + apply_time +
                                "\" (maintenance windows are not scheduled by Ironhold)",
                            "apply_time");
      p["apply_time"] = apply_time;
      // Whether to reset the System so that the BIOS applies the settings now; false leaves them
      // pending until its next reset, unverified.
      p["reset"] = optional_bool(body, "reset", true);
      // How long the BIOS may take, from the reset, to show the values.
      p["timeout_s"] = bounded_seconds(body, "timeout_s", 10, 7200, 1800);
      break;
    }
    case TaskKind::credentials: {
      // The new password: given (write-only, kept sealed with the task), else made by the store
      // for each node, of `length` characters.
      reject_unknown_keys(body, {"password", "length"}, "", ErrorKind::invalid);
      if (auto password = optional_string(body, "password", "password", 64)) {
        if (password->size() < 8)
          throw unprocessable("\"password\" must have 8 to 64 characters", "password");
        for (const char c : *password)
          if (static_cast<unsigned char>(c) < 0x21 || static_cast<unsigned char>(c) > 0x7E)
            throw unprocessable(
                "\"password\" takes printable ASCII without spaces (what every BMC accepts)",
                "password");
        out.secrets["new_password"] = *password;
        p["generated"] = false;
      } else {
        p["generated"] = true;
        if (body.contains("length") && !body["length"].is_null()) {
          if (!body["length"].is_number_integer())
            throw wrong_type("length", "a whole number", body["length"]);
          const int length = body["length"].get<int>();
          if (length < 12 || length > 64)
            throw unprocessable("\"length\" must be 12 to 64", "length");
          p["length"] = length;
        }
      }
      break;
    }
    case TaskKind::firmware: {
      // The store adds what the image is (component, version, name) when it creates the task.
      reject_unknown_keys(body, {"image", "reset", "timeout_s", "transfer"}, "",
                          ErrorKind::invalid);
      const std::string image = required_string(body, "image");
      if (!is_uuid(image))
        throw unprocessable("\"image\" must be the id of an uploaded firmware image", "image");
      p["image"] = image;
      // Whether to reset the System when the BMC says the new firmware waits for one (a BIOS);
      // false leaves it staged, and the task ends without confirming the version.
      p["reset"] = optional_bool(body, "reset", true);
      // How long the BMC may take from accepting the image to finishing its task.
      p["timeout_s"] = bounded_seconds(body, "timeout_s", 10, 14400, 3600);
      // How the image reaches the BMC: auto (a URL when it takes one, else a push), pull, push.
      p["transfer"] = body.contains("transfer")
                          ? required_choice<FirmwareTransfer>(body, "transfer")
                          : std::string("auto");
      break;
    }
  }
  return out;
}

}  // namespace ironhold
