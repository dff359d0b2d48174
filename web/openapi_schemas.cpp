// The component schemas of the OpenAPI document.
#include <array>
#include <nlohmann/json.hpp>

#include "inventory/model/enums.hpp"
#include "inventory/model/node.hpp"
#include "web/openapi_types.hpp"

namespace ironhold::web::openapi {

using nlohmann::json;

json hardware_summary_schema();
json hardware_schemas();
json discovery_schemas();
json cloud_schemas();
json task_schemas();
json console_schemas();
json firmware_schemas();

namespace {

json location() {
  return {{"type", "object"},
          {"properties",
           {{"site", nullable("string")},
            {"rack", nullable("string")},
            {"unit", nullable("integer")}}}};
}

json options() {
  return {{"type", "object"},
          {"additionalProperties", false},
          {"properties",
           {{"tls", {{"type", "string"}, {"enum", {"pin", "ca", "insecure"}}}},
            {"ca_bundle", {{"type", "string"}, {"description", "PEM, for tls: ca"}}},
            {"cipher_suites", {{"type", "array"}, {"items", {{"type", "integer"}}}}},
            {"privilege", {{"type", "string"}, {"enum", {"operator", "admin"}}}},
            {"kg",
             {{"type", "string"},
              {"description", "IPMI BMC key, hex; write-only"},
              {"writeOnly", true}}}}}};
}

json credentials() {
  return {{"type", "object"},
          {"writeOnly", true},
          {"required", {"username", "password"}},
          {"properties", {{"username", {{"type", "string"}}}, {"password", {{"type", "string"}}}}}};
}

json tags() {
  return {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}};
}

json counts() {
  return {{"type", "object"}, {"additionalProperties", {{"type", "integer"}}}};
}

}  // namespace

json component_schemas() {
  json node = {
      {"type", "object"},
      {"properties",
       {{"id", {{"type", "string"}, {"format", "uuid"}}},
        {"name", {{"type", "string"}}},
        {"source", string_enum(enum_names<Source>())},
        {"driver", {{"type", "string"}}},
        {"endpoint", nullable("string")},
        {"options", options()},
        {"location", location()},
        {"tags", tags()},
        {"manufacturer", nullable("string")},
        {"model", nullable("string")},
        {"serial", nullable("string")},
        {"asset_tag", nullable("string")},
        {"provider_id", nullable("string")},
        {"cloud_account_id", nullable("string")},
        {"power_state", string_enum(enum_names<PowerState>())},
        {"health", string_enum(enum_names<Health>())},
        {"reachable", nullable("boolean")},
        {"last_error",
         {{"type", json::array({"string", "null"})},
          {"description",
           "a stable code: unreachable, timeout, auth_failed, "
           "tls_pin_mismatch, tls_failed, bad_response, ..."}}},
        {"last_error_message", nullable("string")},
        {"hardware", hardware_summary_schema()},
        {"identity",
         {{"type", "object"},
          {"description", "sku, part_number, uuid, bios_version, bmc_firmware"}}},
        {"tls_fingerprint",
         {{"type", json::array({"string", "null"})},
          {"description", "the pinned SHA-256 of the BMC's certificate"}}},
        {"ssh_host_key",
         {{"type", json::array({"string", "null"})},
          {"description",
           "the BMC's SSH host key (\"SHA256:...\" as OpenSSH prints it), pinned by its first "
           "SSH serial console; cleared by POST /api/v1/nodes/{id}/tls/repin"}}},
        {"parent_id", nullable("string")},
        {"system_id", nullable("string")},
        {"last_inspected", {{"type", json::array({"string", "null"})}, {"format", "date-time"}}},
        {"warnings", {{"type", "array"}, {"items", {{"type", "object"}}}}},
        {"lifecycle", string_enum(enum_names<Lifecycle>())},
        {"maintenance", {{"type", "boolean"}}},
        {"maintenance_reason", nullable("string")},
        {"credentials_set", {{"type", "boolean"}}},
        {"gpus_expected",
         {{"type", json::array({"integer", "null"})},
          {"description",
           "GPUs an owned server should have (gpu_missing alerts below it): learned from its first "
           "inspection with GPUs, or set by PATCH"}}},
        {"last_seen", {{"type", json::array({"string", "null"})}, {"format", "date-time"}}},
        {"created_at", {{"type", "string"}, {"format", "date-time"}}},
        {"updated_at", {{"type", "string"}, {"format", "date-time"}}},
        {"retired_at", {{"type", json::array({"string", "null"})}, {"format", "date-time"}}}}}};
  json enrollment = {
      {"type", "object"},
      {"required", {"name", "driver", "endpoint"}},
      {"additionalProperties", false},
      {"properties",
       {{"name", {{"type", "string"}, {"pattern", "^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$"}}},
        {"driver", {{"type", "string"}, {"enum", {"redfish", "ipmi", "auto"}}}},
        {"endpoint",
         {{"type", "string"},
          {"description",
           "https://host[:port], http://host[:port], ipmi://host[:port], or a bare host for "
           "auto"}}},
        {"credentials", credentials()},
        {"location", location()},
        {"tags", tags()},
        {"options", options()},
        {"maintenance", {{"type", "boolean"}}},
        {"maintenance_reason", nullable("string")}}}};
  json patch = enrollment;
  patch.erase("required");
  patch["description"] =
      "Objects (options, location, tags) merge as RFC 7396: a null removes a key.";
  patch["properties"]["gpus_expected"] = {
      {"type", json::array({"integer", "null"})},
      {"minimum", 1},
      {"maximum", max_gpus_expected},
      {"description",
       "the GPU count to expect from now on (after a GPU was removed or added on purpose); null "
       "takes the count of the last inspection. Owned servers only"}};
  json problem = {{"type", "object"},
                  {"properties",
                   {{"type", {{"type", "string"}}},
                    {"title", {{"type", "string"}}},
                    {"status", {{"type", "integer"}}},
                    {"detail", {{"type", "string"}}},
                    {"instance", {{"type", "string"}}},
                    {"request_id", {{"type", "string"}}},
                    {"field", {{"type", "string"}}}}}};
  json summary = {{"type", "object"},
                  {"properties",
                   {{"total", {{"type", "integer"}}},
                    {"health", counts()},
                    {"power_state", counts()},
                    {"source", counts()},
                    {"driver", counts()},
                    {"lifecycle", counts()},
                    {"gpu_model", counts()},
                    {"gpus", counts()},
                    {"gpu_models",
                     {{"type", "object"},
                      {"description",
                       "per canonical GPU model (the GPU catalogue's name): nodes and GPUs, "
                       "split by source (bmc: owned servers, cloud: rented instances), with the "
                       "catalogue's vendor, family, "
                       "model, memory_gib and form_factor; mapped: false for a raw name no "
                       "alias maps"},
                      {"additionalProperties", {{"type", "object"}}}}}}}};
  json token = {
      {"type", "object"},
      {"properties",
       {{"id", {{"type", "string"}}},
        {"name", {{"type", "string"}}},
        {"role", string_enum(enum_names<Role>())},
        {"prefix", {{"type", "string"}}},
        {"created_by", nullable("string")},
        {"created_at", {{"type", "string"}, {"format", "date-time"}}},
        {"expires_at", nullable("string")},
        {"last_used_at", nullable("string")},
        {"revoked_at", nullable("string")},
        {"token", {{"type", "string"}, {"description", "only in the answer to POST, once"}}}}}};
  json audit = {
      {"type", "object"},
      {"properties",
       {{"id", {{"type", "integer"}}},
        {"seq", {{"type", {"integer", "null"}}, {"description", "its place in the chain"}}},
        {"at", {{"type", "string"}, {"format", "date-time"}}},
        {"actor", {{"type", "string"}}},
        {"actor_id", nullable("string")},
        {"action", {{"type", "string"}}},
        {"target_type", nullable("string")},
        {"target_id", nullable("string")},
        {"target_name", nullable("string")},
        {"outcome", {{"type", "string"}}},
        {"request_id", nullable("string")},
        {"project", nullable("string")},
        {"details", {{"type", "object"}}}}}};
  static constexpr std::array<std::string_view, 5> kProblemKinds = {
      "modified", "deleted", "inserted", "reordered", "wrong_key"};
  json head = {{"type", "object"},
               {"properties",
                {{"seq", {{"type", "integer"}}},
                 {"mac", {{"type", "string"}, {"description", "HMAC-SHA256, hex"}}},
                 {"at", {{"type", "string"}, {"format", "date-time"}}}}}};
  json verification = {{"type", "object"},
                       {"properties",
                        {{"ok", {{"type", "boolean"}}},
                         {"entries", {{"type", "integer"}, {"description", "entries verified"}}},
                         {"unsealed_legacy", {{"type", "integer"}}},
                         {"head", head},
                         {"anchor",
                          {{"oneOf", {head, {{"type", "null"}}}},
                           {"description", "the newest head anchored outside the database"}}},
                         {"problem",
                          {{"oneOf",
                            {{{"type", "object"},
                              {"properties",
                               {{"kind", string_enum(kProblemKinds)},
                                {"seq", nullable("integer")},
                                {"id", nullable("integer")},
                                {"message", {{"type", "string"}}}}}},
                             {{"type", "null"}}}}}}}}};
  json out = {{"Node", node},        {"NodeEnrollment", enrollment},
              {"NodePatch", patch},  {"NodeSummary", summary},
              {"Problem", problem},  {"Token", token},
              {"AuditEntry", audit}, {"AuditVerification", verification}};
  out["ExportManifest"] = {
      {"type", "object"},
      {"properties",
       {{"id", {{"type", "string"}}},
        {"kind", {{"type", "string"}, {"enum", {"assets", "firmware"}}}},
        {"format", {{"type", "string"}, {"enum", {"csv", "json", "ndjson"}}}},
        {"parameters", {{"type", "object"}, {"description", "the query as asked"}}},
        {"requested_by", {{"type", "string"}}},
        {"requested_at", {{"type", "string"}, {"format", "date-time"}}},
        {"state", {{"type", "string"}, {"enum", {"complete"}}}},
        {"completed_at", {{"type", "string"}, {"format", "date-time"}}},
        {"rows", {{"type", "integer"}}},
        {"sha256", {{"type", "string"}, {"description", "of the body's bytes, hex"}}},
        {"audit_head", head}}}};
  out.update(hardware_schemas());
  out.update(discovery_schemas());
  out.update(cloud_schemas());
  out.update(task_schemas());
  out.update(firmware_schemas());
  out.update(console_schemas());
  return out;
}

}  // namespace ironhold::web::openapi
