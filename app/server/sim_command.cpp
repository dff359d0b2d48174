// `ironhold sim redfish` and `ironhold sim ipmi`: simulated BMCs for the demo, tests and
// benchmarks. The command line is common to every simulator (--listen, --spread-addresses, --user,
// --password); the simulators themselves live in sim/.
#include <charconv>
#include <iostream>

#include "app/cli/args.hpp"
#include "app/cli/client_options.hpp"
#include "app/server/commands.hpp"
#include "app/server/sim_serving.hpp"
#include "inventory/error.hpp"
#include "sim/ipmi/fleet.hpp"
#include "sim/redfish/fleet.hpp"
#include "sim/redfish/update_methods.hpp"

namespace ironhold::app {
namespace {

unsigned parse_unsigned(const std::string& text, const std::string& option, unsigned min,
                        unsigned max) {
  return static_cast<unsigned>(parse_bounded(text, option, min, max));
}

// --pxe-url and --install-ms: both simulators' servers play PXE ROM and installer.
std::vector<cli::Option> with_installer_options(std::vector<cli::Option> options) {
  options.push_back(
      {.name = "pxe-url",
       .help = "what a restart into a PXE boot fetches, as the site's DHCP would hand it out "
               "(${net0/mac} becomes the booting NIC's MAC), e.g. "
               "http://127.0.0.1:8080/api/v1/provisioning/ipxe?mac=${net0/mac}; the simulated "
               "installer then calls back (default: no PXE server, boot from disk)",
       .env = "IRONHOLD_SIM_PXE_URL",
       .value_name = "URL"});
  options.push_back({.name = "install-ms",
                     .help = "how long the simulated installer takes before it calls back",
                     .default_value = "3000",
                     .value_name = "MS"});
  return options;
}

sim::redfish::InstallerOptions installer_options(const cli::Args& args) {
  sim::redfish::InstallerOptions installer;
  installer.pxe_url = args.value_or("pxe-url", "");
  if (!installer.pxe_url.empty() && installer.pxe_url.rfind("http://", 0) != 0)
    throw cli::UsageError("--pxe-url must be a plain http:// URL (what PXE clients fetch)");
  installer.install_time = std::chrono::milliseconds(
      parse_unsigned(args.value_or("install-ms", "3000"), "install-ms", 0, 3'600'000));
  return installer;
}

int run_redfish(std::span<const std::string> argv) {
  cli::Args args(
      "ironhold sim redfish", "",
      "Serve N simulated Redfish BMCs built from a DMTF mockup tree; prints one JSON line per BMC",
      with_installer_options({
          {.name = "mockup",
           .help = "the mockup directory (DMTF layout, with index.json), or DIR:COUNT,DIR:COUNT "
                   "(then --count is ignored)",
           .env = "IRONHOLD_SIM_MOCKUP",
           .value_name = "DIR"},
          {.name = "count", .help = "how many BMCs", .default_value = "1", .value_name = "N"},
          {.name = "listen",
           .help =
               "the first BMC's address; the others follow on consecutive ports (0: free ports)",
           .default_value = "127.0.0.1:0",
           .value_name = "HOST:PORT"},
          {.name = "spread-addresses",
           .takes_value = false,
           .help = "put the BMCs on consecutive loopback addresses with the same port instead"},
          {.name = "user",
           .help = "the BMCs' user name",
           .default_value = "admin",
           .value_name = "USER"},
          {.name = "password",
           .help = "the BMCs' password",
           .default_value = "password",
           .value_name = "PASSWORD"},
          {.name = "http", .takes_value = false, .help = "plain HTTP instead of HTTPS"},
          {.name = "no-ssh-console",
           .takes_value = false,
           .help = "no SSH serial consoles (by default each BMC serves one on a free port of its "
                   "address, advertised in its Manager's SerialConsole.SSH)"},
          {.name = "ssh-console-entry",
           .help = "the BMC CLI command that starts the serial console (ConsoleEntryCommand, e.g. "
                   "\"console com2\"); default: the console right after login",
           .value_name = "COMMAND"},
          {.name = "reset-delay-ms",
           .help = "how long PoweringOn / PoweringOff last",
           .default_value = "1000",
           .value_name = "MS"},
          {.name = "state-dir",
           .help = "keep each BMC's endpoint, certificate and state here across restarts",
           .value_name = "DIR"},
          {.name = "control",
           .help = "serve the plain-HTTP control API (faults, power, health, SEL, "
                   "counters) here; its address is logged to stderr",
           .value_name = "HOST:PORT"},
          {.name = "update-ms",
           .help = "how long a firmware update's task runs once the image is downloaded or pushed",
           .default_value = "5000",
           .value_name = "MS"},
          {.name = "update-methods",
           .help = "what the BMCs' UpdateService offers: simple (SimpleUpdate, the BMC downloads "
                   "the image), multipart (MultipartHttpPushUri, the client pushes it) or both, "
                   "e.g. simple,multipart (default: what the mockup declares)",
           .value_name = "LIST"},
          {.name = "event-retry-interval-ms",
           .help = "the wait between a failed event delivery and its retry (default: each "
                   "EventService's DeliveryRetryIntervalSeconds, 60 s)",
           .value_name = "MS"},
      }));
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  if (!args.positional().empty())
    throw cli::UsageError("unexpected argument \"" + args.positional()[0] + "\"");
  sim::RedfishFleetOptions options;
  const auto mockup = args.get("mockup");
  if (!mockup || mockup->empty()) throw cli::UsageError("--mockup DIR is required");
  options.mockup_dir = *mockup;
  options.count = parse_unsigned(args.value_or("count", "1"), "count", 1, 4096);
  options.listen = args.value_or("listen", "127.0.0.1:0");
  options.spread_addresses = args.flag("spread-addresses");
  options.username = args.value_or("user", "admin");
  options.password = args.value_or("password", "password");
  options.tls = !args.flag("http");
  options.ssh_consoles = !args.flag("no-ssh-console");
  options.ssh.entry_command = args.value_or("ssh-console-entry", "");
  options.reset_delay = std::chrono::milliseconds(
      parse_unsigned(args.value_or("reset-delay-ms", "1000"), "reset-delay-ms", 0, 3'600'000));
  if (const auto dir = args.get("state-dir"); dir && !dir->empty()) options.state_dir = *dir;
  if (const auto control = args.get("control"); control && !control->empty())
    options.control = *control;
  options.installer = installer_options(args);
  options.updater.update_time = std::chrono::milliseconds(
      parse_unsigned(args.value_or("update-ms", "5000"), "update-ms", 0, 3'600'000));
  if (const auto methods = args.get("update-methods")) {
    try {
      options.update_methods = sim::redfish::parse_update_methods(*methods);
    } catch (const Error& e) {
      throw cli::UsageError("--update-methods: " + std::string(e.what()));
    }
  }
  if (const auto ms = args.get("event-retry-interval-ms"); ms && !ms->empty())
    options.events.retry_interval =
        std::chrono::milliseconds(parse_unsigned(*ms, "event-retry-interval-ms", 0, 3'600'000));
  return sim::run_redfish_fleet(options, std::cout);
}

int run_ipmi(std::span<const std::string> argv) {
  cli::Args args(
      "ironhold sim ipmi", "",
      "Serve N simulated IPMI 2.0 BMCs (RMCP+, cipher suites 3 and 17) of a GPU server; prints one "
      "JSON line per BMC. Users: --user/--password (ADMINISTRATOR), operator/operator "
      "(OPERATOR), readonly/readonly (USER)",
      with_installer_options({
          {.name = "count", .help = "how many BMCs", .default_value = "1", .value_name = "N"},
          {.name = "listen",
           .help = "the first BMC's UDP address; the others follow on consecutive ports (0: free "
                   "ports)",
           .default_value = "127.0.0.1:0",
           .value_name = "HOST:PORT"},
          {.name = "spread-addresses",
           .takes_value = false,
           .help = "put the BMCs on consecutive loopback addresses with the same port instead "
                   "(e.g. --listen 127.0.1.1:623)"},
          {.name = "user",
           .help = "the BMCs' administrator name",
           .default_value = "admin",
           .value_name = "USER"},
          {.name = "bmc-key",
           .help = "the BMC key K_G the session keys derive from, in hex (at most 20 bytes; "
                   "default: none)",
           .value_name = "HEX"},
          {.name = "password",
           .help = "the administrator's password (at most 20 bytes)",
           .default_value = "password",
           .value_name = "PASSWORD"},
          {.name = "cycle-delay-ms",
           .help = "how long a power cycle stays off, and a soft off takes",
           .default_value = "1000",
           .value_name = "MS"},
          {.name = "max-sessions",
           .help = "sessions each BMC holds at once (idle ones expire after 60 s)",
           .default_value = "16",
           .value_name = "N"},
          {.name = "state-dir",
           .help = "keep each BMC's endpoint and state (power, boot options, SEL) here across "
                   "restarts",
           .value_name = "DIR"},
          {.name = "control",
           .help = "serve the plain-HTTP control API (faults, power, sensors, SEL, sessions, "
                   "counters) here; its address is logged to stderr",
           .value_name = "HOST:PORT"},
      }));
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  if (!args.positional().empty())
    throw cli::UsageError("unexpected argument \"" + args.positional()[0] + "\"");
  sim::IpmiFleetOptions options;
  options.count = parse_unsigned(args.value_or("count", "1"), "count", 1, 4096);
  options.listen = args.value_or("listen", "127.0.0.1:0");
  options.spread_addresses = args.flag("spread-addresses");
  options.username = args.value_or("user", "admin");
  options.password = args.value_or("password", "password");
  if (options.username.empty() || options.username.size() > 16)
    throw cli::UsageError("--user must be 1 to 16 bytes");
  if (options.password.size() > 20) throw cli::UsageError("--password must be at most 20 bytes");
  options.cycle_delay = std::chrono::milliseconds(
      parse_unsigned(args.value_or("cycle-delay-ms", "1000"), "cycle-delay-ms", 0, 3'600'000));
  options.max_sessions = parse_unsigned(args.value_or("max-sessions", "16"), "max-sessions", 1, 64);
  if (const auto dir = args.get("state-dir"); dir && !dir->empty()) options.state_dir = *dir;
  if (const auto control = args.get("control"); control && !control->empty())
    options.control = *control;
  options.installer = installer_options(args);
  return sim::run_ipmi_fleet(options, std::cout);
}

}  // namespace

// The cloud provider simulators, one file each (sim_openstack_command.cpp, ...).
int run_openstack_sim(std::span<const std::string> argv);
int run_ec2_sim(std::span<const std::string> argv);
int run_bcc_sim(std::span<const std::string> argv);
int run_oidc_sim(std::span<const std::string> argv);

int run_sim_command(std::span<const std::string> argv) {
  return cli::run_guarded("sim", [&] {
    const std::string usage =
        "usage: ironhold sim SIMULATOR [options]\n"
        "  redfish --mockup DIR [--count N] [--listen HOST:PORT]   simulated Redfish BMCs\n"
        "  ipmi [--count N] [--listen HOST:PORT]                   simulated IPMI BMCs\n"
        "  openstack [--listen HOST:PORT]                          a simulated OpenStack cloud\n"
        "  ec2 [--listen HOST:PORT]                                a simulated AWS EC2 region\n"
        "  bcc [--listen HOST:PORT]                                a simulated Baidu BCC region\n"
        "  oidc [--listen HOST:PORT]                               a test OpenID Connect issuer\n"
        "Run ironhold sim SIMULATOR --help for its options.\n";
    if (argv.empty() || argv[0] == "--help" || argv[0] == "-h") {
      std::cout << usage;
      return argv.empty() ? 2 : 0;
    }
    if (argv[0] == "redfish") return run_redfish(argv.subspan(1));
    if (argv[0] == "ipmi") return run_ipmi(argv.subspan(1));
    if (argv[0] == "openstack") return run_openstack_sim(argv.subspan(1));
    if (argv[0] == "ec2") return run_ec2_sim(argv.subspan(1));
    if (argv[0] == "bcc") return run_bcc_sim(argv.subspan(1));
    if (argv[0] == "oidc") return run_oidc_sim(argv.subspan(1));
    throw cli::UsageError("unknown simulator \"" + argv[0] + "\"\n" + usage);
  });
}

}  // namespace ironhold::app
