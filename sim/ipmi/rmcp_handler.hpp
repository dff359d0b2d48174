#pragma once
// One datagram to a simulated IPMI BMC in, its answer out (nothing: no answer), without a
// socket. Routes by RMCP class and session header: ASF presence ping, session-less IPMI v1.5 and
// RMCP+ requests (channel capabilities, cipher suites), the RMCP+ handshake, and IPMI requests
// inside an authenticated, encrypted session. Anything malformed, forged, replayed or out of the
// sequence window is dropped without an answer, as a BMC does.
#include <optional>
#include <string>

#include "bmc/ipmi/bytes.hpp"
#include "sim/ipmi/bmc_model.hpp"
#include "sim/ipmi/sessions.hpp"

namespace ironhold::sim::ipmi {

std::optional<bmc::ipmi::Bytes> handle_datagram(BmcModel& bmc, SessionTable& sessions,
                                                bmc::ipmi::ByteView datagram,
                                                const std::string& peer, Clock::time_point now);

// Drops idle sessions; a handshake abandoned after RAKP 2 counts as a failed login.
void expire_sessions(BmcModel& bmc, SessionTable& sessions, Clock::time_point now);

}  // namespace ironhold::sim::ipmi
