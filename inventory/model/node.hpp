#pragma once
// A node of the normalized model: an owned server behind a BMC or a rented cloud instance.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "inventory/model/enums.hpp"

namespace ironhold {

struct Location {
  std::optional<std::string> site;
  std::optional<std::string> rack;
  std::optional<int> unit;
};

struct Credentials {
  std::string username;
  std::string password;
};

struct Node {
  std::string id;
  std::string name;
  std::string project = "default";  // the tenant it belongs to
  Source source = Source::bmc;
  std::string driver;
  std::optional<std::string> endpoint;
  nlohmann::json options = nlohmann::json::object();  // never holds write-only options (kg)
  Location location;
  nlohmann::json tags = nlohmann::json::object();
  std::optional<std::string> manufacturer, model, serial, asset_tag, provider_id;
  PowerState power_state = PowerState::unknown;
  Health health = Health::unknown;
  std::optional<bool> reachable;
  std::optional<std::string> last_error;
  Lifecycle lifecycle = Lifecycle::enrolled;
  bool maintenance = false;
  std::optional<std::string> maintenance_reason;
  bool credentials_set = false;
  // An owned server's GPU count to expect (gpu_missing alerts below it): learned from its first
  // inspection that found GPUs, or set by an operator. Nothing for cloud instances.
  std::optional<int> gpus_expected;
  // From the poller: the hardware summary and further identity of the last inspection, the
  // person-readable text of last_error (a stable code), the pinned TLS certificate.
  nlohmann::json hardware = nlohmann::json::object();
  nlohmann::json identity = nlohmann::json::object();
  std::optional<std::string> last_error_message, tls_fingerprint, parent_id, system_id,
      last_inspected;
  // The BMC's SSH host key ("SHA256:..."), pinned by its first SSH serial console.
  std::optional<std::string> ssh_host_key;
  // For source=cloud: the cloud account that holds the instance (provider_id is its instance id).
  std::optional<std::string> cloud_account_id;
  // RFC 3339 UTC, as the database formats them.
  std::optional<std::string> last_seen, created_at, updated_at, retired_at;
};

// The most GPUs a node may be told to expect (a typo's 80000 would alert for ever).
inline constexpr int max_gpus_expected = 1024;

// The API's JSON form of a node (the same field names as enrollment; credentials never appear).
nlohmann::json to_json(const Node& node);
// The same, written as JSON text into `out` (byte for byte to_json(node).dump()), without the
// tree: lists of thousands of nodes are the API's largest answers.
void append_json(std::string& out, const Node& node);

// The conditions an operator should see on a node ("warnings"): only TLS verification turned off
// (options.tls "insecure") so far.
const nlohmann::json& node_warnings(bool insecure_tls);
// The keys of the node's "hardware" object, in the order to_json writes them.
const std::vector<std::string>& hardware_summary_keys();

// True for the canonical 8-4-4-4-12 hex form; names may never look like this.
bool is_uuid(std::string_view text);

}  // namespace ironhold
