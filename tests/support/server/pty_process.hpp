#pragma once
// A program on the slave side of a pseudo-terminal, as an operator's shell runs it: what it prints
// is read from the master side, keystrokes are written there (ipmitool's SOL, `ironhold console`).
#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ironhold::test {

class PtyProcess {
 public:
  // Runs argv[0] (a path) with `env` added to this process's environment; throws
  // std::runtime_error when no terminal could be made.
  explicit PtyProcess(const std::vector<std::string>& argv,
                      const std::map<std::string, std::string>& env = {});
  ~PtyProcess();  // SIGKILL if still running
  PtyProcess(const PtyProcess&) = delete;
  PtyProcess& operator=(const PtyProcess&) = delete;

  // Keys as typed; false when the terminal took fewer.
  bool type(const std::string& keys);
  // Waits until the program has put its terminal in raw mode (no line editing, a carriage return
  // kept as one), as a console does once it is connected: keys typed before that go through the
  // terminal's line discipline (CR becomes LF). Whether it did within `timeout`.
  bool wait_until_raw(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // Reads until `needle` has appeared or `timeout` passes; whether it did.
  bool wait_for(const std::string& needle,
                std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // The exit status, or nullopt when it was still running after `timeout`.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);
  const std::string& screen() const { return screen_; }

 private:
  int master_ = -1;
  int slave_ = -1;  // the program's terminal, opened again here to read its settings
  pid_t pid_ = -1;
  bool exited_ = false;
  std::string screen_;
};

}  // namespace ironhold::test
