// `ironhold serve` and `ironhold demo`.
#include <signal.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <charconv>
#include <cstdio>
#include <iostream>
#include <optional>
#include <thread>

#include "app/cli/client_options.hpp"
#include "app/server/commands.hpp"
#include "app/server/database_target.hpp"
#include "app/server/demo_fleet.hpp"
#include "app/server/service_host.hpp"
#include "app/server/url_host.hpp"
#include "inventory/model/pxe_image.hpp"
#include "inventory/util/concat.hpp"
#include "inventory/util/log.hpp"
#include "web/tls_context.hpp"

namespace ironhold::app {
namespace {

std::vector<cli::Option> serve_options() {
  auto options = database_options();
  options.push_back({"listen-database", 0, true, false,
                     "PostgreSQL URL of a direct connection for the change feed's LISTEN, when "
                     "--database goes through PgBouncer in transaction mode (default: --database)",
                     "IRONHOLD_LISTEN_DATABASE", "", "URL"});
  options.push_back({"export-database", 0, true, false,
                     "PostgreSQL URL exports read from, e.g. a read replica (default: --database)",
                     "IRONHOLD_EXPORT_DATABASE", "", "URL"});
  options.push_back({"listen", 0, true, false, "address to serve HTTP on", "IRONHOLD_LISTEN",
                     "127.0.0.1:8080", "HOST:PORT"});
  options.push_back({"advertise-url", 0, true, false,
                     "the base URL BMCs and installers reach this server at (default: the listen "
                     "address, unless that is every address)",
                     "IRONHOLD_ADVERTISE_URL", "", "URL"});
  options.push_back({"identity-config", 0, true, false,
                     "sign people in through an LDAP / Active Directory directory too, with its "
                     "groups mapped to roles: a JSON file (docs/access.md)",
                     "IRONHOLD_IDENTITY_CONFIG", "", "FILE"});
  options.push_back({"tls-cert", 0, true, false,
                     "serve HTTPS with this PEM certificate chain (with --tls-key)",
                     "IRONHOLD_TLS_CERT", "", "FILE"});
  options.push_back({"tls-key", 0, true, false, "the certificate's PEM private key",
                     "IRONHOLD_TLS_KEY", "", "FILE"});
  options.push_back({"http-redirect", 0, true, false,
                     "also listen for plain HTTP here, only to redirect to HTTPS (with --tls-cert)",
                     "IRONHOLD_HTTP_REDIRECT", "", "HOST:PORT"});
  options.push_back({"threads", 0, true, false, "I/O threads (default: one per core)",
                     "IRONHOLD_THREADS", "", "N"});
  options.push_back({"db-connections", 0, true, false,
                     "database connections (and threads for database work)",
                     "IRONHOLD_DB_CONNECTIONS", "4", "N"});
  options.push_back({"no-prepared-statements", 0, false, false,
                     "prepare no statements on the database connections (behind PgBouncer "
                     "before 1.21 in transaction mode, which does not carry them)",
                     "", "", ""});
  options.push_back({"export-connections", 0, true, false,
                     "database connections of their own for exports (exports running at once)",
                     "IRONHOLD_EXPORT_CONNECTIONS", "2", "N"});
  options.push_back({"body-limit", 0, true, false, "largest request body, bytes",
                     "IRONHOLD_BODY_LIMIT", "1048576", "BYTES"});
  options.push_back({"request-timeout", 0, true, false, "time to read one request, ms",
                     "IRONHOLD_REQUEST_TIMEOUT_MS", "30000", "MS"});
  options.push_back({"idle-timeout", 0, true, false, "keep-alive idle time, ms",
                     "IRONHOLD_IDLE_TIMEOUT_MS", "60000", "MS"});
  options.push_back({"shutdown-grace", 0, true, false,
                     "time for requests, polls and task steps in flight at shutdown, ms",
                     "IRONHOLD_SHUTDOWN_GRACE_MS", "10000", "MS"});
  options.push_back({"sensor-retention-days", 0, true, false, "days of sensor readings to keep",
                     "IRONHOLD_SENSOR_RETENTION_DAYS", "30", "DAYS"});
  options.push_back({"console-log-days", 0, true, false,
                     "days of nodes' serial console output (and console sessions) to keep",
                     "IRONHOLD_CONSOLE_LOG_DAYS", "7", "DAYS"});
  options.push_back({"maintenance-interval", 0, true, false, "database housekeeping interval, ms",
                     "IRONHOLD_MAINTENANCE_INTERVAL_MS", "3600000", "MS"});
  options.push_back({"poll-status-interval", 0, true, false,
                     "seconds between power+health polls of a BMC", "IRONHOLD_POLL_STATUS_INTERVAL",
                     "30", "S"});
  options.push_back({"poll-sensors-interval", 0, true, false,
                     "seconds between sensor and log polls of a BMC",
                     "IRONHOLD_POLL_SENSORS_INTERVAL", "60", "S"});
  options.push_back({"poll-inventory-interval", 0, true, false,
                     "seconds between full inventories of a BMC",
                     "IRONHOLD_POLL_INVENTORY_INTERVAL", "86400", "S"});
  options.push_back({"poll-max-in-flight", 0, true, false, "BMC polls running at once",
                     "IRONHOLD_POLL_MAX_IN_FLIGHT", "500", "N"});
  options.push_back({"poll-slow-after", 0, true, false,
                     "ms after which a status poll still waiting no longer counts against "
                     "poll-max-in-flight (0: never)",
                     "IRONHOLD_POLL_SLOW_AFTER_MS", "2000", "MS"});
  options.push_back({"poll-max-slow", 0, true, false,
                     "slow status polls running at once besides poll-max-in-flight",
                     "IRONHOLD_POLL_MAX_SLOW", "4000", "N"});
  options.push_back({"poll-max-failing", 0, true, false,
                     "polls of BMCs whose last poll failed running at once, within "
                     "poll-max-in-flight (0: no limit of their own)",
                     "IRONHOLD_POLL_MAX_FAILING", "64", "N"});
  options.push_back({"poll-failing-wait-max", 0, true, false,
                     "ms that due polls of failing BMCs at most wait while many polls of working "
                     "BMCs run (0: no waiting)",
                     "IRONHOLD_POLL_FAILING_WAIT_MAX_MS", "10000", "MS"});
  options.push_back({"poll-max-inspections", 0, true, false,
                     "inventory polls (inspections) running at once, within poll-max-in-flight "
                     "(0: no limit of their own)",
                     "IRONHOLD_POLL_MAX_INSPECTIONS", "100", "N"});
  options.push_back({"bmc-http-client", 0, true, false,
                     "the HTTP client that talks to Redfish BMCs: asio (one TLS context shared "
                     "by all connections) or libcurl",
                     "IRONHOLD_BMC_HTTP_CLIENT", "asio", "NAME"});
  options.push_back(
      {"poll-lease", 0, true, false,
       "seconds a claimed poll stays with its instance unrenewed before another takes it over "
       "(renewed while the poll runs)",
       "IRONHOLD_POLL_LEASE", "30", "S"});
  options.push_back({"no-poller", 0, false, false,
                     "do not poll BMCs (another instance on the same database does)", "", "", ""});
  options.push_back(
      {"task-lease", 0, true, false,
       "seconds a task stays with its instance unrenewed before another takes it over",
       "IRONHOLD_TASK_LEASE", "30", "S"});
  options.push_back({"task-max-running", 0, true, false, "tasks this instance carries out at once",
                     "IRONHOLD_TASK_MAX_RUNNING", "64", "N"});
  options.push_back({"no-tasks", 0, false, false,
                     "carry out no tasks (another instance on the same database does)", "", "",
                     ""});
  options.push_back({"event-check-interval", 0, true, false,
                     "seconds between reading each BMC's event subscription back (it is made "
                     "again when the BMC dropped it)",
                     "IRONHOLD_EVENT_CHECK_INTERVAL", "600", "S"});
  options.push_back({"no-event-subscriptions", 0, false, false,
                     "subscribe to no BMC's events (another instance on the same database does; "
                     "pushed events are taken either way)",
                     "", "", ""});
  return options;
}

// `ironhold demo` takes the service's options and some for tests that drive the whole demo (the
// browser tests): the simulators' control APIs, a power change slow enough to be watched, and a
// fleet no larger than a test needs.
std::vector<cli::Option> demo_options() {
  auto options = serve_options();
  options.push_back({"sim-control", 0, false, false,
                     "serve each simulated fleet's control API (faults, power, health, SEL) on a "
                     "free loopback port and print where",
                     "", "", ""});
  options.push_back({"sim-reset-delay", 0, true, false,
                     "how long a simulated server takes to power off or on, ms", "", "1000", "MS"});
  options.push_back({"sim-servers", 0, true, false,
                     "simulated Redfish servers (every sixth a compute server, the others GPU "
                     "servers), 6 to 10000",
                     "", "48", "N"});
  options.push_back({"sim-ipmi-servers", 0, true, false, "simulated IPMI-only servers, 1 to 10000",
                     "", "8", "N"});
  options.push_back({"sim-gpu-mockup", 0, true, false,
                     "the mockup the GPU servers are made of: another DMTF-layout tree, or a "
                     "vendor's capture (tests/data/vendor-captures/*/tree); default: the "
                     "project's mockups/hgx-gpu-server",
                     "", "", "DIR"});
  return options;
}

int int_option(const cli::Args& args, std::string_view name, int fallback, int min, int max) {
  auto text = args.get(name);
  if (!text || text->empty()) return fallback;
  int value = 0;
  auto [p, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc{} || p != text->data() + text->size() || value < min || value > max)
    throw cli::UsageError("--" + std::string(name) + " must be a number from " +
                          std::to_string(min) + " to " + std::to_string(max));
  return value;
}

bmc::http::BmcHttpClient::Options::Transport bmc_http_client_option(const cli::Args& args) {
  using Transport = bmc::http::BmcHttpClient::Options::Transport;
  const std::string name = args.value_or("bmc-http-client", "asio");
  if (name == "asio") return Transport::asio;
  if (name == "libcurl") return Transport::libcurl;
  throw cli::UsageError("--bmc-http-client must be asio or libcurl");
}

void apply_log_level(const cli::Args& args) {
  log::Level level;
  const auto text = args.value_or("log-level", "info");
  if (!log::parse_level(text, level))
    throw cli::UsageError("--log-level must be debug, info, warn or error");
  log::set_level(level);
}

// The URL this process's own simulators reach the service at: the advertise URL, else the listen
// address (loopback when that is every address).
std::string local_base_url(const ServiceConfig& config) {
  if (!config.advertise_url.empty()) return config.advertise_url;
  const auto endpoint = web::parse_listen_address(config.listen);
  const auto address = endpoint.address();
  std::string host = address.is_unspecified()
                         ? (address.is_v6() ? std::string("[::1]") : std::string("127.0.0.1"))
                         : url_host(address);
  return util::concat("http://", host, ":", std::to_string(endpoint.port()));
}

// The demo's simulated servers are told where to reach the service before it listens (their PXE
// boots fetch a script from it), so "port 0" must become a real port first. The kernel picks a free
// one for a socket that stays bound (SO_REUSEADDR, not listening) until the service listens: the
// service's own bind may share the port, but neither the simulated BMCs' listeners nor anyone's
// outgoing connections can take it in between. Without a port 0 there is nothing to hold.
std::optional<boost::asio::ip::tcp::socket> choose_demo_port(boost::asio::io_context& io,
                                                             ServiceConfig& config) {
  auto endpoint = web::parse_listen_address(config.listen);
  if (endpoint.port() != 0) return std::nullopt;
  boost::asio::ip::tcp::socket holder(io, endpoint.protocol());
  holder.set_option(boost::asio::socket_base::reuse_address(true));
  holder.bind(endpoint);
  endpoint.port(holder.local_endpoint().port());
  config.listen = host_port(endpoint);
  return holder;
}

// Blocks SIGINT and SIGTERM in every thread (call before starting any), then waits for one.
sigset_t block_stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

int serve_with(const cli::Args& args, bool demo) {
  apply_log_level(args);
  const sigset_t stop_signals = block_stop_signals();
  // The TLS flags first: a mistake there is told at once, not after a database has started.
  const std::string tls_cert = args.value_or("tls-cert", ""),
                    tls_key = args.value_or("tls-key", "");
  if (tls_cert.empty() != tls_key.empty())
    throw cli::UsageError("--tls-cert and --tls-key go together");
  auto tls = tls_cert.empty() ? nullptr : web::make_server_tls_context(tls_cert, tls_key);
  const std::string http_redirect = args.value_or("http-redirect", "");
  if (!http_redirect.empty() && !tls)
    throw cli::UsageError("--http-redirect redirects to HTTPS: give --tls-cert and --tls-key too");
  // The identity configuration too: a mistake in it stops the service before anything starts,
  // rather than failing every directory sign-in later.
  std::optional<web::auth::IdentityConfig> identity;
  if (const std::string file = args.value_or("identity-config", ""); !file.empty()) {
    try {
      identity = web::auth::read_identity_config(file);
    } catch (const Error& e) {
      throw cli::UsageError(std::string("--identity-config: ") + e.what());
    }
  }
  const auto http_client = bmc_http_client_option(args);
  DatabaseTarget target = open_database_target(args, true);
  ServiceConfig config;
  config.bmc_http_client = http_client;
  config.identity = std::move(identity);
  config.database_url = target.runtime_url;
  config.listen_database_url = args.value_or("listen-database", "");
  config.export_database_url = args.value_or("export-database", "");
  config.master_key = load_master_key_for(args, target);
  config.master_key_file = master_key_path_for(args, target);
  config.audit_key = load_audit_key_for(args, target);
  std::error_code made;
  std::filesystem::create_directories(target.data_dir, made);
  config.audit_anchor_file = target.data_dir / "audit-anchor";
  config.listen = args.value_or("listen", "127.0.0.1:8080");
  config.advertise_url = args.value_or("advertise-url", "");
  if (!config.advertise_url.empty())
    if (const auto problem = advertise_url_problem(config.advertise_url))
      throw cli::UsageError("--advertise-url: " + *problem);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  config.io_threads = int_option(args, "threads", cores, 1, 256);
  config.database_connections = int_option(args, "db-connections", 4, 1, 100);
  config.export_connections = int_option(args, "export-connections", 2, 1, 32);
  config.prepared_statements = !args.flag("no-prepared-statements");
  config.server.body_limit =
      static_cast<std::size_t>(int_option(args, "body-limit", 1 << 20, 1024, 1 << 30));
  config.server.request_timeout =
      std::chrono::milliseconds(int_option(args, "request-timeout", 30000, 1, 3600000));
  config.server.idle_timeout =
      std::chrono::milliseconds(int_option(args, "idle-timeout", 60000, 1, 3600000));
  config.server.shutdown_grace =
      std::chrono::milliseconds(int_option(args, "shutdown-grace", 10000, 0, 3600000));
  config.server.tls = std::move(tls);
  config.http_redirect_listen = http_redirect;

  config.retention.sensor_days = int_option(args, "sensor-retention-days", 30, 1, 3650);
  config.retention.console_log_days = int_option(args, "console-log-days", 7, 1, 3650);
  config.maintenance_interval =
      std::chrono::milliseconds(int_option(args, "maintenance-interval", 3600000, 1000, 86400000));

  config.poller_enabled = !args.flag("no-poller");
  const auto seconds = [&](std::string_view name, int fallback) {
    return std::chrono::milliseconds(1000LL * int_option(args, name, fallback, 1, 7 * 86400));
  };
  config.poller.intervals.status = seconds("poll-status-interval", 30);
  config.poller.intervals.sensors = seconds("poll-sensors-interval", 60);
  config.poller.intervals.inventory = seconds("poll-inventory-interval", 86400);
  const int default_in_flight = static_cast<int>(PollerOptions{}.max_in_flight);
  config.poller.max_in_flight = static_cast<std::size_t>(
      int_option(args, "poll-max-in-flight", default_in_flight, 1, 1'000'000));
  config.poller.lease = std::chrono::seconds(int_option(args, "poll-lease", 30, 3, 3600));
  config.poller.slow_after = std::chrono::milliseconds(int_option(
      args, "poll-slow-after", static_cast<int>(PollerOptions{}.slow_after.count()), 0, 3600000));
  config.poller.max_slow = static_cast<std::size_t>(
      int_option(args, "poll-max-slow", static_cast<int>(PollerOptions{}.max_slow), 0, 1'000'000));
  config.poller.max_failing = static_cast<std::size_t>(int_option(
      args, "poll-max-failing", static_cast<int>(PollerOptions{}.max_failing), 0, 1'000'000));
  config.poller.failing_wait_max = std::chrono::milliseconds(
      int_option(args, "poll-failing-wait-max",
                 static_cast<int>(PollerOptions{}.failing_wait_max.count()), 0, 3600000));
  config.poller.max_inspections = static_cast<std::size_t>(
      int_option(args, "poll-max-inspections", static_cast<int>(PollerOptions{}.max_inspections), 0,
                 1'000'000));

  config.tasks_enabled = !args.flag("no-tasks");
  config.tasks.lease = std::chrono::seconds(int_option(args, "task-lease", 30, 3, 3600));
  config.tasks.max_running = int_option(args, "task-max-running", 64, 1, 10000);
  config.event_subscriptions_enabled = !args.flag("no-event-subscriptions");
  config.event_subscriber.check_every =
      std::chrono::seconds(int_option(args, "event-check-interval", 600, 10, 7 * 86400));

  // The demo's simulated BMCs start before the service (so its first polls find them) and stop
  // after it.
  std::unique_ptr<DemoFleet> demo_fleet;
  // The demo's own simulated servers reach it on loopback even when it listens everywhere.
  boost::asio::io_context port_holder_io;
  std::optional<boost::asio::ip::tcp::socket> demo_port_holder;
  if (demo) demo_port_holder = choose_demo_port(port_holder_io, config);
  if (demo && config.advertise_url.empty()) config.advertise_url = local_base_url(config);
  if (demo) {
    DemoSimulatorOptions simulators;
    simulators.control = args.flag("sim-control");
    simulators.reset_delay =
        std::chrono::milliseconds(int_option(args, "sim-reset-delay", 1000, 0, 600000));
    simulators.redfish_servers =
        static_cast<unsigned>(int_option(args, "sim-servers", 48, 6, 10000));
    simulators.ipmi_servers =
        static_cast<unsigned>(int_option(args, "sim-ipmi-servers", 8, 1, 10000));
    if (auto mockup = args.get("sim-gpu-mockup"); mockup && !mockup->empty())
      simulators.gpu_mockup = *mockup;
    demo_fleet = std::make_unique<DemoFleet>(target.data_dir, find_demo_mockups(),
                                             local_base_url(config), simulators);
  }
  ServiceHost host(config);
  if (demo) seed_demo_fleet(host, *demo_fleet);
  const auto endpoint = host.start();
  demo_port_holder.reset();
  const std::string url =
      util::concat(config.server.tls ? "https://" : "http://", host_port(endpoint));
  nlohmann::json listening = {
      {"url", url}, {"embedded_database", target.embedded()}, {"instance", host.instance_name()}};
  if (const auto redirect = host.redirect_endpoint())  // the port bound, when asked for port 0
    listening["http_redirect"] = util::concat("http://", host_port(*redirect));
  log::info("listening", listening);
  if (demo) {
    const auto token = create_demo_token(host);
    const auto password = reset_demo_user(host);
    std::cout << "Ironhold demo is running.\n  console: " << url << "/  (user admin, password "
              << password << ")\n  API:     " << url << "/api/v1\n  admin token: " << token
              << "\n  try: curl -H 'Authorization: Bearer " << token << "' " << url
              << "/api/v1/nodes\n";
    for (const auto& [fleet, control] : demo_fleet->control_endpoints())
      std::cout << "  simulator control (" << fleet << "): " << control << "\n";
    std::cout << "Press Ctrl-C to stop." << std::endl;
  }
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  log::info("stopping", {{"signal", signal_number == SIGINT ? "SIGINT" : "SIGTERM"}});
  host.stop();
  if (target.cluster) target.cluster->stop();
  log::info("stopped");
  return 0;
}

}  // namespace

int run_serve(std::span<const std::string> argv) {
  cli::Args args("ironhold serve", "", "Run the Ironhold service", serve_options());
  return cli::run_guarded("serve", [&] {
    args.parse(argv);
    if (args.help_requested()) return std::cout << args.help_text(), 0;
    return serve_with(args, false);
  });
}

int run_demo(std::span<const std::string> argv) {
  cli::Args args(
      "ironhold demo", "",
      "Run the service on the embedded database with a demonstration fleet, and print an "
      "admin token",
      demo_options());
  return cli::run_guarded("demo", [&] {
    args.parse(argv);
    if (args.help_requested()) return std::cout << args.help_text(), 0;
    return serve_with(args, true);
  });
}

}  // namespace ironhold::app
