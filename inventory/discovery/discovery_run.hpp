#pragma once
// A network discovery run as stored: what was asked, how far it got, and what answered.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ironhold::discovery {

// One address worth reporting. status: "found" (a BMC answered), "enrolled", "already_enrolled"
// (a node in service has that endpoint) or "error" (it answered but could not be enrolled).
struct DiscoveryResult {
  int seq = 0;  // the address's position in the sweep
  std::string address;
  std::uint16_t port = 0;
  std::optional<std::string> driver;    // "redfish" or "ipmi"
  std::optional<std::string> endpoint;  // canonical: https://host[:port], ipmi://host[:port]
  std::string status;
  std::optional<std::string> node_id, node_name;
  std::string detail;
};

struct DiscoveryCounts {
  int probed = 0;  // addresses done, whatever answered
  int found = 0;   // addresses where a BMC answered
  int enrolled = 0;
  int already_enrolled = 0;
  int errors = 0;
};

struct DiscoveryRun {
  std::string id;
  std::string state;                                     // queued, running, succeeded, failed
  nlohmann::json parameters = nlohmann::json::object();  // never the password
  int address_count = 0;
  DiscoveryCounts counts;
  std::optional<std::string> error;
  std::string requested_by;
  std::string project = "default";
  std::optional<std::string> request_id;
  std::string created_at;
  std::optional<std::string> started_at, finished_at;
  std::vector<DiscoveryResult> results;  // filled by DiscoveryStore::get only
};

}  // namespace ironhold::discovery
