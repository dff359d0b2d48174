#pragma once
// Enrollment with driver "auto" and a bare host ("10.1.2.3"): something has to find out which
// transport the BMC answers on. inventory/ only defines the question; bmc/probe/ answers it, so
// no protocol header reaches this layer.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "inventory/model/endpoint.hpp"

namespace ironhold {

// One transport tried, for the user when nothing answered and for the audit trail when something
// did: {"redfish https://10.1.2.3:443", "connection refused"}.
struct ProbeAttempt {
  std::string transport;
  std::string outcome;
};

// driver and endpoint are both set (e.g. "ipmi" and ipmi://10.1.2.3) when a BMC answered, both
// empty when none did; attempts lists every transport tried, in order.
struct ProbeResult {
  std::optional<std::string> driver;
  std::optional<Endpoint> endpoint;
  std::vector<ProbeAttempt> attempts;
};

// Where and how long to probe; an empty field takes the prober's configured value (443, 623 and
// its timeout in production). Network discovery sets them per request.
struct ProbePorts {
  std::optional<std::uint16_t> https_port;
  std::optional<std::uint16_t> ipmi_port;
  std::optional<std::chrono::milliseconds> timeout;
};

// Decides which transport a bare host answers on. Blocking; called off the network threads, and
// from several threads at once. Sends no credentials.
class EndpointProber {
 public:
  virtual ~EndpointProber() = default;
  virtual ProbeResult probe(const Endpoint& bare_host) = 0;
  // The same probe at the given ports: Redfish on https_port, then IPMI on ipmi_port. The
  // endpoint found carries the port only when it is not the protocol's standard one.
  virtual ProbeResult probe_at(const Endpoint& bare_host, const ProbePorts& at) = 0;
};

}  // namespace ironhold
