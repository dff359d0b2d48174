// The OpenAPI schemas of cloud accounts: enrollment (credentials per provider, write-only), patch,
// and the account with its sync status.
#include <nlohmann/json.hpp>

#include "inventory/model/cloud_account.hpp"
#include "web/openapi_types.hpp"

namespace ironhold::web::openapi {

using nlohmann::json;

namespace {

json strings(std::initializer_list<const char*> required, std::initializer_list<const char*> all,
             const char* description) {
  json properties = json::object();
  for (const char* name : all) properties[name] = {{"type", "string"}};
  return {{"type", "object"},
          {"additionalProperties", false},
          {"required", json(std::vector<std::string>(required.begin(), required.end()))},
          {"properties", properties},
          {"description", description}};
}

json credentials_schema() {
  return {
      {"writeOnly", true},
      {"description", "never shown again, never in logs, errors or the audit trail"},
      {"oneOf",
       json::array({strings({"access_key_id", "secret_access_key"},
                            {"access_key_id", "secret_access_key", "session_token"},
                            "EC2: an access key, and a session token for temporary credentials"),
                    strings({"access_key", "secret_key"}, {"access_key", "secret_key"},
                            "BCC: an access key (AK) and secret key (SK)"),
                    strings({"username", "password", "project_name"},
                            {"username", "password", "user_domain_name", "project_name",
                             "project_domain_name"},
                            "OpenStack password authentication, scoped to a project (domains "
                            "default to Default)"),
                    strings({"application_credential_id", "application_credential_secret"},
                            {"application_credential_id", "application_credential_secret"},
                            "OpenStack application credentials")})}};
}

json account_properties(bool for_patch) {
  json p = {
      {"name",
       {{"type", "string"},
        {"pattern", "^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$"},
        {"description", "unique among accounts; never UUID-shaped"}}},
      {"provider", string_enum(cloud_provider_names())},
      {"endpoint",
       {{"type", {"string", "null"}},
        {"description",
         "OpenStack: the Keystone auth URL (required). EC2/BCC: an endpoint override; absent: "
         "the region's public endpoint"}}},
      {"region",
       {{"type", "string"},
        {"description",
         "required for EC2 (us-east-1) and BCC (bj); OpenStack: the catalog "
         "region to use (empty: the first)"}}},
      {"options",
       {{"type", "object"},
        {"description",
         "OpenStack: interface (public, internal, admin), gpu_aliases (PCI alias → GPU model, "
         "e.g. {\"a100\": \"NVIDIA A100\"}), ca_bundle (PEM of the CA that signed Keystone's "
         "and Nova's certificates), tls (verify or insecure). BCC: keypair_id (installed by a "
         "rebuild instead of an admin password). All: requests_per_second (the account's own "
         "request rate; default 20 for EC2, 10 for BCC and OpenStack)"}}},
      {"credentials", credentials_schema()},
      {"sync_interval_s",
       {{"type", "integer"}, {"minimum", 30}, {"maximum", 86400}, {"default", 300}}}};
  if (for_patch) p["provider"]["description"] = "cannot change";
  return p;
}

json account_schema() {
  return {
      {"type", "object"},
      {"properties",
       {{"id", {{"type", "string"}, {"format", "uuid"}}},
        {"name", {{"type", "string"}}},
        {"provider", string_enum(cloud_provider_names())},
        {"endpoint", nullable("string")},
        {"region", {{"type", "string"}}},
        {"options", {{"type", "object"}}},
        {"credentials",
         {{"type", "object"},
          {"description",
           "what kind of credentials are set, and their non-secret identity "
           "(access key id, user, project); never a secret"},
          {"properties",
           {{"kind",
             {{"type", "string"}, {"enum", {"access_key", "password", "application_credential"}}}},
            {"identity", {{"type", "object"}}}}}}},
        {"sync_interval_s", {{"type", "integer"}}},
        {"sync",
         {{"type", "object"},
          {"properties",
           {{"last_sync_at",
             {{"type", {"string", "null"}},
              {"format", "date-time"},
              {"description", "the last complete listing"}}},
            {"last_attempt_at", {{"type", {"string", "null"}}, {"format", "date-time"}}},
            {"next_sync_at", {{"type", {"string", "null"}}, {"format", "date-time"}}},
            {"duration_ms", nullable("number")},
            {"syncing", {{"type", "boolean"}}},
            {"last_error",
             {{"type", {"string", "null"}},
              {"description", "auth_failed, unreachable, timeout, bad_response, rejected, ..."}}},
            {"last_error_message", nullable("string")},
            {"failures", {{"type", "integer"}, {"description", "consecutive failed syncs"}}}}}}},
        {"node_count", {{"type", "integer"}, {"description", "its nodes in service"}}},
        {"created_at", {{"type", "string"}, {"format", "date-time"}}},
        {"updated_at", {{"type", "string"}, {"format", "date-time"}}}}}};
}

}  // namespace

json cloud_schemas() {
  json enrollment = {{"type", "object"},
                     {"additionalProperties", false},
                     {"required", {"name", "provider", "credentials"}},
                     {"properties", account_properties(false)}};
  json patch = {{"type", "object"},
                {"additionalProperties", false},
                {"properties", account_properties(true)}};
  return {{"CloudAccountEnrollment", enrollment},
          {"CloudAccountPatch", patch},
          {"CloudAccount", account_schema()}};
}

}  // namespace ironhold::web::openapi
