// `ironhold sim ec2`: a simulated AWS EC2 Query API endpoint (sim/cloud/ec2) for the demo and
// tests. Prints one JSON line once listening — the endpoint and the credentials object that
// POST /api/v1/cloud-accounts takes for an "ec2" account — and serves until SIGINT/SIGTERM.
#include <boost/asio/io_context.hpp>
#include <iostream>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "app/cli/args.hpp"
#include "app/server/sim_serving.hpp"
#include "sim/cloud/ec2/ec2_simulator.hpp"
#include "web/server.hpp"

namespace ironhold::app {

int run_ec2_sim(std::span<const std::string> argv) {
  const sim::cloud::ec2::Ec2SimulatorOptions defaults;
  cli::Args args(
      "ironhold sim ec2", "",
      "Serve a simulated AWS EC2 Query API endpoint (SigV4) with GPU instances; prints one JSON "
      "line with its endpoint and credentials",
      {
          {.name = "listen",
           .help = "the address to serve on (port 0: a free port)",
           .default_value = "127.0.0.1:0",
           .value_name = "HOST:PORT"},
          {.name = "region",
           .help = "the region requests must be signed for (zones REGIONa, REGIONb)",
           .default_value = defaults.region,
           .value_name = "REGION"},
          {.name = "page-size",
           .help = "the most items one Describe* page holds, whatever MaxResults asks",
           .default_value = std::to_string(defaults.page_size),
           .value_name = "N"},
          {.name = "transition-ms",
           .help = "how long pending, stopping, shutting-down and a root volume replacement last",
           .default_value = std::to_string(defaults.transition.count()),
           .value_name = "MS"},
          {.name = "access-key-id",
           .help = "the access key id the simulator accepts",
           .default_value = defaults.access_key_id,
           .value_name = "AKID"},
          {.name = "secret-access-key",
           .help = "its secret access key",
           .default_value = defaults.secret_access_key,
           .value_name = "SECRET"},
          {.name = "session-token",
           .help = "require this session token (x-amz-security-token) too",
           .value_name = "TOKEN"},
      });
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  if (!args.positional().empty())
    throw cli::UsageError("unexpected argument \"" + args.positional()[0] + "\"");

  sim::cloud::ec2::Ec2SimulatorOptions options;
  options.region = args.value_or("region", defaults.region);
  options.page_size = parse_bounded(args.value_or("page-size", std::to_string(defaults.page_size)),
                                    "page-size", 1, 1000);
  options.transition = std::chrono::milliseconds(
      parse_bounded(args.value_or("transition-ms", std::to_string(defaults.transition.count())),
                    "transition-ms", 0, 3'600'000));
  options.access_key_id = args.value_or("access-key-id", defaults.access_key_id);
  options.secret_access_key = args.value_or("secret-access-key", defaults.secret_access_key);
  if (const auto token = args.get("session-token"); token && !token->empty())
    options.session_token = *token;
  if (options.region.empty() || options.region.find('/') != std::string::npos)
    throw cli::UsageError("--region must be non-empty and without '/'");
  if (options.access_key_id.empty() || options.access_key_id.find('/') != std::string::npos)
    throw cli::UsageError("--access-key-id must be non-empty and without '/'");
  if (options.secret_access_key.empty())
    throw cli::UsageError("--secret-access-key must not be empty");

  const auto listen = web::parse_listen_address(args.value_or("listen", "127.0.0.1:0"));
  boost::asio::io_context io;
  sim::cloud::ec2::Ec2Simulator simulator(io, options);
  const auto bound = simulator.listen(listen);

  nlohmann::json credentials = {{"access_key_id", options.access_key_id},
                                {"secret_access_key", options.secret_access_key}};
  if (options.session_token) credentials["session_token"] = *options.session_token;
  const nlohmann::json line = {{"provider", "ec2"},
                               {"endpoint", http_origin(bound) + "/"},
                               {"region", options.region},
                               {"credentials", credentials}};
  return print_and_serve(io, line, "simulated EC2");
}

}  // namespace ironhold::app
