#pragma once
// Serial-over-LAN in the simulated IPMI BMC (IPMI v2.0 sections 15 and 24): Activate and
// Deactivate Payload for a session, the SOL packets a console sends inside it, and the packets
// the BMC sends unasked (the host's output, retries). One payload instance per BMC, as on real
// BMCs: a second activation gets "already active" (80h) until the first is deactivated, its
// session closes or expires, or its console stops acknowledging.
#include <optional>
#include <string>
#include <vector>

#include "bmc/ipmi/bytes.hpp"
#include "bmc/ipmi/lan_message.hpp"
#include "bmc/ipmi/session_packet.hpp"
#include "sim/ipmi/bmc_model.hpp"
#include "sim/ipmi/sessions.hpp"

namespace ironhold::sim::ipmi {

// The response data (completion code first) when `request` is Activate or Deactivate Payload;
// nothing for any other command.
std::optional<bmc::ipmi::Bytes> payload_command(BmcModel& bmc, SessionTable& sessions,
                                                Session& session,
                                                const bmc::ipmi::LanMessage& request,
                                                Clock::time_point now);

// A SOL packet from the console, already opened and within the session's sequence window: the
// keystrokes go to the host, and the answer (an acknowledgement) comes back sealed.
std::optional<bmc::ipmi::Bytes> sol_packet_in(BmcModel& bmc, Session& session,
                                              const bmc::ipmi::SessionPacket& packet,
                                              Clock::time_point now);

struct OutgoingDatagram {
  std::string peer;  // "127.0.0.1:54321"
  bmc::ipmi::Bytes datagram;
};
// What the BMC sends by itself at `now`: the host's output and retries to the active console.
std::vector<OutgoingDatagram> sol_pump(BmcModel& bmc, SessionTable& sessions,
                                       Clock::time_point now);
// The session holding the payload, or nullptr (releasing it when that session is gone).
Session* sol_session(BmcModel& bmc, SessionTable& sessions);

}  // namespace ironhold::sim::ipmi
