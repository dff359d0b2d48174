#pragma once
// Peers that stand in for BMCs on loopback: OpenIPMI's real ipmi_sim, a UDP socket that answers
// every datagram with fixed bytes (a hostile or confused device), and free ports to find closed
// ones. Each test uses its own 127.0.0.x address so that parallel tests never share a port.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace ironhold::test {

// A port on `address` (IPv4) that nothing listens on right now: bound to port 0, read, closed.
unsigned short free_tcp_port(const std::string& address);
unsigned short free_udp_port(const std::string& address);

// One ipmi_sim instance started by ../shared/ipmi-sim/start-ipmi-sim.sh (beside the source tree,
// as on CI; a developer's clone may not have it) on UDP address:port, with its state in a
// temporary directory. Users: admin/password, operator/operpass, viewer/viewpass.
class IpmiSim {
 public:
  // Why the simulator cannot run on this machine (no ../shared/ipmi-sim, or the openipmi
  // package is not installed), or nullopt when it can. Tests skip with this reason.
  static std::optional<std::string> unavailable();

  // Starts it (port 0: a free one); throws std::runtime_error with the script's output on failure.
  // `extra_config` lines are added to the end of its lan.conf (for the BMC at 20h), e.g.
  // `sol "tcp:127.0.0.1:9002" 115200` for a serial console whose host is a TCP server.
  explicit IpmiSim(std::string address, unsigned short port = 0,
                   std::vector<std::string> extra_config = {});
  ~IpmiSim();  // stops it and removes its state
  IpmiSim(const IpmiSim&) = delete;
  IpmiSim& operator=(const IpmiSim&) = delete;

  const std::string& address() const { return address_; }
  unsigned short port() const { return port_; }
  const std::filesystem::path& state_dir() const { return state_; }

 private:
  std::string address_;
  unsigned short port_ = 0;
  std::filesystem::path state_;
};

// Answers every datagram on UDP address:port with `reply` (port 0: a free one), from a thread.
class UdpResponder {
 public:
  UdpResponder(const std::string& address, std::vector<std::uint8_t> reply,
               unsigned short port = 0);
  ~UdpResponder();
  UdpResponder(const UdpResponder&) = delete;
  UdpResponder& operator=(const UdpResponder&) = delete;

  unsigned short port() const { return port_; }
  int datagrams_received() const { return received_; }

 private:
  void run();

  std::vector<std::uint8_t> reply_;
  int socket_ = -1;
  unsigned short port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> received_{0};
  std::thread thread_;
};

}  // namespace ironhold::test
