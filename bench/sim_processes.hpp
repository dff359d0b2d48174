#pragma once
// Simulated BMC fleets in child processes (`ironhold sim redfish`), so that 5,000 BMCs do not
// share one process's file descriptors, and their control APIs.
#include <sys/types.h>

#include <string>
#include <vector>

namespace ironhold::bench {

struct SimulatedBmc {
  std::string endpoint, username, password;
  std::string control;  // "http://127.0.0.1:PORT" of its process's control API
  unsigned index = 0;   // within its process
};

class SimProcesses {
 public:
  // Starts ceil(count / per_process) processes of `ironhold sim redfish`; returns when every BMC
  // has printed its line.
  SimProcesses(const std::string& ironhold, const std::string& mockup, unsigned count,
               unsigned per_process, unsigned control_base_port);
  ~SimProcesses();  // SIGTERM, then SIGKILL

  const std::vector<SimulatedBmc>& bmcs() const { return bmcs_; }
  // PUT /bmcs/{i}/faults with `faults_json` on every BMC.
  void set_faults(const std::string& faults_json) const;

 private:
  std::vector<pid_t> pids_;
  std::vector<SimulatedBmc> bmcs_;
};

}  // namespace ironhold::bench
