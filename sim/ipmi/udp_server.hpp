#pragma once
// The UDP socket of one simulated IPMI BMC on the shared io_context: receive, let SimulatedBmc
// answer, send — acting out the wire faults (loss, delay, no answer) on the way. Callback-style
// Asio: one outstanding receive per socket and no thread, so thousands of BMCs fit one process.
#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <random>

#include "sim/ipmi/simulated_bmc.hpp"

namespace ironhold::sim::ipmi {

class UdpServer {
 public:
  UdpServer(boost::asio::io_context& io, SimulatedBmc& bmc);
  ~UdpServer();
  UdpServer(const UdpServer&) = delete;
  UdpServer& operator=(const UdpServer&) = delete;

  // Binds and starts receiving; returns the bound endpoint. ironhold::Error (invalid) when the
  // address cannot be bound.
  boost::asio::ip::udp::endpoint listen(const boost::asio::ip::udp::endpoint& endpoint);

 private:
  void receive();
  void on_datagram(const boost::system::error_code& ec, std::size_t size);
  void send(bmc::ipmi::Bytes datagram, const boost::asio::ip::udp::endpoint& to, unsigned delay_ms);
  // While a Serial-over-LAN console is active, the BMC sends by itself (host output, retries):
  // a tick every few milliseconds then, none otherwise.
  void start_console_pump();
  void console_tick();

  boost::asio::io_context& io_;
  SimulatedBmc& bmc_;
  boost::asio::ip::udp::socket socket_;
  boost::asio::ip::udp::endpoint sender_;
  // Real IPMI datagrams are well under 300 bytes; anything past this is cut and dropped.
  std::array<std::uint8_t, 1024> buffer_{};
  std::minstd_rand loss_rng_;
  boost::asio::steady_timer console_timer_;
  bool console_pumping_ = false;
};

}  // namespace ironhold::sim::ipmi
