// The OpenAPI schemas of tasks and of the action requests that create them.
#include <nlohmann/json.hpp>

#include "inventory/drivers/node_driver.hpp"
#include "inventory/model/lifecycle.hpp"
#include "inventory/model/task.hpp"
#include "web/openapi_types.hpp"

namespace ironhold::web::openapi {

using nlohmann::json;

namespace {

json request(json required, json properties) {
  return {{"type", "object"},
          {"additionalProperties", false},
          {"required", std::move(required)},
          {"properties", std::move(properties)}};
}

json seconds(int min, int max, int fallback, const char* description) {
  return {{"type", "integer"},
          {"minimum", min},
          {"maximum", max},
          {"default", fallback},
          {"description", description}};
}

json step_schema() {
  return {{"type", "object"},
          {"properties",
           {{"name", {{"type", "string"}}},
            {"state", string_enum(enum_names<StepState>())},
            {"started_at", nullable("string")},
            {"finished_at", nullable("string")},
            {"detail", {{"type", "string"}}},
            {"in_doubt",
             {{"type", "string"},
              {"description",
               "present when a resumed task found this step being sent: how it decided whether "
               "the action had happened"}}},
            {"data", {{"type", "object"}}}}}};
}

json task_schema() {
  return {{"type", "object"},
          {"properties",
           {{"id", {{"type", "string"}, {"format", "uuid"}}},
            {"kind", string_enum(enum_names<TaskKind>())},
            {"node_id", nullable("string")},
            {"node_name", nullable("string")},
            {"parameters", {{"type", "object"}}},
            {"state", string_enum(enum_names<TaskState>())},
            {"steps", {{"type", "array"}, {"items", step_schema()}}},
            {"attempts", {{"type", "integer"}}},
            {"result", {{"description", "null until the task ends"}}},
            {"error", nullable("string")},
            {"requested_by", nullable("string")},
            {"bulk_id", nullable("string")},
            {"automatic", {{"type", "boolean"}}},
            {"cancel_requested", {{"type", "boolean"}}},
            {"cancelled_by", nullable("string")},
            {"created_at", {{"type", "string"}, {"format", "date-time"}}},
            {"started_at", nullable("string")},
            {"finished_at", nullable("string")},
            {"updated_at", nullable("string")}}}};
}

}  // namespace

json task_schemas() {
  json power = request(
      {"action"},
      {{"action", string_enum(enum_names<PowerAction>())},
       {"timeout_s", seconds(5, 3600, 300, "how long to wait for the node to reach the state")}});
  json boot = request({"device"}, {{"device", string_enum(enum_names<BootDevice>())},
                                   {"persistent", {{"type", "boolean"}, {"default", false}}},
                                   {"mode", {{"type", "string"}, {"enum", {"uefi", "legacy"}}}}});
  json identify = request({"on"}, {{"on", {{"type", "boolean"}}}});
  json reprovision = request(
      json::array(),
      {{"image",
        {{"type", "string"},
         {"description",
          "a cloud instance: the provider's image id (absent: the image it runs); an owned "
          "server: the http(s):// or tftp:// URL of an iPXE script (.ipxe) or of a directory "
          "with vmlinuz and initrd.img (absent: the image of its last reprovision)"}}},
       {"admin_password",
        {{"type", "string"},
         {"writeOnly", true},
         {"description", "for providers that set one (BCC, Nova); never shown or logged"}}},
       {"mac",
        {{"type", "string"},
         {"description",
          "an owned server: the MAC address of the NIC it PXE boots from, when its inventory "
          "has none (IPMI)"}}},
       {"timeout_s",
        seconds(5, 14400, 3600,
                "how long to wait for the instance to run again, or for the installer's "
                "call-back")}});
  json firmware = request(
      {"image"},
      {{"image",
        {{"type", "string"}, {"format", "uuid"}, {"description", "a firmware image's id"}}},
       {"reset",
        {{"type", "boolean"},
         {"default", true},
         {"description",
          "reset the System when the BMC says the new firmware waits for one (false: leave it "
          "staged; the task then ends without confirming the version)"}}},
       {"transfer",
        {{"type", "string"},
         {"enum", {"auto", "pull", "push"}},
         {"default", "auto"},
         {"description",
          "how the image reaches the BMC: pull (the BMC downloads a signed URL of this service, "
          "Redfish SimpleUpdate), push (this service sends it to the BMC's "
          "MultipartHttpPushUri), auto (pull when the BMC takes the URL, else push)"}}},
       {"timeout_s",
        seconds(10, 14400, 3600, "how long the BMC's update task may take to finish")}});
  json bios = request(
      json::array(),
      {{"attributes",
        {{"type", "object"},
         {"additionalProperties", {{"type", {"string", "number", "boolean"}}}},
         {"description",
          "BIOS attribute names (as the BMC's Bios.Attributes names them) and the values to set"}}},
       {"from_baseline",
        {{"type", "boolean"},
         {"default", false},
         {"description",
          "set the attributes of the node model's BIOS baseline (those named in \"attributes\" "
          "win)"}}},
       {"boot_order",
        {{"type", "array"},
         {"items", {{"type", "string"}}},
         {"description", "the System's Boot.BootOrder, as boot option references"}}},
       {"apply_time",
        {{"type", "string"},
         {"enum", {"OnReset", "Immediate"}},
         {"default", "OnReset"},
         {"description", "when the BMC applies them; it must list it in SupportedApplyTimes"}}},
       {"reset",
        {{"type", "boolean"},
         {"default", true},
         {"description",
          "reset the System so that the BIOS applies them now (false: they stay pending until its "
          "next reset, and the task ends unverified)"}}},
       {"timeout_s", seconds(10, 7200, 1800, "how long the BIOS may take to show the values")}});
  json rotation = request(
      json::array(),
      {{"password",
        {{"type", "string"},
         {"minLength", 8},
         {"maxLength", 64},
         {"writeOnly", true},
         {"description",
          "the new password (printable ASCII, no spaces; IPMI: at most 16); default: one made "
          "for each node"}}},
       {"length",
        {{"type", "integer"},
         {"minimum", 12},
         {"maximum", 64},
         {"description", "the length of a made password (default 20, IPMI 16)"}}}});
  json selector = {
      {"type", "object"},
      {"minProperties", 1},
      {"description",
       "the node list's filters by the same names: ids, names, source, driver, health, "
       "power_state, lifecycle, maintenance, tag (key:value), site, rack, gpu_model, q; each a "
       "string (comma lists allowed), a list of strings, or a boolean for maintenance"}};
  json bulk_request = request(
      {"selector", "action"},
      {{"selector", selector},
       {"action", string_enum(enum_names<TaskKind>())},
       {"parameters", {{"type", "object"}, {"description", "as for the single-node route"}}},
       {"max_parallel", {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}, {"default", 8}}},
       {"dry_run", {{"type", "boolean"}, {"default", false}}}});
  json bulk = {{"type", "object"},
               {"properties",
                {{"bulk_id", nullable("string")},
                 {"matched", {{"type", "integer"}}},
                 {"tasks", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                 {"dry_run", {{"type", "boolean"}}},
                 {"nodes", {{"type", "array"}, {"items", {{"type", "object"}}}}}}}};
  json lifecycle_request =
      request({"action"}, {{"action", string_enum(enum_names<LifecycleAction>())}});
  json lifecycle_change = {{"type", "object"},
                           {"properties",
                            {{"node", {{"$ref", "#/components/schemas/Node"}}},
                             {"from", string_enum(enum_names<Lifecycle>())},
                             {"task", {{"$ref", "#/components/schemas/Task"}}}}}};
  return {{"Task", task_schema()},
          {"LifecycleRequest", lifecycle_request},
          {"LifecycleChange", lifecycle_change},
          {"BulkActionRequest", bulk_request},
          {"BulkAction", bulk},
          {"PowerRequest", power},
          {"BootRequest", boot},
          {"IdentifyRequest", identify},
          {"ReprovisionRequest", reprovision},
          {"FirmwareUpdateRequest", firmware},
          {"BiosRequest", bios},
          {"CredentialRotationRequest", rotation}};
}

}  // namespace ironhold::web::openapi
