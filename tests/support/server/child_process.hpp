#pragma once
// A program started in the background for a test (an `ironhold serve`), its stderr in a file.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ironhold::test {

class ChildProcess {
 public:
  ChildProcess(const std::string& program, const std::vector<std::string>& args,
               const std::filesystem::path& stderr_file);
  ~ChildProcess();  // SIGKILL if still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  int pid() const { return pid_; }
  void signal(int sig);
  // The exit status once it ended (-signal when killed), or nullopt on timeout.
  std::optional<int> wait(std::chrono::milliseconds timeout);
  // Waits until the stderr file has a line containing `needle`; returns that line or nullopt.
  std::optional<std::string> wait_for_line(const std::string& needle, std::chrono::milliseconds timeout) const;
  std::string stderr_text() const;

 private:
  int pid_ = -1;
  bool reaped_ = false;
  std::filesystem::path stderr_file_;
};

}  // namespace ironhold::test
