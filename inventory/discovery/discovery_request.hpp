#pragma once
// POST /api/v1/discovery, validated: which addresses and ports to sweep, and whether (and how) to
// enroll the BMCs that answer. Wrong JSON types are ErrorKind::invalid (400), values the service
// cannot accept ErrorKind::unprocessable (422); both name the field.
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "inventory/model/endpoint.hpp"
#include "inventory/model/node.hpp"

namespace ironhold::discovery {

inline constexpr int default_concurrency = 16;
inline constexpr int max_concurrency = 128;
inline constexpr std::size_t max_ports = 8;
inline constexpr std::size_t max_name_prefix = 40;

struct DiscoveryRequest {
  std::string addresses_text;          // as given, trimmed
  std::vector<std::string> addresses;  // expanded, canonical
  // Each port is tried for Redfish (HTTPS) and then IPMI (UDP), in order; empty: the standard
  // ports (443 for Redfish, 623 for IPMI).
  std::vector<std::uint16_t> ports;
  std::optional<Credentials> credentials;  // required to enroll; never stored
  bool enroll = false;
  std::string name_prefix = "bmc-";
  nlohmann::json tags = nlohmann::json::object();  // for the nodes it enrolls
  std::string project = "default";                 // the run's, and its nodes'; the API sets it
  int concurrency = default_concurrency;
  std::optional<std::chrono::milliseconds> timeout;  // per probe; empty: the prober's
};

DiscoveryRequest parse_discovery_request(const nlohmann::json& body);

// What the run records and shows of the request: everything but the password.
nlohmann::json public_parameters(const DiscoveryRequest& request);

// The name a discovered BMC is enrolled under: prefix + address with '.' and ':' as '-', and
// "-PORT" when the endpoint is not on its protocol's standard port ("bmc-10-0-0-5-8443").
std::string node_name_for(const std::string& prefix, const Endpoint& endpoint);

}  // namespace ironhold::discovery
