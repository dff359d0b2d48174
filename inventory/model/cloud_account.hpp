#pragma once
// A cloud account as the API enrolls it (POST /api/v1/cloud-accounts) and shows it. The shape of
// its credentials depends on the provider; they are validated here, sealed by the store and never
// shown again.
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ironhold {

// "openstack", "ec2", "bcc": the names an account may be enrolled with (and its nodes' driver).
std::span<const std::string_view> cloud_provider_names();

struct CloudAccountSpec {
  std::string name;
  std::string project = "default";  // its nodes belong to it too
  std::string provider;
  std::optional<std::string> endpoint;  // required for OpenStack (the Keystone auth URL)
  std::string region;                   // required for EC2 and BCC
  nlohmann::json options = nlohmann::json::object();
  nlohmann::json credentials = nlohmann::json::object();  // write-only
  int sync_interval_s = 300;
};

// Validates an enrollment body. Wrong types are ErrorKind::invalid naming the field; values the
// service cannot accept (an unknown provider, credentials of the wrong shape, an endpoint that is
// not http(s)) are ErrorKind::unprocessable.
CloudAccountSpec parse_cloud_account_spec(const nlohmann::json& body);

// Validates a PATCH body against the current spec (credentials included, opened) and returns the
// new spec. "provider" cannot change. "credentials" replaces the whole credential object;
// "options" merges as RFC 7396. `credentials_changed` tells whether new credentials came.
CloudAccountSpec apply_cloud_account_patch(const CloudAccountSpec& current,
                                           const nlohmann::json& patch, bool& credentials_changed);

// Which kind of credentials a provider's credential object is: "access_key" (EC2, BCC),
// "password" or "application_credential" (OpenStack). Never a secret.
std::string credential_kind(const std::string& provider, const nlohmann::json& credentials);

// The credential fields that identify without being secret (the access key id, the user and
// project), for the API to show: scripts and auditors need to know which key an account uses.
nlohmann::json credential_identity(const std::string& provider, const nlohmann::json& credentials);

// Where an account's sync stands, for GET /api/v1/cloud-accounts.
struct CloudAccount {
  std::string id;
  CloudAccountSpec spec;  // credentials empty unless opened for a driver
  std::string credential_kind;
  nlohmann::json credential_identity = nlohmann::json::object();
  std::optional<std::string> last_sync_at, last_sync_started, next_sync, last_error,
      last_error_message, created_at, updated_at, deleted_at;
  std::optional<double> last_sync_duration_ms;
  int sync_failures = 0;
  bool syncing = false;  // a sync holds the lease right now
  int node_count = 0;    // nodes in service
};

nlohmann::json to_json(const CloudAccount& account);

}  // namespace ironhold
