#include "app/server/demo_fleet.hpp"

#include <algorithm>
#include <array>
#include <chrono>

#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"
#include "inventory/util/log.hpp"
#include "inventory/util/time.hpp"

#ifndef IRONHOLD_SOURCE_DIR
#define IRONHOLD_SOURCE_DIR ""
#endif

namespace ironhold::app {
namespace {

namespace fs = std::filesystem;

constexpr const char* demo_password = "demo-password";

// How long the demo's simulated installer takes: long enough to watch the node provisioning.
constexpr std::chrono::milliseconds demo_install_time{15'000};
// Redfish simulator groups up to this size serve SSH serial consoles (see start_fleet).
constexpr unsigned demo_ssh_console_limit = 256;

// "ams1", "fra2", then "site3", ... for fleets larger than the demo's own.
std::string site_name(unsigned site) {
  if (site == 0) return "ams1";
  if (site == 1) return "fra2";
  return "site" + std::to_string(site + 1);
}

std::unique_ptr<sim::RedfishFleet> start_fleet(const fs::path& mockup, unsigned count,
                                               const fs::path& state, const std::string& pxe_url,
                                               const DemoSimulatorOptions& simulators) {
  sim::RedfishFleetOptions options;
  if (simulators.control) options.control = "127.0.0.1:0";
  options.reset_delay = simulators.reset_delay;
  options.installer.pxe_url = pxe_url;
  options.installer.install_time = demo_install_time;
  options.mockup_dir = mockup;
  options.count = count;
  options.listen = "127.0.0.1:0";  // free ports the first time; the state dir keeps them after
  options.password = demo_password;
  options.state_dir = state;
  // An SSH console is one more listening socket per BMC, in this process beside the BMCs' HTTPS
  // listeners and the service's connections to them: stress-sized demos go without.
  options.ssh_consoles = count <= demo_ssh_console_limit;
  auto fleet = std::make_unique<sim::RedfishFleet>(options);
  fleet->start();
  return fleet;
}

// Example prices for the demo's own models, sites and instance types, so that its cost page
// has something to compare; only into a database that has none (an admin's prices stay theirs).
// Round figures of the kind a team would start from, not quotes.
void seed_demo_prices(ServiceHost& host) {
  if (!host.prices().list().servers.empty()) return;
  const auto since = *parse_rfc3339("2026-01-01T00:00:00Z");
  auto server = [&](const char* model, double purchase, double hosting, double watts) {
    ServerPrice p;
    p.model = model;
    p.effective_from = since;
    p.currency = "USD";
    p.purchase_price = purchase;
    p.depreciation_months = 48;
    p.hosting_per_month = hosting;
    p.rated_watts = watts;
    host.prices().add(p, "demo");
  };
  server("Ironworks G8-H100", 280000, 1800, 10200);
  server("Ironworks C1-9354", 18000, 300, 900);
  for (const auto& [site, per_kwh] :
       {std::pair<const char*, double>{"ams1", 0.21}, {"fra2", 0.24}, {"*", 0.15}}) {
    EnergyPrice p;
    p.site = site;
    p.effective_from = since;
    p.currency = "USD";
    p.per_kwh = per_kwh;
    host.prices().add(p, "demo");
  }
  const std::tuple<const char*, const char*, double> instances[] = {
      {"ec2", "p5.48xlarge", 98.32},
      {"ec2", "p4d.24xlarge", 32.77},
      {"ec2", "g5.xlarge", 1.01},
      {"ec2", "g6.xlarge", 0.80},
      {"openstack", "g1.h100x8", 60.00},
      {"openstack", "g1.a100x8", 28.00},
      {"bcc", "bcc.lgn5.c128m1024.8a100", 30.00},
      {"bcc", "bcc.lgn7.c96m1024.8h20", 22.00}};
  for (const auto& [provider, type, per_hour] : instances) {
    InstancePrice p;
    p.provider = provider;
    p.region = "*";
    p.instance_type = type;
    p.effective_from = since;
    p.currency = "USD";
    p.per_hour = per_hour;
    host.prices().add(p, "demo");
  }
}

}  // namespace

fs::path find_demo_mockups() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("IRONHOLD_MOCKUPS"); env && *env) candidates.emplace_back(env);
  if (*IRONHOLD_SOURCE_DIR) candidates.push_back(fs::path(IRONHOLD_SOURCE_DIR) / "mockups");
  candidates.push_back(fs::current_path() / "mockups");
  std::string tried;
  for (const auto& dir : candidates) {
    if (fs::exists(dir / "hgx-gpu-server" / "index.json")) return dir;
    tried += (tried.empty() ? "" : ", ") + dir.string();
  }
  throw invalid("the demo's Redfish mockups were not found (tried " + tried +
                "); set IRONHOLD_MOCKUPS to the repository's mockups/ folder");
}

DemoFleet::DemoFleet(const fs::path& data_dir, const fs::path& mockups,
                     const std::string& advertise_url, const DemoSimulatorOptions& simulators) {
  const fs::path state = data_dir / "demo-bmcs";
  // What the site's DHCP would tell a PXE client: Ironhold's script for its MAC.
  const std::string pxe_url = advertise_url + "/api/v1/provisioning/ipxe?mac=${net0/mac}";
  const unsigned redfish_servers = std::max(simulators.redfish_servers, 6u);
  const unsigned ipmi_servers = std::max(simulators.ipmi_servers, 1u);  // IPMI only: older servers
  const auto is_compute = [](unsigned i) { return i % 6 == 5; };        // every sixth
  const unsigned compute_servers = redfish_servers / 6;
  const unsigned gpu_servers = redfish_servers - compute_servers;
  const fs::path gpu_mockup =
      simulators.gpu_mockup.empty() ? mockups / "hgx-gpu-server" : simulators.gpu_mockup;
  gpu_ = start_fleet(gpu_mockup, gpu_servers, state / "gpu", pxe_url, simulators);
  compute_ = start_fleet(mockups / "compute-server", compute_servers, state / "compute", pxe_url,
                         simulators);

  // Two sites (a third past 48 servers, ...), three racks each, eight servers a rack.
  unsigned next_gpu = 0, next_compute = 0;
  for (unsigned i = 0; i < redfish_servers; ++i) {
    const unsigned site = i / 24, rack = (i % 24) / 8 + 1, slot = i % 8 + 1;
    const bool compute = is_compute(i);
    DemoBmc bmc;
    bmc.site = site_name(site);
    bmc.rack = "R" + std::to_string(rack);
    bmc.unit = static_cast<int>(slot * 4);
    bmc.kind = compute ? "compute" : "gpu";
    bmc.name = bmc.site + "-r" + std::to_string(rack) + "-" + (compute ? "cpu" : "gpu") + "0" +
               std::to_string(slot);
    bmc.endpoint = compute ? compute_->endpoint(next_compute++) : gpu_->endpoint(next_gpu++);
    bmcs_.push_back(std::move(bmc));
  }
  // Rack R4 in ams1: IPMI-only servers (older machines, or Redfish switched off).
  sim::IpmiFleetOptions ipmi;
  ipmi.count = ipmi_servers;
  ipmi.listen = "127.0.0.1:0";
  ipmi.password = demo_password;
  ipmi.state_dir = state / "ipmi";
  if (simulators.control) ipmi.control = "127.0.0.1:0";
  ipmi.cycle_delay = simulators.reset_delay;
  ipmi_ = std::make_unique<sim::IpmiFleet>(ipmi);
  ipmi_->start();
  for (unsigned i = 0; i < ipmi_servers; ++i) {
    DemoBmc bmc;
    bmc.site = "ams1";
    bmc.rack = "R4";
    bmc.unit = static_cast<int>((i + 1) * 2);
    bmc.kind = "ipmi";
    bmc.driver = "ipmi";
    bmc.name = "ams1-r4-ipmi0" + std::to_string(i + 1);
    bmc.endpoint = ipmi_->endpoint(i);
    bmcs_.push_back(std::move(bmc));
  }
  // A few unhealthy servers and one BMC that has stopped answering, so the console has
  // something to show; a small fleet (at least five GPU servers) has them all, closer together.
  // Health is part of the simulators' saved state; the fault is set anew.
  const bool spread = gpu_servers > 26;
  gpu_->state(spread ? 3 : 1).set_health("Warning");
  gpu_->state(spread ? 14 : 2).set_health("Warning");
  gpu_->state(spread ? 25 : 3).set_health("Critical");
  // And a GPU that counts an uncorrectable ECC error (the GPU health alerts of docs/alerts.md);
  // a mockup without HGX GPUs has none to fail.
  try {
    gpu_->state(spread ? 8 : 0).set_gpu_fault("GPU_SXM_5", {{"uncorrectable_ecc", 1}});
  } catch (const Error&) {
  }
  sim::redfish::Faults dead;
  dead.reset_connections = true;
  gpu_->set_faults(gpu_servers - 1, dead);
  log::info("demo BMCs serving", {{"count", bmcs_.size()}, {"state_dir", state.string()}});
  start_clouds();
}

// The clouds run on a thread of their own; their instances are fresh each run (a cloud's
// instances come and go: the sync retires the ones that are gone and enrolls the new).
void DemoFleet::start_clouds() {
  const boost::asio::ip::tcp::endpoint any(boost::asio::ip::make_address("127.0.0.1"), 0);
  openstack_ = std::make_unique<sim::cloud::openstack::OpenStackSimulator>(cloud_io_);
  openstack_->listen(any);
  ec2_ = std::make_unique<sim::cloud::ec2::Ec2Simulator>(cloud_io_);
  const auto ec2_port = ec2_->listen(any).port();
  bcc_ = std::make_unique<sim::cloud::bcc::BccSimulator>(cloud_io_);
  const auto bcc_port = bcc_->listen(any).port();
  cloud_thread_ = std::thread([this] { cloud_io_.run(); });

  const auto os = sim::cloud::openstack::OpenStackSimulatorOptions{};
  cloud_accounts_.push_back({{"name", "openstack-lab"},
                             {"provider", "openstack"},
                             {"endpoint", openstack_->auth_url()},
                             {"region", os.region},
                             {"credentials",
                              {{"username", os.username},
                               {"password", os.password},
                               {"user_domain_name", os.user_domain_name},
                               {"project_name", os.project_name},
                               {"project_domain_name", os.project_domain_name}}}});
  const auto& e = ec2_->options();
  cloud_accounts_.push_back(
      {{"name", "aws-" + e.region},
       {"provider", "ec2"},
       {"endpoint", "http://127.0.0.1:" + std::to_string(ec2_port) + "/"},
       {"region", e.region},
       {"credentials",
        {{"access_key_id", e.access_key_id}, {"secret_access_key", e.secret_access_key}}}});
  const auto& b = bcc_->options();
  cloud_accounts_.push_back(
      {{"name", "baidu-" + b.region},
       {"provider", "bcc"},
       {"endpoint", "http://127.0.0.1:" + std::to_string(bcc_port)},
       {"region", b.region},
       {"credentials", {{"access_key", b.access_key}, {"secret_key", b.secret_key}}}});
  log::info("demo clouds serving", {{"accounts", cloud_accounts_.size()}});
}

std::vector<std::pair<std::string, std::string>> DemoFleet::control_endpoints() const {
  std::vector<std::pair<std::string, std::string>> out;
  const std::pair<const char*, std::string> fleets[] = {
      {"redfish-gpu", gpu_->control_endpoint()},
      {"redfish-compute", compute_->control_endpoint()},
      {"ipmi", ipmi_->control_endpoint()}};
  for (const auto& [name, url] : fleets)
    if (!url.empty()) out.emplace_back(name, url);
  return out;
}

DemoFleet::~DemoFleet() {
  if (gpu_) gpu_->stop();
  if (compute_) compute_->stop();
  if (ipmi_) ipmi_->stop();
  if (openstack_) openstack_->close();
  if (ec2_) ec2_->close();
  if (bcc_) bcc_->close();
  cloud_io_.stop();
  if (cloud_thread_.joinable()) cloud_thread_.join();
}

void seed_demo_fleet(ServiceHost& host, const DemoFleet& fleet) {
  int enrolled = 0, moved = 0;
  for (const auto& bmc : fleet.bmcs()) {
    nlohmann::json body = {
        {"name", bmc.name},
        {"driver", bmc.driver},
        {"endpoint", bmc.endpoint},
        {"credentials", {{"username", "admin"}, {"password", demo_password}}},
        {"location", {{"site", bmc.site}, {"rack", bmc.rack}, {"unit", bmc.unit}}},
        {"tags",
         {{"team", bmc.site == "ams1" ? "research" : "inference"},
          {"kind", bmc.kind},
          {"demo", "true"}}}};
    try {
      host.nodes().create(parse_node_spec(body));
      ++enrolled;
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::conflict) throw;
      // Enrolled by an earlier run: keep the node (and its history); follow the simulator.
      const Node existing = host.nodes().get(bmc.name);
      if (existing.endpoint != bmc.endpoint) {
        host.nodes().update(existing.id,
                            {{"endpoint", bmc.endpoint}, {"credentials", body["credentials"]}});
        ++moved;
      }
    }
  }
  for (const auto& body : fleet.cloud_accounts()) {
    try {
      host.cloud_accounts().create(parse_cloud_account_spec(body));
      ++enrolled;
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::conflict) throw;
      // Enrolled by an earlier run: follow the simulator's new port and credentials.
      bool credentials_changed = false;
      host.cloud_accounts().update(
          body["name"].get<std::string>(),
          {{"endpoint", body["endpoint"]}, {"credentials", body["credentials"]}},
          credentials_changed);
      ++moved;
    }
  }
  // The simulated clouds' own flavors and specs, mapped as a site's admin would map theirs (the
  // seeded catalogue knows only public instance types and unambiguous GPU names).
  const std::pair<const char*, const char*> flavors[] = {{"g1.h100x8", "NVIDIA H100 SXM5 80GB"},
                                                         {"g1.a100x8", "NVIDIA A100 SXM4 80GB"},
                                                         {"bcc.lgn5.*", "NVIDIA A100 SXM4 80GB"},
                                                         {"bcc.lgn7.*", "NVIDIA H20 SXM 96GB"}};
  for (const auto& [flavor, model] : flavors) {
    try {
      host.gpu_catalogue().add_alias(model, {"instance_type", flavor}, "demo");
    } catch (const Error& e) {
      // An admin of this demo moved the alias elsewhere, or removed the model: theirs to keep.
      if (e.kind() != ErrorKind::conflict && e.kind() != ErrorKind::not_found) throw;
    }
  }
  seed_demo_prices(host);
  log::info("demo fleet ready", {{"enrolled_now", enrolled}, {"endpoints_updated", moved}});
}

std::string create_demo_token(ServiceHost& host) {
  const auto name = "demo-admin-" + format_rfc3339(std::chrono::system_clock::now());
  return host.tokens().create({.name = name, .role = Role::admin, .created_by = "demo"}).secret;
}

std::string reset_demo_user(ServiceHost& host) {
  std::array<std::uint8_t, 12> bytes{};
  crypto::random_bytes(bytes);
  const std::string password = crypto::base64url(bytes);
  if (host.users().get("admin"))
    host.users().set_password("admin", password);
  else
    host.users().add("admin", password, "demo");
  host.users().grant("admin", Grant{std::nullopt, Role::admin}, "demo");
  return password;
}

}  // namespace ironhold::app
