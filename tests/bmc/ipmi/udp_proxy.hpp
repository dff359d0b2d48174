#pragma once
// A UDP relay between a client and a BMC on loopback that can tamper with what the BMC answers:
// the man in the middle a test needs to show that forged and replayed packets are dropped.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace ironhold::test {

class UdpProxy {
 public:
  using Datagram = std::vector<std::uint8_t>;
  // Given each reply from the BMC, returns the datagrams to pass on to the client instead.
  using Tamper = std::function<std::vector<Datagram>(const Datagram&)>;

  UdpProxy(const std::string& address, const std::string& bmc_address, unsigned short bmc_port)
      : socket_(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)),
        upstream_(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    ::inet_pton(AF_INET, address.c_str(), &a.sin_addr);
    if (::bind(socket_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
      throw std::runtime_error("proxy bind failed");
    socklen_t len = sizeof a;
    ::getsockname(socket_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    bmc_.sin_family = AF_INET;
    bmc_.sin_port = htons(bmc_port);
    ::inet_pton(AF_INET, bmc_address.c_str(), &bmc_.sin_addr);
    thread_ = std::thread([this] { run(); });
  }
  ~UdpProxy() {
    stop_ = true;
    thread_.join();
    ::close(socket_);
    ::close(upstream_);
  }
  UdpProxy(const UdpProxy&) = delete;
  UdpProxy& operator=(const UdpProxy&) = delete;

  unsigned short port() const { return port_; }
  void set_tamper(Tamper tamper) {
    std::lock_guard lock(mutex_);
    tamper_ = std::move(tamper);
  }

 private:
  void run() {
    pollfd fds[2] = {{socket_, POLLIN, 0}, {upstream_, POLLIN, 0}};
    std::uint8_t buffer[2048];
    while (!stop_) {
      if (::poll(fds, 2, 50) <= 0) continue;
      if (fds[0].revents & POLLIN) {
        socklen_t len = sizeof client_;
        const auto n = ::recvfrom(socket_, buffer, sizeof buffer, 0,
                                  reinterpret_cast<sockaddr*>(&client_), &len);
        if (n > 0)
          ::sendto(upstream_, buffer, static_cast<std::size_t>(n), 0,
                   reinterpret_cast<sockaddr*>(&bmc_), sizeof bmc_);
      }
      if (fds[1].revents & POLLIN) {
        const auto n = ::recv(upstream_, buffer, sizeof buffer, 0);
        if (n <= 0) continue;
        const Datagram reply(buffer, buffer + n);
        std::vector<Datagram> out{reply};
        {
          std::lock_guard lock(mutex_);
          if (tamper_) out = tamper_(reply);
        }
        for (const auto& d : out)
          ::sendto(socket_, d.data(), d.size(), 0, reinterpret_cast<sockaddr*>(&client_),
                   sizeof client_);
      }
    }
  }

  int socket_, upstream_;
  unsigned short port_ = 0;
  sockaddr_in bmc_{}, client_{};
  std::mutex mutex_;
  Tamper tamper_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace ironhold::test
