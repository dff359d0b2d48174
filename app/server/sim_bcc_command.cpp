// `ironhold sim bcc`: a simulated Baidu AI Cloud BCC endpoint (sim/cloud/bcc) for the demo and
// tests. Prints one JSON line once listening — the endpoint and the credentials object that
// POST /api/v1/cloud-accounts takes for a "bcc" account — and serves until SIGINT/SIGTERM.
#include <boost/asio/io_context.hpp>
#include <iostream>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "app/cli/args.hpp"
#include "app/server/sim_serving.hpp"
#include "sim/cloud/bcc/bcc_simulator.hpp"
#include "web/server.hpp"

namespace ironhold::app {

int run_bcc_sim(std::span<const std::string> argv) {
  const sim::cloud::bcc::BccSimulatorOptions defaults;
  cli::Args args(
      "ironhold sim bcc", "",
      "Serve a simulated Baidu AI Cloud BCC endpoint (v2 instance API, bce-auth-v1) with GPU "
      "instances; prints one JSON line with its endpoint and credentials",
      {
          {.name = "listen",
           .help = "the address to serve on (port 0: a free port)",
           .default_value = "127.0.0.1:0",
           .value_name = "HOST:PORT"},
          {.name = "region",
           .help = "the region the simulated account is in (zones cn-REGION-a, ...)",
           .default_value = defaults.region,
           .value_name = "REGION"},
          {.name = "page-size",
           .help = "the most instances one list page holds, whatever maxKeys asks",
           .default_value = std::to_string(defaults.page_size),
           .value_name = "N"},
          {.name = "transition-ms",
           .help = "how long Starting, Stopping, a reboot and a rebuild last",
           .default_value = std::to_string(defaults.transition.count()),
           .value_name = "MS"},
          {.name = "access-key",
           .help = "the access key (AK) the simulator accepts",
           .default_value = defaults.access_key,
           .value_name = "AK"},
          {.name = "secret-key",
           .help = "its secret key (SK), at least 16 bytes (they encrypt rebuild passwords)",
           .default_value = defaults.secret_key,
           .value_name = "SK"},
      });
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  if (!args.positional().empty())
    throw cli::UsageError("unexpected argument \"" + args.positional()[0] + "\"");

  sim::cloud::bcc::BccSimulatorOptions options;
  options.region = args.value_or("region", defaults.region);
  options.page_size = parse_bounded(args.value_or("page-size", "2"), "page-size", 1, 1000);
  options.transition = std::chrono::milliseconds(
      parse_bounded(args.value_or("transition-ms", "1500"), "transition-ms", 0, 3'600'000));
  options.access_key = args.value_or("access-key", defaults.access_key);
  options.secret_key = args.value_or("secret-key", defaults.secret_key);
  if (options.region.empty()) throw cli::UsageError("--region must not be empty");
  if (options.access_key.empty() || options.access_key.find('/') != std::string::npos)
    throw cli::UsageError("--access-key must be non-empty and without '/'");
  if (options.secret_key.size() < 16)
    throw cli::UsageError("--secret-key must be at least 16 bytes");

  const auto listen = web::parse_listen_address(args.value_or("listen", "127.0.0.1:0"));
  boost::asio::io_context io;
  sim::cloud::bcc::BccSimulator simulator(io, options);
  const auto bound = simulator.listen(listen);

  const nlohmann::json line = {
      {"provider", "bcc"},
      {"endpoint", http_origin(bound)},
      {"region", options.region},
      {"credentials", {{"access_key", options.access_key}, {"secret_key", options.secret_key}}}};
  return print_and_serve(io, line, "simulated BCC");
}

}  // namespace ironhold::app
