#pragma once
// Keystone v3 for the OpenStack driver: the account's credential object (password or application
// credential), the POST /v3/auth/tokens body it becomes, the token answer (its X-Subject-Token is
// read by the caller), and the compute endpoint picked from the token's service catalog. Pure
// functions: no I/O, so tests feed them Keystone's own samples.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "inventory/util/time.hpp"

namespace ironhold::cloudapi::openstack {

struct PasswordCredentials {
  std::string username;
  std::string password;
  std::string user_domain_name;
  std::string project_name;
  std::string project_domain_name;
};

struct ApplicationCredentials {
  std::string id;
  std::string secret;
};

using KeystoneCredentials = std::variant<PasswordCredentials, ApplicationCredentials>;

// The credential object as enrolled: {"username", "password", "user_domain_name", "project_name",
// "project_domain_name"} or {"application_credential_id", "application_credential_secret"}.
// Throws ironhold::Error (invalid, field "credentials.<name>") naming a missing or non-string
// field.
KeystoneCredentials parse_credentials(const nlohmann::json& credentials);

// The POST /v3/auth/tokens body: password auth scoped to the project by name and domain name, or
// the application_credential method (which carries its own project scope).
nlohmann::json auth_request_body(const KeystoneCredentials& credentials);

// "http://h:5000/identity/v3/" or "http://h:5000/identity" ->
// "http://h:5000/identity/v3/auth/tokens"
std::string auth_tokens_url(std::string_view auth_url);

struct KeystoneToken {
  std::string id;  // the X-Subject-Token header
  SystemTime expires_at;
  std::optional<SystemTime> issued_at;
  nlohmann::json catalog = nlohmann::json::array();
  std::string project_id;
  std::string project_name;
};

// The token answer's body. Throws ironhold::Error (invalid) when it is not a token (no
// token.expires_at that parses).
KeystoneToken parse_token_response(std::string_view body, std::string subject_token);

// The endpoint interface the account asks for: options["interface"] = "public" (default),
// "internal" or "admin". Throws ironhold::Error (invalid) for anything else.
std::string endpoint_interface(const nlohmann::json& options);

// The URL of the first endpoint of a catalog service of `type` with `interface` in `region`
// (matched against region_id, then the older region); an empty region takes the first endpoint
// with that interface. Absent when the catalog has none.
std::optional<std::string> select_endpoint(const nlohmann::json& catalog, std::string_view type,
                                           std::string_view interface, std::string_view region);

// When the driver should authenticate again: `margin` (5 minutes) before expiry, or half way
// through the token's life when that is shorter than twice the margin.
SystemTime refresh_time(const KeystoneToken& token, SystemTime received_at,
                        std::chrono::seconds margin);

// "Unauthorized (401): The request you have made requires authentication." from Keystone's
// {"error": {"code", "message", "title"}}; absent when the body is not that shape.
std::optional<std::string> keystone_error_message(std::string_view body);

}  // namespace ironhold::cloudapi::openstack
