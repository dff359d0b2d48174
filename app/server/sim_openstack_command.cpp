// `ironhold sim openstack`: a simulated OpenStack cloud (Keystone v3 + Nova v2.1 on one port) for
// the demo and tests. Prints one JSON line once listening — the auth URL and the credential object
// the cloud-accounts API takes — and serves until SIGINT/SIGTERM.
#include <boost/asio/io_context.hpp>
#include <iostream>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "app/cli/args.hpp"
#include "app/server/sim_serving.hpp"
#include "sim/cloud/openstack/openstack_simulator.hpp"
#include "web/server.hpp"

namespace ironhold::app {
namespace {

unsigned long long number_option(const cli::Args& args, const std::string& name,
                                 const std::string& fallback, unsigned long long min,
                                 unsigned long long max) {
  return parse_bounded(args.value_or(name, fallback), name, min, max);
}

}  // namespace

int run_openstack_sim(std::span<const std::string> argv) {
  cli::Args args(
      "ironhold sim openstack", "",
      "Serve a simulated OpenStack cloud (Keystone v3 and Nova with GPU flavors) on one port; "
      "prints one JSON line with its auth URL and credentials",
      {
          {.name = "listen",
           .help = "the address to serve on (port 0: a free one)",
           .default_value = "127.0.0.1:0",
           .value_name = "HOST:PORT"},
          {.name = "region",
           .help = "the catalog's region",
           .default_value = "RegionOne",
           .value_name = "REGION"},
          {.name = "page-size",
           .help = "the most servers one servers/detail page holds",
           .default_value = "2",
           .value_name = "N"},
          {.name = "transition-ms",
           .help = "how long powering-on/-off, rebooting and rebuilding last",
           .default_value = "1500",
           .value_name = "MS"},
          {.name = "username",
           .help = "the Keystone user",
           .default_value = "admin",
           .value_name = "NAME"},
          {.name = "password",
           .help = "the user's password",
           .default_value = "openstack",
           .value_name = "PASSWORD"},
          {.name = "project",
           .help = "the project tokens are scoped to",
           .default_value = "gpu-team",
           .value_name = "NAME"},
          {.name = "token-ttl-s",
           .help = "how long a token lives",
           .default_value = "3600",
           .value_name = "SECONDS"},
          {.name = "max-microversion",
           .help = "Nova's highest microversion 2.N (below 47 flavors are not embedded)",
           .default_value = "96",
           .value_name = "N"},
          {.name = "app-credential-id",
           .help = "also accept this application credential (with --app-credential-secret); "
                   "the printed credentials are then the application credential",
           .value_name = "ID"},
          {.name = "app-credential-secret",
           .help = "the application credential's secret",
           .value_name = "SECRET"},
      });
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  if (!args.positional().empty())
    throw cli::UsageError("unexpected argument \"" + args.positional()[0] + "\"");

  sim::cloud::openstack::OpenStackSimulatorOptions options;
  options.region = args.value_or("region", "RegionOne");
  options.page_size = number_option(args, "page-size", "2", 1, 1000);
  options.transition =
      std::chrono::milliseconds(number_option(args, "transition-ms", "1500", 0, 3'600'000));
  options.username = args.value_or("username", "admin");
  options.password = args.value_or("password", "openstack");
  options.project_name = args.value_or("project", "gpu-team");
  options.token_lifetime =
      std::chrono::seconds(number_option(args, "token-ttl-s", "3600", 1, 7 * 24 * 3600));
  options.max_microversion =
      static_cast<int>(number_option(args, "max-microversion", "96", 1, 100));
  if (options.username.empty() || options.password.empty() || options.project_name.empty())
    throw cli::UsageError("--username, --password and --project must not be empty");
  const auto app_id = args.get("app-credential-id");
  const auto app_secret = args.get("app-credential-secret");
  if (app_id.has_value() != app_secret.has_value())
    throw cli::UsageError("--app-credential-id and --app-credential-secret go together");
  if (app_id) options.application_credential = {*app_id, *app_secret};

  const auto listen = web::parse_listen_address(args.value_or("listen", "127.0.0.1:0"));
  boost::asio::io_context io;
  sim::cloud::openstack::OpenStackSimulator simulator(io, options);
  const auto bound = simulator.listen(listen);
  nlohmann::json credentials;
  if (options.application_credential) {
    credentials = {{"application_credential_id", options.application_credential->id},
                   {"application_credential_secret", options.application_credential->secret}};
  } else {
    credentials = {{"username", options.username},
                   {"password", options.password},
                   {"user_domain_name", options.user_domain_name},
                   {"project_name", options.project_name},
                   {"project_domain_name", options.project_domain_name}};
  }
  const nlohmann::json line = {{"provider", "openstack"},
                               {"endpoint", http_origin(bound) + "/identity/v3"},
                               {"region", options.region},
                               {"credentials", credentials}};
  return print_and_serve(io, line, "simulated OpenStack", [&simulator] { simulator.close(); });
}

}  // namespace ironhold::app
