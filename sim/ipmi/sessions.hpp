#pragma once
// The RMCP+ sessions of one simulated BMC (IPMI v2.0 section 13.14-13.31): the handshake state
// of each, its keys once RAKP is done, privilege, sequence numbers both ways, and the bounded
// table with idle expiry that real BMCs have (a small fixed number of slots).
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bmc/ipmi/bytes.hpp"
#include "bmc/ipmi/session_packet.hpp"
#include "bmc/ipmi/sol_transfer.hpp"

namespace ironhold::sim::ipmi {

using SessionClock = std::chrono::steady_clock;

// The inbound sequence numbers of a session: a packet is taken once, in a window of 16 around
// the highest seen (IPMI v2.0 section 6.12.13); 0 is never valid.
class InboundWindow {
 public:
  enum class Verdict { accept, duplicate, reject };
  Verdict check(std::uint32_t sequence);

 private:
  bool started_ = false;
  std::uint32_t highest_ = 0;
  std::uint32_t seen_ = 0;  // bit i: highest_ - i was taken
};

struct Session {
  enum class Stage { opened, rakp2_sent, active };
  Stage stage = Stage::opened;
  std::uint32_t bmc_id = 0;      // SIDc: what the console puts in its packets
  std::uint32_t console_id = 0;  // SIDm: what the BMC puts in its packets
  bmc::ipmi::CipherSuite suite;
  std::uint8_t requested_privilege = 0;  // Open Session's maximum (0: the highest allowed)
  std::uint8_t role = 0;                 // RAKP 1's role byte as sent, for the HMACs
  std::uint8_t max_privilege = 0;        // what Set Session Privilege Level may reach
  std::uint8_t privilege = 0;            // the session's current level
  std::string user;
  bmc::ipmi::Bytes console_random, bmc_random;
  bmc::ipmi::SessionSecurity security;
  std::uint32_t outbound_sequence = 0;
  InboundWindow inbound;
  // The last handshake request and answer (a retransmitted RAKP 1 or 3 gets the same answer), and
  // the last session answer by inbound sequence (a retransmitted request gets it again).
  bmc::ipmi::Bytes handshake_request, handshake_reply;
  bmc::ipmi::Bytes last_reply;
  std::uint32_t last_sequence = 0;
  std::string peer;  // "127.0.0.1:54321": where the console is, for listings and SOL packets
  // Serial-over-LAN activated in this session (sol_payload.cpp): the transfer both ways, and
  // whether it was taken over (one last packet says so, then it ends).
  std::unique_ptr<bmc::ipmi::SolTransfer> sol;
  bool sol_deactivating = false;
  SessionClock::time_point opened_at{}, last_activity{};

  std::uint32_t next_outbound() {
    if (++outbound_sequence == 0) outbound_sequence = 1;
    return outbound_sequence;
  }
};

class SessionTable {
 public:
  SessionTable(unsigned limit, std::chrono::seconds idle_timeout)
      : limit_(limit), idle_timeout_(idle_timeout) {}

  Session* find(std::uint32_t bmc_id);
  // A new session with a fresh random ID, or nullptr when every slot is taken (after expiring
  // the idle ones).
  Session* open(SessionClock::time_point now);
  bool close(std::uint32_t bmc_id);
  // Drops sessions idle past the timeout (handshakes that stalled: after 3 s); returns how many.
  // A handshake dropped after RAKP 2 is a console that could not verify it, which is how a wrong
  // password shows on the BMC side (ipmitool and FreeIPMI send no RAKP 3 then): those users go
  // to `abandoned`.
  std::size_t expire_idle(SessionClock::time_point now,
                          std::vector<std::string>* abandoned = nullptr);
  std::size_t clear();

  std::size_t size() const { return sessions_.size(); }
  const std::vector<std::unique_ptr<Session>>& all() const { return sessions_; }

 private:
  unsigned limit_;
  std::chrono::seconds idle_timeout_;
  std::vector<std::unique_ptr<Session>> sessions_;
};

}  // namespace ironhold::sim::ipmi
