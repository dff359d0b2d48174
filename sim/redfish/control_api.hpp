#pragma once
// The simulator's control API, request -> response without a socket (control_server.hpp serves
// it). Plain JSON, for tests and benchmarks, never for the code under test:
//   GET    /bmcs                      {"bmcs": [describe(i)...]}
//   GET    /bmcs/{i}                  describe(i)
//   GET    /bmcs/{i}/counters         the action counters
//   GET    /bmcs/{i}/faults           the fault settings
//   PUT    /bmcs/{i}/faults           replace the faults (fields not given are off)
//   POST   /bmcs/{i}/faults           change the faults given, keep the others
//   DELETE /bmcs/{i}/faults           clear them
//   POST   /bmcs/{i}/certificate      a new leaf certificate -> {"certificate_sha256": ...}
//   POST   /bmcs/{i}/ssh-host-key     a new SSH console host key -> {"host_key_sha256": ...}
//   GET    /bmcs/{i}/console          the serial port: {"active", "powered", "history", "received"}
//   POST   /bmcs/{i}/console          {"print": text}: the host prints it now
//   POST   /bmcs/{i}/power            {"state": "On"|"Off", "system"?: id}
//   POST   /bmcs/{i}/health           {"health": "OK"|"Warning"|"Critical", "system"?: id}
//   POST   /bmcs/{i}/sel              {"severity", "message", "sensor_type"?, "system"?} -> 201
//   entry POST   /bmcs/{i}/sessions/expire  -> {"expired": n}
// Errors are {"error": "..."} with 400 (bad body), 404 (no such BMC/system/route), 405, 409 (no
// SEL log service; certificate change on plain HTTP; host key change without SSH consoles).
#include "sim/redfish/fleet.hpp"

namespace ironhold::sim {

redfish::Response handle_control(RedfishFleet& fleet, const redfish::Request& request);

}  // namespace ironhold::sim
