#include "sim/redfish/fleet.hpp"

#include <boost/asio/signal_set.hpp>
#include <charconv>
#include <csignal>
#include <nlohmann/json.hpp>

#include "inventory/error.hpp"
#include "inventory/util/log.hpp"
#include "sim/redfish/control_api.hpp"
#include "sim/redfish/control_server.hpp"
#include "sim/tls_cert.hpp"

namespace ironhold::sim {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

std::vector<tcp::endpoint> fleet_endpoints(const std::string& listen, unsigned count,
                                           bool spread_addresses) {
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos)
    throw invalid("--listen wants HOST:PORT (e.g. 127.0.0.1:20001), got \"" + listen + "\"",
                  "listen");
  std::string host = listen.substr(0, colon);
  const std::string port_text = listen.substr(colon + 1);
  unsigned port = 0;
  const auto [p, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc{} || p != port_text.data() + port_text.size() || port > 65535)
    throw invalid("--listen port must be 0 to 65535, got \"" + port_text + "\"", "listen");
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.empty() || host == "localhost") host = "127.0.0.1";
  boost::system::error_code addr_ec;
  const auto address = asio::ip::make_address(host, addr_ec);
  if (addr_ec) throw invalid("--listen host must be an IP address, got \"" + host + "\"", "listen");
  if (count == 0) throw invalid("--count must be at least 1", "count");

  std::vector<tcp::endpoint> out;
  if (spread_addresses) {
    if (!address.is_v4() || (address.to_v4().to_uint() >> 24) != 127)
      throw invalid("--spread-addresses wants a 127.x.y.z --listen address, got \"" + host + "\"",
                    "listen");
    const std::uint32_t first = address.to_v4().to_uint();
    if (((first + count - 1) >> 24) != 127 || (first & 0xFFFFFF) + count - 1 > 0xFFFFFE)
      throw invalid(
          "--count " + std::to_string(count) + " addresses from " + host + " leave 127.0.0.0/8",
          "count");
    for (unsigned i = 0; i < count; ++i)
      out.emplace_back(asio::ip::address_v4(first + i), static_cast<unsigned short>(port));
  } else {
    if (port != 0 && port + count - 1 > 65535)
      throw invalid("--count " + std::to_string(count) + " ports from " + std::to_string(port) +
                        " pass 65535",
                    "count");
    for (unsigned i = 0; i < count; ++i)
      out.emplace_back(address, static_cast<unsigned short>(port == 0 ? 0 : port + i));
  }
  return out;
}

std::vector<std::pair<std::filesystem::path, unsigned>> mockup_groups(const std::string& spec,
                                                                      unsigned count) {
  std::error_code ec;
  const bool list = spec.find(',') != std::string::npos || !std::filesystem::exists(spec, ec);
  if (!list || spec.rfind(':') == std::string::npos) return {{spec, count}};
  std::vector<std::pair<std::filesystem::path, unsigned>> groups;
  std::string_view rest = spec;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const auto at = item.rfind(':');
    unsigned n = 0;
    bool good = at != std::string_view::npos && at > 0;
    if (good) {
      const char* end = item.data() + item.size();
      const auto [p, parse_ec] = std::from_chars(item.data() + at + 1, end, n);
      good = parse_ec == std::errc{} && p == end && n > 0;
    }
    if (!good)
      throw invalid("--mockup wants DIR or DIR:COUNT,DIR:COUNT (COUNT >= 1), got \"" +
                        std::string(item) + "\"",
                    "mockup");
    groups.emplace_back(std::string(item.substr(0, at)), n);
  }
  return groups;
}

RedfishFleet::RedfishFleet(const RedfishFleetOptions& options) : tls_(options.tls) {
  const auto groups = mockup_groups(options.mockup_dir.string(), options.count);
  unsigned total = 0;
  for (const auto& group : groups) total += group.second;
  const auto endpoints = fleet_endpoints(options.listen, total, options.spread_addresses);
  if (!options.state_dir.empty())
    state_dir_ = std::make_unique<redfish::StateDir>(options.state_dir);
  installer_ = std::make_unique<redfish::Installer>(io_, options.installer);
  updater_ = std::make_unique<redfish::Updater>(
      io_, options.updater, [this](unsigned i) -> redfish::BmcState& { return *bmc(i).state; });
  events_ = std::make_unique<redfish::EventSender>(
      io_, options.events, [this](unsigned i) -> redfish::BmcState& { return *bmc(i).state; });
  if (options.ssh_consoles) ssh_ = std::make_unique<redfish::SshConsoles>(options.ssh);
  unsigned index = 0;
  for (const auto& [dir, n] : groups) {
    const redfish::Mockup mockup = redfish::Mockup::load(dir);
    for (unsigned k = 0; k < n; ++k, ++index) add_bmc(index, mockup, options, endpoints[index]);
  }
  if (!options.control.empty()) {
    const auto control = fleet_endpoints(options.control, 1, false).at(0);
    control_ = std::make_unique<redfish::ControlServer>(
        io_, [this](const redfish::Request& request) { return handle_control(*this, request); });
    const tcp::endpoint bound = control_->listen(control);
    control_endpoint_ =
        "http://" + bound.address().to_string() + ":" + std::to_string(bound.port());
  }
}

void RedfishFleet::add_bmc(unsigned index, const redfish::Mockup& mockup,
                           const RedfishFleetOptions& options, const tcp::endpoint& wanted) {
  redfish::SavedBmc saved;
  if (state_dir_) saved = state_dir_->load(index);
  auto bmc = std::make_unique<Bmc>();
  redfish::BmcConfig config;
  config.index = index;
  config.username = options.username;
  config.password = options.password;
  config.reset_delay = options.reset_delay;
  config.update_methods = options.update_methods;
  redfish::Installer* installer = installer_.get();
  config.network_boot = [installer](redfish::NetworkBoot boot) {
    installer->boot(std::move(boot));
  };
  redfish::Updater* updater = updater_.get();
  config.firmware_update = [updater](redfish::FirmwareJob job) { updater->start(std::move(job)); };
  redfish::EventSender* events = events_.get();
  config.deliver_event = [events](redfish::EventDelivery delivery) {
    events->send(std::move(delivery));
  };
  config.power_settles = [events](redfish::PowerSettle settle) {
    events->settle_power(std::move(settle));
  };
  bmc->state = std::make_unique<redfish::BmcState>(mockup, std::move(config));
  if (!saved.state.is_null()) bmc->state->restore_state(saved.state);
  if (state_dir_) {
    // Set after the restore, so restoring does not write the file back.
    const redfish::StateDir* dir = state_dir_.get();
    bmc->state->set_persist(
        [dir, index](const nlohmann::json& state) { dir->save_state(index, state); });
  }
  bmc->server = std::make_unique<redfish::RedfishServer>(io_, *bmc->state, options.tls);
  if (options.tls && saved.certificate) bmc->server->set_certificate(*saved.certificate);
  const tcp::endpoint endpoint = saved.endpoint.value_or(wanted);
  tcp::endpoint bound;
  try {
    bound = bmc->server->listen(endpoint);
  } catch (const Error& e) {
    if (!saved.endpoint) throw;
    // Never move silently: clients (and the demo's database) know this BMC by its saved address.
    throw invalid("BMC " + std::to_string(index) + "'s saved endpoint " +
                      endpoint.address().to_string() + ":" + std::to_string(endpoint.port()) +
                      " (from " + state_dir_->bmc_dir(index).string() +
                      ") cannot be bound now: " + e.what(),
                  "state-dir");
  }
  if (state_dir_ && !saved.endpoint) state_dir_->save_endpoint(index, bound);
  if (state_dir_ && options.tls && !saved.certificate)
    state_dir_->save_certificate(index, bmc->server->certificate());
  bmc->address = bound.address().to_string();
  if (ssh_)
    ssh_->add(
        *bmc->state, bound.address(),
        state_dir_ ? state_dir_->bmc_dir(index) / "ssh_host_ed25519_key" : std::filesystem::path());
  std::string host = bmc->address;
  if (bound.address().is_v6()) host = "[" + host + "]";
  bmc->endpoint =
      (options.tls ? "https://" : "http://") + host + ":" + std::to_string(bound.port());
  bmcs_.push_back(std::move(bmc));
}

RedfishFleet::Bmc& RedfishFleet::bmc(std::size_t i) const {
  if (i >= bmcs_.size())
    throw not_found("no BMC " + std::to_string(i) + " (the fleet has " +
                    std::to_string(bmcs_.size()) + ")");
  return *bmcs_[i];
}

std::string RedfishFleet::change_certificate(std::size_t i) {
  Bmc& b = bmc(i);
  if (!tls_)
    throw conflict("the simulated BMCs serve plain HTTP: there is no certificate to change");
  const SelfSignedCert cert = make_self_signed_cert(b.address);
  if (state_dir_) state_dir_->save_certificate(static_cast<unsigned>(i), cert);
  b.server->set_certificate(cert);
  return sha256_fingerprint(cert.cert_pem);
}

std::string RedfishFleet::certificate_fingerprint(std::size_t i) const {
  if (!tls_) return {};
  return sha256_fingerprint(bmc(i).server->certificate().cert_pem);
}

unsigned RedfishFleet::ssh_console_port(std::size_t i) const {
  bmc(i);
  return ssh_ ? ssh_->port(i) : 0;
}

std::string RedfishFleet::ssh_host_key_fingerprint(std::size_t i) const {
  bmc(i);
  return ssh_ ? ssh_->host_key_fingerprint(i) : std::string();
}

std::string RedfishFleet::change_ssh_host_key(std::size_t i) {
  bmc(i);
  if (!ssh_) throw conflict("the simulated BMCs have no SSH serial consoles");
  return ssh_->change_host_key(i);
}

nlohmann::json RedfishFleet::describe(std::size_t i) const {
  const Bmc& b = bmc(i);
  nlohmann::json out = {{"index", i}, {"endpoint", b.endpoint}};
  if (tls_) out["certificate_sha256"] = certificate_fingerprint(i);
  if (ssh_)
    out["ssh_console"] = {{"port", ssh_->port(i)},
                          {"host_key_sha256", ssh_->host_key_fingerprint(i)}};
  out.update(b.state->describe());
  out["installer"] = installer_->describe(static_cast<unsigned>(i));
  out["virtual_media"] = b.state->virtual_media();
  return out;
}

RedfishFleet::~RedfishFleet() {
  stop();
  if (thread_.joinable()) thread_.join();
  if (ssh_) ssh_->stop();
  // The servers' acceptors go before the io_context (declared first, destroyed last); connections
  // still open are coroutine frames that the io_context destroys with itself.
  control_.reset();
  for (auto& bmc : bmcs_) bmc->server.reset();
}

void RedfishFleet::run() {
  if (ssh_) ssh_->start();
  io_.run();
}

void RedfishFleet::start() {
  if (ssh_) ssh_->start();
  thread_ = std::thread([this] { io_.run(); });
}

void RedfishFleet::stop() {
  io_.stop();
  if (ssh_) ssh_->stop();
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
        << ", \"password\": " << nlohmann::json(options.password).dump()
        << (fleet.ssh_console_port(i)
                ? ", \"ssh_console_port\": " + std::to_string(fleet.ssh_console_port(i))
                : std::string())
        << "}\n";
  out.flush();
  log::info(
      "simulated BMCs serving",
      {{"count", fleet.size()}, {"mockup", options.mockup_dir.string()}, {"tls", options.tls}});
  // The control address goes to the log (stderr): stdout carries only the BMC lines.
  if (!fleet.control_endpoint().empty())
    log::info("simulator control API listening", {{"control", fleet.control_endpoint()}});
  fleet.run();
  return 0;
}

}  // namespace ironhold::sim
