#pragma once
// Enrollment with driver "auto" and a bare host ("10.1.2.3"): something has to find out which
// transport the BMC answers on. inventory/ only defines the question; bmc/probe/ answers it, so
// no protocol header reaches this layer.
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

// Decides which transport a bare host answers on. Blocking; called off the network threads.
// Sends no credentials.
class EndpointProber {
 public:
  virtual ~EndpointProber() = default;
  virtual ProbeResult probe(const Endpoint& bare_host) = 0;
};

}  // namespace ironhold
