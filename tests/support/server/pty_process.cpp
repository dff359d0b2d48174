#include "tests/support/server/pty_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <stdexcept>
#include <string_view>

namespace ironhold::test {

using namespace std::chrono_literals;

PtyProcess::PtyProcess(const std::vector<std::string>& argv,
                       const std::map<std::string, std::string>& env) {
  // Everything built before forkpty(): the child of a threaded process may only call
  // async-signal-safe functions (no allocation) until it execs.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    const std::string_view entry(*e);
    const auto name = entry.substr(0, entry.find('='));
    if (!env.contains(std::string(name))) env_strings.emplace_back(entry);
  }
  for (const auto& [name, value] : env) env_strings.push_back(name + "=" + value);
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_ = ::forkpty(&master_, nullptr, nullptr, nullptr);
  if (pid_ < 0) throw std::runtime_error("forkpty failed");
  if (pid_ == 0) {
    ::execve(args[0], args.data(), envp.data());
    ::_exit(127);
  }
  // The slave's settings are its own (the master's are another terminal's): read them there.
  if (const char* name = ::ptsname(master_)) slave_ = ::open(name, O_RDWR | O_NOCTTY);
}

PtyProcess::~PtyProcess() {
  if (pid_ > 0 && !exited_) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (slave_ >= 0) ::close(slave_);
  ::close(master_);
}

bool PtyProcess::wait_until_raw(std::chrono::milliseconds timeout) {
  if (slave_ < 0) return false;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    termios settings{};
    if (::tcgetattr(slave_, &settings) == 0 && !(settings.c_lflag & ICANON) &&
        !(settings.c_iflag & ICRNL))
      return true;
    wait_for("\x01never\x01", 20ms);  // keeps the terminal drained meanwhile
  }
  return false;
}

bool PtyProcess::type(const std::string& keys) {
  return ::write(master_, keys.data(), keys.size()) == static_cast<ssize_t>(keys.size());
}

bool PtyProcess::wait_for(const std::string& needle, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (screen_.find(needle) == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{master_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buffer[512];
    const auto n = ::read(master_, buffer, sizeof buffer);
    if (n <= 0) return screen_.find(needle) != std::string::npos;  // the program ended
    screen_.append(buffer, static_cast<std::size_t>(n));
  }
  return true;
}

std::optional<int> PtyProcess::wait_exit(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    wait_for("\x01never\x01", 50ms);  // keeps the terminal drained
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      exited_ = true;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
  }
  return std::nullopt;
}

}  // namespace ironhold::test
