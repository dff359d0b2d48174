#pragma once
// The IPMI simulator's control API, request -> response without a socket (the Redfish
// simulator's ControlServer serves it). Plain JSON, for tests and benchmarks:
//   GET    /bmcs                       {"bmcs": [describe(i)...]}
//   GET    /bmcs/{i}                   describe(i)
//   GET    /bmcs/{i}/counters          the action counters
//   GET    /bmcs/{i}/faults            the fault settings
//   PUT    /bmcs/{i}/faults            replace the faults (fields not given are off)
//   POST   /bmcs/{i}/faults            change the faults given, keep the others
//   DELETE /bmcs/{i}/faults            clear them
//   POST   /bmcs/{i}/power             {"state": "on"|"off"}
//   GET    /bmcs/{i}/console           the host's serial console: {"active": a SOL console is
//                                       connected, "powered", "history": what the host printed
//                                       (last 16 KiB), "received": what it was sent}
//   POST   /bmcs/{i}/console           {"print": "text"}: the host prints it
//   GET    /bmcs/{i}/sel               the SEL entries
//   POST   /bmcs/{i}/sel               {"sensor": name or number, "offset"?: 0-15,
//                                       "deassertion"?: bool} -> 201 and the entry
//   GET    /bmcs/{i}/sensors           readings with units and threshold state
//   POST   /bmcs/{i}/sensors           {"sensor": name or number, "value": number} -> the sensor
//   GET    /bmcs/{i}/sessions          the open sessions
//   DELETE /bmcs/{i}/sessions          expire them all -> {"expired": n}
//   POST   /bmcs/{i}/sessions/expire   the same
// Errors are {"error": "..."} with 400 (bad body), 404 (no such BMC/sensor/route), 405.
#include "sim/ipmi/fleet.hpp"
#include "sim/redfish/bmc_state.hpp"

namespace ironhold::sim {

redfish::Response handle_ipmi_control(IpmiFleet& fleet, const redfish::Request& request);

}  // namespace ironhold::sim
