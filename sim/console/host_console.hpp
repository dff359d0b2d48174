#pragma once
// The serial port of a simulated server, as a BMC's console sees it: what the host prints (a
// firmware and kernel boot log when it powers on, a login prompt, the echo of what is typed) and
// what it was sent. Both simulators put it behind their console protocol (IPMI SOL, the SSH
// serial console of Redfish BMCs), so tests can type into a node and read how it booted.
//
// Output is timed: a boot log comes out a line at a time after the power-on, as a real one does,
// and take_output() hands over what is due. Not thread-safe: the owning BMC's lock covers it.
#include <chrono>
#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

namespace ironhold::sim {

class HostConsole {
 public:
  using Clock = std::chrono::steady_clock;

  // `hostname` appears in the boot log and the login prompt ("sim-node-7").
  explicit HostConsole(std::string hostname);

  // The server powered on (or was reset) and boots from `device` ("disk", "pxe", "cdrom"): the
  // boot log is scheduled from `now` (which may be ahead: a restart's power-on), replacing
  // anything scheduled from then on.
  void boot(Clock::time_point now, std::string_view device);
  // The server lost power: whatever was still to come is dropped.
  void power_off(Clock::time_point now);
  // Keystrokes from the console: echoed as a terminal in cooked mode does; Enter answers with
  // a new prompt. Ignored while the server is off (its serial port is dead).
  void type(std::string_view keys, Clock::time_point now);
  // Text the host prints now (a kernel panic in a test), even while nobody is connected.
  void print(std::string_view text, Clock::time_point now);

  // Everything due by `now` that was not taken yet.
  std::string take_output(Clock::time_point now);
  std::optional<Clock::time_point> next_output_at() const;

  // The last characters printed (at most kHistoryBytes), taken or not, and every key received.
  std::string history() const { return history_; }
  std::string received() const { return received_; }
  bool powered() const { return powered_; }

  static constexpr std::size_t kHistoryBytes = 16 * 1024;

 private:
  struct Line {
    Clock::time_point at;
    std::string text;
  };
  void emit(Clock::time_point at, std::string text);
  void remember(std::string_view text);

  std::string hostname_;
  bool powered_ = true;
  std::deque<Line> scheduled_;
  std::string line_;  // what was typed since the last Enter
  std::string history_, received_;
};

// Bytes past ASCII as '?', so that a control API's JSON of a console stays valid UTF-8.
std::string printable_ascii(const std::string& bytes);

}  // namespace ironhold::sim
