#pragma once
// Faults a simulated IPMI BMC can be told to show (through the control API), so clients meet the
// misbehaviour of real BMCs on a lossy management network. The UDP layer (udp_server.cpp) acts out
// loss, delay and silence; the RAKP exchange (handshake.cpp) acts out the lockout.
#include <nlohmann/json.hpp>

namespace ironhold::sim::ipmi {

struct Faults {
  double loss = 0;         // share of incoming datagrams dropped unread (0 to 1)
  unsigned delay_ms = 0;   // added before every answer
  bool no_answer = false;  // read every datagram, answer none
  bool lockout = false;    // every login fails as for a locked-out account

  bool any() const { return loss > 0 || delay_ms > 0 || no_answer || lockout; }
  bool operator==(const Faults&) const = default;
};

// {"loss": 0.2, "delay_ms": 50, "no_answer": false, "lockout": true}: every field optional;
// unknown fields, wrong types and out-of-range values are an ironhold::Error (invalid) naming the
// field. Fields not given keep their value in `base`.
Faults faults_from_json(const nlohmann::json& body, Faults base = {});
nlohmann::json to_json(const Faults& faults);
// Names of the faults that are on, for listings.
nlohmann::json active_faults(const Faults& faults);

}  // namespace ironhold::sim::ipmi
