#include "sim/ipmi/fleet.hpp"

#include <sys/resource.h>

#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <cstdio>

#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"
#include "inventory/util/log.hpp"
#include "sim/ipmi/control_api.hpp"
#include "sim/redfish/control_server.hpp"
#include "sim/redfish/fleet.hpp"
#include "sim/redfish/state_dir.hpp"

namespace ironhold::sim {

namespace asio = boost::asio;
using udp = asio::ip::udp;

namespace {

// Thousands of BMCs are thousands of sockets: take the hard limit on descriptors.
void raise_descriptor_limit(unsigned sockets) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= sockets + 64) return;
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
}

}  // namespace

IpmiFleet::IpmiFleet(const IpmiFleetOptions& options) {
  // The same address rules as the Redfish simulator; only the transport differs.
  const auto endpoints = fleet_endpoints(options.listen, options.count, options.spread_addresses);
  raise_descriptor_limit(options.count);
  if (!options.state_dir.empty())
    state_dir_ = std::make_unique<redfish::StateDir>(options.state_dir);
  installer_ = std::make_unique<redfish::Installer>(io_, options.installer);
  for (unsigned i = 0; i < options.count; ++i)
    add_bmc(i, options, udp::endpoint(endpoints[i].address(), endpoints[i].port()));
  if (!options.control.empty()) {
    const auto control = fleet_endpoints(options.control, 1, false).at(0);
    control_ = std::make_unique<redfish::ControlServer>(
        io_,
        [this](const redfish::Request& request) { return handle_ipmi_control(*this, request); });
    const auto bound = control_->listen(control);
    control_endpoint_ =
        "http://" + bound.address().to_string() + ":" + std::to_string(bound.port());
  }
}

std::string ipmi_sim_mac(unsigned index) {
  char mac[18];
  std::snprintf(mac, sizeof mac, "52:54:01:%02x:%02x:%02x", (index >> 16) & 0xFF,
                (index >> 8) & 0xFF, index & 0xFF);
  return mac;
}

void IpmiFleet::add_bmc(unsigned index, const IpmiFleetOptions& options,
                        const udp::endpoint& wanted) {
  redfish::SavedBmc saved;
  if (state_dir_) saved = state_dir_->load(index);
  auto bmc = std::make_unique<Bmc>();
  ipmi::BmcConfig config;
  config.index = index;
  config.username = options.username;
  config.password = options.password;
  if (!options.bmc_key.empty() &&
      (!crypto::from_hex(options.bmc_key, config.bmc_key) || config.bmc_key.size() > 20))
    throw invalid("the BMC key must be hex of at most 20 bytes", "bmc-key");
  config.cycle_delay = options.cycle_delay;
  config.max_sessions = options.max_sessions;
  config.session_timeout = options.session_timeout;
  config.mac = ipmi_sim_mac(index);
  redfish::Installer* installer = installer_.get();
  config.network_boot = [installer, index, mac = config.mac](std::chrono::milliseconds after) {
    redfish::NetworkBoot boot;
    boot.bmc = index;
    boot.macs = {mac};
    boot.powering_on = after;
    installer->boot(std::move(boot));
  };
  bmc->state = std::make_unique<ipmi::SimulatedBmc>(std::move(config));
  if (!saved.state.is_null()) bmc->state->restore_state(saved.state);
  if (state_dir_) {
    const redfish::StateDir* dir = state_dir_.get();
    bmc->state->set_persist(
        [dir, index](const nlohmann::json& state) { dir->save_state(index, state); });
  }
  bmc->server = std::make_unique<ipmi::UdpServer>(io_, *bmc->state);
  const udp::endpoint endpoint =
      saved.endpoint ? udp::endpoint(saved.endpoint->address(), saved.endpoint->port()) : wanted;
  udp::endpoint bound;
  try {
    bound = bmc->server->listen(endpoint);
  } catch (const Error& e) {
    if (!saved.endpoint) throw;
    throw invalid("BMC " + std::to_string(index) + "'s saved endpoint " +
                      endpoint.address().to_string() + ":" + std::to_string(endpoint.port()) +
                      " (from " + state_dir_->bmc_dir(index).string() +
                      ") cannot be bound now: " + e.what(),
                  "state-dir");
  }
  if (state_dir_ && !saved.endpoint)
    state_dir_->save_endpoint(index, asio::ip::tcp::endpoint(bound.address(), bound.port()));
  bmc->host = bound.address().to_string();
  bmc->port = bound.port();
  const std::string host = bound.address().is_v6() ? "[" + bmc->host + "]" : bmc->host;
  bmc->endpoint = "ipmi://" + host + ":" + std::to_string(bound.port());
  bmcs_.push_back(std::move(bmc));
}

IpmiFleet::Bmc& IpmiFleet::bmc(std::size_t i) const {
  if (i >= bmcs_.size())
    throw not_found("no BMC " + std::to_string(i) + " (the fleet has " +
                    std::to_string(bmcs_.size()) + ")");
  return *bmcs_[i];
}

nlohmann::json IpmiFleet::describe(std::size_t i) const {
  const Bmc& b = bmc(i);
  nlohmann::json out = {{"index", i}, {"endpoint", b.endpoint}, {"mac", ipmi_sim_mac(i)}};
  out.update(b.state->describe());
  out["installer"] = installer_->describe(static_cast<unsigned>(i));
  return out;
}

IpmiFleet::~IpmiFleet() {
  stop();
  if (thread_.joinable()) thread_.join();
  // Sockets before the io_context (declared first, destroyed last): their pending handlers are
  // destroyed with it, never run.
  control_.reset();
  for (auto& bmc : bmcs_) bmc->server.reset();
  installer_.reset();
}

void IpmiFleet::run() {
  io_.run();
}

void IpmiFleet::start() {
  thread_ = std::thread([this] { io_.run(); });
}

void IpmiFleet::stop() {
  io_.stop();
}

int run_ipmi_fleet(const IpmiFleetOptions& options, std::ostream& out) {
  IpmiFleet fleet(options);
  asio::signal_set signals(fleet.io(), SIGINT, SIGTERM);
  signals.async_wait([&fleet](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    log::info("simulated IPMI BMCs stopping", {{"signal", signal}});
    fleet.stop();
  });
  for (std::size_t i = 0; i < fleet.size(); ++i)
    out << "{\"endpoint\": " << nlohmann::json(fleet.endpoint(i)).dump()
        << ", \"username\": " << nlohmann::json(options.username).dump()
        << ", \"password\": " << nlohmann::json(options.password).dump() << "}\n";
  out.flush();
  log::info("simulated IPMI BMCs serving", {{"count", fleet.size()}});
  // The control address goes to the log (stderr): stdout carries only the BMC lines.
  if (!fleet.control_endpoint().empty())
    log::info("simulator control API listening", {{"control", fleet.control_endpoint()}});
  fleet.run();
  return 0;
}

}  // namespace ironhold::sim
