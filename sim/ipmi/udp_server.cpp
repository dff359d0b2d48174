#include "sim/ipmi/udp_server.hpp"

#include <boost/asio/steady_timer.hpp>
#include <memory>

#include "inventory/error.hpp"

namespace ironhold::sim::ipmi {

namespace asio = boost::asio;
using udp = asio::ip::udp;

UdpServer::UdpServer(asio::io_context& io, SimulatedBmc& bmc)
    : io_(io), bmc_(bmc), socket_(io), loss_rng_(std::random_device{}()), console_timer_(io) {}

UdpServer::~UdpServer() {
  console_timer_.cancel();
  boost::system::error_code ignored;
  socket_.close(ignored);
}

udp::endpoint UdpServer::listen(const udp::endpoint& endpoint) {
  boost::system::error_code ec;
  socket_.open(endpoint.protocol(), ec);
  if (!ec) socket_.bind(endpoint, ec);
  if (ec)
    throw invalid("cannot listen for IPMI on " + endpoint.address().to_string() + ":" +
                      std::to_string(endpoint.port()) + " (UDP): " + ec.message(),
                  "listen");
  receive();
  const auto bound = socket_.local_endpoint();
  bmc_.set_udp_port(bound.port());
  return bound;
}

void UdpServer::receive() {
  socket_.async_receive_from(
      asio::buffer(buffer_), sender_,
      [this](const boost::system::error_code& ec, std::size_t size) { on_datagram(ec, size); });
}

void UdpServer::on_datagram(const boost::system::error_code& ec, std::size_t size) {
  if (ec == asio::error::operation_aborted || !socket_.is_open()) return;
  if (!ec && size < buffer_.size()) {
    const Faults faults = bmc_.faults();
    const bool lost =
        faults.loss > 0 && std::uniform_real_distribution<double>(0, 1)(loss_rng_) < faults.loss;
    if (lost || faults.no_answer) {
      bmc_.count_dropped();
    } else {
      const std::string peer = sender_.address().to_string() + ":" + std::to_string(sender_.port());
      if (auto reply = bmc_.handle_datagram(bmc::ipmi::ByteView(buffer_.data(), size), peer))
        send(std::move(*reply), sender_, faults.delay_ms);
      if (!console_pumping_ && bmc_.console_activated()) start_console_pump();
    }
  }
  receive();
}

namespace {

// Sessions keep their peer as "address:port" (IPv6 addresses have colons of their own).
std::optional<udp::endpoint> peer_endpoint(const std::string& peer) {
  const auto colon = peer.rfind(':');
  if (colon == std::string::npos) return std::nullopt;
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(peer.substr(0, colon), ec);
  if (ec) return std::nullopt;
  return udp::endpoint(address, static_cast<unsigned short>(std::stoul(peer.substr(colon + 1))));
}

// Host output reaches the console within this; short enough that typing feels immediate.
constexpr auto kConsoleTick = std::chrono::milliseconds(10);

}  // namespace

void UdpServer::start_console_pump() {
  console_pumping_ = true;
  console_tick();
}

void UdpServer::console_tick() {
  if (!socket_.is_open()) {
    console_pumping_ = false;
    return;
  }
  const unsigned delay_ms = bmc_.faults().delay_ms;
  for (auto& out : bmc_.sol_pump())
    if (const auto to = peer_endpoint(out.peer)) send(std::move(out.datagram), *to, delay_ms);
  if (!bmc_.sol_active()) {
    console_pumping_ = false;
    return;
  }
  console_timer_.expires_after(kConsoleTick);
  console_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;  // cancelled: the server is going away
    console_tick();
  });
}

void UdpServer::send(bmc::ipmi::Bytes datagram, const udp::endpoint& to, unsigned delay_ms) {
  auto data = std::make_shared<bmc::ipmi::Bytes>(std::move(datagram));
  if (delay_ms == 0) {
    socket_.async_send_to(asio::buffer(*data), to,
                          [data](const boost::system::error_code&, std::size_t) {});
    return;
  }
  auto timer = std::make_shared<asio::steady_timer>(io_, std::chrono::milliseconds(delay_ms));
  timer->async_wait([this, timer, data, to](const boost::system::error_code& ec) {
    if (ec || !socket_.is_open()) return;
    socket_.async_send_to(asio::buffer(*data), to,
                          [data](const boost::system::error_code&, std::size_t) {});
  });
}

}  // namespace ironhold::sim::ipmi
