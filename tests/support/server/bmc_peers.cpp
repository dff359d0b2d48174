#include "tests/support/server/bmc_peers.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "inventory/util/process.hpp"

// Set by tests/CMakeLists.txt to <source>/../shared, where CI keeps the shared test assets.
#ifndef IRONHOLD_SHARED_DIR
#define IRONHOLD_SHARED_DIR ""
#endif

namespace ironhold::test {
namespace {

namespace fs = std::filesystem;

// Where `dpkg -L openipmi` puts them on Debian 12.
const fs::path kIpmiSim = "/usr/bin/ipmi_sim";
const fs::path kSdrcomp = "/usr/bin/sdrcomp";

fs::path sim_dir() {
  return fs::path(IRONHOLD_SHARED_DIR) / "ipmi-sim";
}

sockaddr_in ipv4(const std::string& address, unsigned short port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (inet_pton(AF_INET, address.c_str(), &addr.sin_addr) != 1)
    throw std::invalid_argument("not an IPv4 address: " + address);
  return addr;
}

// Binds a socket of `type` to address:port and returns it; throws on failure.
int bound_socket(int type, const std::string& address, unsigned short port, unsigned short& bound) {
  sockaddr_in addr = ipv4(address, port);
  const int fd = ::socket(AF_INET, type | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket() failed");
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot bind " + address + ":" + std::to_string(port));
  }
  socklen_t length = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length);
  bound = ntohs(addr.sin_port);
  return fd;
}

unsigned short free_port(int type, const std::string& address) {
  unsigned short port = 0;
  ::close(bound_socket(type, address, 0, port));
  return port;
}

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (!path) return false;
  std::string dirs = path;
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const auto end = dirs.find(':', start);
    const fs::path candidate =
        fs::path(dirs.substr(start, end == std::string::npos ? end : end - start)) / program;
    if (::access(candidate.c_str(), X_OK) == 0) return true;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return false;
}

}  // namespace

unsigned short free_tcp_port(const std::string& address) {
  return free_port(SOCK_STREAM, address);
}
unsigned short free_udp_port(const std::string& address) {
  return free_port(SOCK_DGRAM, address);
}

std::optional<std::string> IpmiSim::unavailable() {
  if (!fs::exists(sim_dir() / "start-ipmi-sim.sh"))
    return "no IPMI simulator scripts at " + sim_dir().string() + " (CI has them)";
  if (!fs::exists(kIpmiSim) || !fs::exists(kSdrcomp))
    return kIpmiSim.string() + " is not installed (apt-get install openipmi)";
  if (!on_path("python3")) return "python3 is not on PATH (start-ipmi-sim.sh needs it)";
  return std::nullopt;
}

namespace {

bool udp_port_bound(const std::string& address, unsigned short port) {
  try {
    unsigned short ignored = 0;
    ::close(bound_socket(SOCK_DGRAM, address, port, ignored));
    return false;
  } catch (const std::runtime_error&) {
    return true;
  }
}

// The start script's ipmi_sim again, on the lan.conf it wrote plus `extra` lines. The script has
// no way to add configuration, and ../shared is not ours to change.
void restart_with(const fs::path& state, const std::string& address, unsigned short port,
                  const std::vector<std::string>& extra) {
  util::ProcessOptions options;
  options.timeout = std::chrono::seconds(10);
  util::run_process(sim_dir() / "stop-ipmi-sim.sh", {state.string()}, options);
  {
    std::ofstream conf(state / "lan.conf", std::ios::app);
    for (const auto& line : extra) conf << line << "\n";
  }
  const std::string command =
      "cd \"$1\" && nohup /usr/bin/ipmi_sim -n -c \"$1/lan.conf\" -f \"$2\" -s "
      "\"$1\" > \"$1/ipmi_sim.log\" 2>&1 < /dev/null & echo $! > \"$1/ipmi_sim.pid\"";
  const auto started = util::run_process(
      "/bin/sh", {"-c", command, "sh", state.string(), (sim_dir() / "bmc.emu").string()}, options);
  if (!started.ok()) throw std::runtime_error("ipmi_sim restart: " + started.err);
  for (int i = 0; i < 50 && !udp_port_bound(address, port); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (!udp_port_bound(address, port))
    throw std::runtime_error("ipmi_sim did not bind " + address + ":" + std::to_string(port) +
                             " after the restart");
}

}  // namespace

IpmiSim::IpmiSim(std::string address, unsigned short port, std::vector<std::string> extra_config)
    : address_(std::move(address)) {
  if (auto why = unavailable()) throw std::runtime_error("ipmi_sim: " + *why);
  port_ = port ? port : free_udp_port(address_);
  std::string dir_template = (fs::temp_directory_path() / "ironhold-ipmi-sim-XXXXXX").string();
  if (!::mkdtemp(dir_template.data())) throw std::runtime_error("ipmi_sim: mkdtemp failed");
  state_ = dir_template;
  util::ProcessOptions options;
  options.environment = util::environment_without({"IPMI_SIM_ADDR="});
  options.environment->push_back("IPMI_SIM_ADDR=" + address_);
  options.timeout = std::chrono::seconds(30);
  const auto result = util::run_process(sim_dir() / "start-ipmi-sim.sh",
                                        {std::to_string(port_), state_.string()}, options);
  if (!result.ok()) {
    std::error_code ignored;
    fs::remove_all(state_, ignored);
    throw std::runtime_error("start-ipmi-sim.sh " + address_ + ":" + std::to_string(port_) + " " +
                             result.status_text() + ": " + result.err + result.out);
  }
  if (!extra_config.empty()) restart_with(state_, address_, port_, extra_config);
}

IpmiSim::~IpmiSim() {
  util::ProcessOptions options;
  options.timeout = std::chrono::seconds(10);
  try {
    util::run_process(sim_dir() / "stop-ipmi-sim.sh", {state_.string()}, options);
  } catch (...) {
    // A simulator left running is a leak, not a reason to throw from a destructor.
  }
  std::error_code ignored;
  fs::remove_all(state_, ignored);
}

UdpResponder::UdpResponder(const std::string& address, std::vector<std::uint8_t> reply,
                           unsigned short port)
    : reply_(std::move(reply)) {
  socket_ = bound_socket(SOCK_DGRAM, address, port, port_);
  thread_ = std::thread([this] { run(); });
}

UdpResponder::~UdpResponder() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  ::close(socket_);
}

void UdpResponder::run() {
  std::uint8_t buffer[2048];
  while (!stop_) {
    pollfd p{socket_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    sockaddr_storage from{};
    socklen_t from_length = sizeof from;
    const ssize_t got = ::recvfrom(socket_, buffer, sizeof buffer, 0,
                                   reinterpret_cast<sockaddr*>(&from), &from_length);
    if (got < 0) continue;
    ++received_;
    ::sendto(socket_, reply_.data(), reply_.size(), 0, reinterpret_cast<sockaddr*>(&from),
             from_length);
  }
}

}  // namespace ironhold::test
