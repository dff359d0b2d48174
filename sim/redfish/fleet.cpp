#include "sim/redfish/fleet.hpp"

#include <boost/asio/signal_set.hpp>
#include <charconv>
#include <csignal>
#include <nlohmann/json.hpp>

#include "inventory/error.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::sim {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

std::vector<tcp::endpoint> fleet_endpoints(const std::string& listen, unsigned count, bool spread_addresses) {
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos)
    throw invalid("--listen wants HOST:PORT (e.g. 127.0.0.1:20001), got \"" + listen + "\"", "listen");
  std::string host = listen.substr(0, colon);
  const std::string port_text = listen.substr(colon + 1);
  unsigned port = 0;
  const auto [p, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc{} || p != port_text.data() + port_text.size() || port > 65535)
    throw invalid("--listen port must be 0 to 65535, got \"" + port_text + "\"", "listen");
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty() || host == "localhost") host = "127.0.0.1";
  boost::system::error_code addr_ec;
  const auto address = asio::ip::make_address(host, addr_ec);
  if (addr_ec) throw invalid("--listen host must be an IP address, got \"" + host + "\"", "listen");
  if (count == 0) throw invalid("--count must be at least 1", "count");

  std::vector<tcp::endpoint> out;
  if (spread_addresses) {
    if (!address.is_v4() || (address.to_v4().to_uint() >> 24) != 127)
      throw invalid("--spread-addresses wants a 127.x.y.z --listen address, got \"" + host + "\"", "listen");
    const std::uint32_t first = address.to_v4().to_uint();
    if (((first + count - 1) >> 24) != 127 || (first & 0xFFFFFF) + count - 1 > 0xFFFFFE)
      throw invalid("--count " + std::to_string(count) + " addresses from " + host + " leave 127.0.0.0/8", "count");
    for (unsigned i = 0; i < count; ++i)
      out.emplace_back(asio::ip::address_v4(first + i), static_cast<unsigned short>(port));
  } else {
    if (port != 0 && port + count - 1 > 65535)
      throw invalid("--count " + std::to_string(count) + " ports from " + std::to_string(port) + " pass 65535",
                    "count");
    for (unsigned i = 0; i < count; ++i)
      out.emplace_back(address, static_cast<unsigned short>(port == 0 ? 0 : port + i));
  }
  return out;
}

RedfishFleet::RedfishFleet(const RedfishFleetOptions& options) {
  const auto endpoints = fleet_endpoints(options.listen, options.count, options.spread_addresses);
  const redfish::Mockup mockup = redfish::Mockup::load(options.mockup_dir);
  for (unsigned i = 0; i < endpoints.size(); ++i) {
    auto bmc = std::make_unique<Bmc>();
    redfish::BmcConfig config;
    config.index = i;
    config.username = options.username;
    config.password = options.password;
    config.reset_delay = options.reset_delay;
    bmc->state = std::make_unique<redfish::BmcState>(mockup, std::move(config));
    bmc->server = std::make_unique<redfish::RedfishServer>(io_, *bmc->state, options.tls);
    const tcp::endpoint bound = bmc->server->listen(endpoints[i]);
    std::string host = bound.address().to_string();
    if (bound.address().is_v6()) host = "[" + host + "]";
    bmc->endpoint = (options.tls ? "https://" : "http://") + host + ":" + std::to_string(bound.port());
    bmcs_.push_back(std::move(bmc));
  }
}

RedfishFleet::~RedfishFleet() {
  stop();
  if (thread_.joinable()) thread_.join();
  // The servers' acceptors go before the io_context (declared first, destroyed last); connections
  // still open are coroutine frames that the io_context destroys with itself.
  for (auto& bmc : bmcs_) bmc->server.reset();
}

void RedfishFleet::run() {
  io_.run();
}

void RedfishFleet::start() {
  thread_ = std::thread([this] { io_.run(); });
}

void RedfishFleet::stop() {
  io_.stop();
}

int run_redfish_fleet(const RedfishFleetOptions& options, std::ostream& out) {
  RedfishFleet fleet(options);
  asio::signal_set signals(fleet.io(), SIGINT, SIGTERM);
  signals.async_wait([&fleet](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    log::info("simulated BMCs stopping", {{"signal", signal}});
    fleet.stop();
  });
  for (std::size_t i = 0; i < fleet.size(); ++i)
    out << "{\"endpoint\": " << nlohmann::json(fleet.endpoint(i)).dump()
        << ", \"username\": " << nlohmann::json(options.username).dump()
        << ", \"password\": " << nlohmann::json(options.password).dump() << "}\n";
  out.flush();
  log::info("simulated BMCs serving", {{"count", fleet.size()}, {"mockup", options.mockup_dir.string()},
                                       {"tls", options.tls}});
  fleet.run();
  return 0;
}

}  // namespace ironhold::sim
