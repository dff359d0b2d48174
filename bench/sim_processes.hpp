#pragma once
// Simulated BMC fleets in child processes (`ironhold sim redfish` or `ironhold sim ipmi`), so
// that thousands of BMCs do not share one process's file descriptors (nor the benchmarked
// process's CPU time), and their control APIs.
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
  // Starts ceil(count / per_process) processes of `ironhold sim <simulator...> --count N
  // --listen 127.0.0.1:0 --control ...` (simulator: {"redfish", "--mockup", DIR} or {"ipmi"});
  // returns when every BMC has printed its line.
  SimProcesses(const std::string& ironhold, const std::vector<std::string>& simulator,
               unsigned count, unsigned per_process, unsigned control_base_port);
  ~SimProcesses();  // SIGTERM, then SIGKILL

  const std::vector<SimulatedBmc>& bmcs() const { return bmcs_; }
  const std::vector<pid_t>& pids() const { return pids_; }
  // PUT /bmcs/{i}/faults with `faults_json` on every BMC.
  void set_faults(const std::string& faults_json) const;
  // GET /bmcs/{i}/counters of BMC `i` (its simulator's own figures: requests served, ...).
  std::string counters(std::size_t i) const;

 private:
  std::vector<pid_t> pids_;
  std::vector<SimulatedBmc> bmcs_;
};

}  // namespace ironhold::bench
