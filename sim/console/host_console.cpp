#include "sim/console/host_console.hpp"

#include <array>
#include <vector>

namespace ironhold::sim {

namespace {

// Between two lines of the boot log: fast enough for tests, slow enough to be seen arriving.
constexpr auto kLineGap = std::chrono::milliseconds(15);
constexpr std::size_t kMaxLine = 256;

std::string prompt(const std::string& hostname) {
  return hostname + " login: ";
}

}  // namespace

HostConsole::HostConsole(std::string hostname) : hostname_(std::move(hostname)) {}

void HostConsole::emit(Clock::time_point at, std::string text) {
  if (!scheduled_.empty() && scheduled_.back().at > at) at = scheduled_.back().at;
  scheduled_.push_back({at, std::move(text)});
}

void HostConsole::remember(std::string_view text) {
  history_.append(text);
  if (history_.size() > kHistoryBytes) history_.erase(0, history_.size() - kHistoryBytes);
}

void HostConsole::boot(Clock::time_point now, std::string_view device) {
  // What was printed before the boot starts (the shutdown of a restart scheduled ahead) stays.
  while (!scheduled_.empty() && scheduled_.back().at >= now) scheduled_.pop_back();
  line_.clear();
  powered_ = true;
  const std::string dev(device);
  std::vector<std::string> lines = {
      "\r\nIronhold simulated firmware 2.4.1, " + hostname_ + "\r\n",
      "Memory test: 2097152 MB OK\r\n",
      "Booting from " + dev + "...\r\n",
  };
  if (dev == "pxe")
    lines.push_back(">>Start PXE over IPv4.\r\n  Station IP address is 192.0.2.10\r\n");
  const std::array<const char*, 8> kernel = {
      "[    0.000000] Linux version 6.1.0-28-amd64 (sim) #1 SMP PREEMPT_DYNAMIC Debian "
      "6.1.119-1\r\n",
      "[    0.000000] Command line: BOOT_IMAGE=/vmlinuz root=/dev/md0 console=ttyS0,115200n8\r\n",
      "[    1.204511] pci 0000:17:00.0: [10de:2330] type 00 class 0x030200\r\n",
      "[    4.880102] nvidia: loading out-of-tree module taints kernel.\r\n",
      "[    5.113480] nvidia-nvswitch: Probing 4 NVSwitches.\r\n",
      "[    7.402991] EXT4-fs (md0): mounted filesystem with ordered data mode.\r\n",
      "[   11.532007] systemd[1]: Reached target multi-user.target.\r\n",
      "\r\n",
  };
  for (const char* line : kernel) lines.emplace_back(line);
  lines.push_back("Debian GNU/Linux 12 " + hostname_ + " ttyS0\r\n\r\n" + prompt(hostname_));
  auto at = now;
  for (auto& line : lines) {
    at += kLineGap;
    emit(at, std::move(line));
  }
}

void HostConsole::power_off(Clock::time_point now) {
  if (!powered_) return;
  scheduled_.clear();
  line_.clear();
  emit(now, "\r\n[ 4242.000000] reboot: Power down\r\n");
  powered_ = false;
}

void HostConsole::type(std::string_view keys, Clock::time_point now) {
  received_.append(keys);
  if (received_.size() > kHistoryBytes) received_.erase(0, received_.size() - kHistoryBytes);
  if (!powered_) return;
  std::string echo;
  for (const char c : keys) {
    if (c == '\r' || c == '\n') {
      echo += "\r\n";
      if (!line_.empty()) echo += "Login incorrect\r\n\r\n";
      echo += prompt(hostname_);
      line_.clear();
    } else if (c == 0x7F || c == 0x08) {
      if (!line_.empty()) {
        line_.pop_back();
        echo += "\b \b";
      }
    } else if (static_cast<unsigned char>(c) >= 0x20 && line_.size() < kMaxLine) {
      line_ += c;
      echo += c;
    }
  }
  if (!echo.empty()) emit(now, std::move(echo));
}

void HostConsole::print(std::string_view text, Clock::time_point now) {
  emit(now, std::string(text));
}

std::string HostConsole::take_output(Clock::time_point now) {
  std::string out;
  while (!scheduled_.empty() && scheduled_.front().at <= now) {
    out += scheduled_.front().text;
    scheduled_.pop_front();
  }
  remember(out);
  return out;
}

std::optional<HostConsole::Clock::time_point> HostConsole::next_output_at() const {
  if (scheduled_.empty()) return std::nullopt;
  return scheduled_.front().at;
}

std::string printable_ascii(const std::string& bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (const char c : bytes) out += static_cast<unsigned char>(c) < 0x80 ? c : '?';
  return out;
}

}  // namespace ironhold::sim
