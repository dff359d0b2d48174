#pragma once
// The enrollment probe for driver "auto": which transport does a bare host's BMC answer on?
// Redfish over HTTPS first (GET /redfish/v1/, the unauthenticated service root), then IPMI on
// UDP (a session-less Get Channel Authentication Capabilities, the same first packet ipmitool
// sends). Neither carries credentials. Blocking: run it on a pool thread, never on a network
// thread.
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/drivers/endpoint_prober.hpp"

namespace ironhold::bmc {

struct ProbeOptions {
  std::uint16_t https_port = 443;
  std::uint16_t ipmi_port = 623;
  // Redfish: connect + whole request. IPMI: both tries together (each waits half of it).
  std::chrono::milliseconds timeout{3000};
};

class BmcProber : public EndpointProber {
 public:
  explicit BmcProber(ProbeOptions options = {});
  // Probes bare_host.host; a port on it is ignored (the ports are the options').
  ProbeResult probe(const Endpoint& bare_host) override;
  // Empty fields of `at` take the options' values.
  ProbeResult probe_at(const Endpoint& bare_host, const ProbePorts& at) override;

  const ProbeOptions& options() const { return options_; }

 private:
  ProbeOptions options_;
};

// The wire formats, apart from the sockets so that tests and fuzzers reach them directly.

// Whether an HTTP 200 body is a Redfish service root: a JSON object with "RedfishVersion" or
// whose "@odata.id" is /redfish/v1/. Never throws.
bool is_redfish_service_root(std::string_view body);

// The session-less IPMI v1.5 Get Channel Authentication Capabilities request, RMCP-framed.
std::vector<std::uint8_t> ipmi_channel_auth_request();

// What a datagram received in answer to ipmi_channel_auth_request() says.
struct IpmiProbeReply {
  bool ok = false;     // a well-formed response with completion code 0x00
  std::string detail;  // why it is not, or what the BMC reported when it is
};
IpmiProbeReply check_ipmi_channel_auth_reply(std::span<const std::uint8_t> datagram);

}  // namespace ironhold::bmc
