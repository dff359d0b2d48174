#include "sim/ipmi/udp_server.hpp"

#include <boost/asio/steady_timer.hpp>
#include <memory>

#include "inventory/error.hpp"

namespace ironhold::sim::ipmi {

namespace asio = boost::asio;
using udp = asio::ip::udp;

UdpServer::UdpServer(asio::io_context& io, SimulatedBmc& bmc)
    : io_(io), bmc_(bmc), socket_(io), loss_rng_(std::random_device{}()) {}

UdpServer::~UdpServer() {
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
  return socket_.local_endpoint();
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
    }
  }
  receive();
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
