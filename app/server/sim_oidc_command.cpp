// `ironhold sim oidc`: a simulated OpenID Connect identity provider (sim/oidc) for the demo and
// tests. Prints one JSON line once listening — the issuer, its discovery and key set URLs, the
// client id, the signing alg and the user names — and serves until SIGINT/SIGTERM.
#include <boost/asio/io_context.hpp>
#include <iostream>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "app/cli/args.hpp"
#include "app/server/sim_serving.hpp"
#include "inventory/error.hpp"
#include "sim/oidc/oidc_issuer.hpp"
#include "web/server.hpp"

namespace ironhold::app {

namespace {

// NAME:PASSWORD[:GROUP,GROUP...]; a password cannot hold ':' in this form.
sim::oidc::OidcUser parse_user(const std::string& text) {
  const auto first = text.find(':');
  if (first == std::string::npos || first == 0)
    throw cli::UsageError("--user must be NAME:PASSWORD[:GROUP,GROUP...], got \"" + text + "\"");
  sim::oidc::OidcUser user;
  user.username = text.substr(0, first);
  const auto second = text.find(':', first + 1);
  user.password = text.substr(first + 1, second == std::string::npos ? second : second - first - 1);
  if (user.password.empty())
    throw cli::UsageError("--user " + user.username + " has an empty password");
  if (second == std::string::npos) return user;
  std::string_view groups = std::string_view(text).substr(second + 1);
  while (!groups.empty()) {
    const auto comma = groups.find(',');
    if (const auto group = groups.substr(0, comma); !group.empty()) user.groups.emplace_back(group);
    if (comma == std::string_view::npos) break;
    groups.remove_prefix(comma + 1);
  }
  return user;
}

}  // namespace

int run_oidc_sim(std::span<const std::string> argv) {
  const sim::oidc::OidcIssuerOptions defaults;
  cli::Args args(
      "ironhold sim oidc", "",
      "Serve a test OpenID Connect issuer on plain HTTP (authorization code flow with PKCE, "
      "password grant, signed ID and access tokens); prints one JSON line with its issuer URL. "
      "Users by default: alice/alice-oidc (gpu-ops, auditors), bob/bob-oidc (fleet-admins), "
      "carol/carol-oidc",
      {
          {.name = "listen",
           .help = "the address to serve on (port 0: a free port); the issuer is http://HOST:PORT",
           .default_value = "127.0.0.1:0",
           .value_name = "HOST:PORT"},
          {.name = "client-id",
           .help = "the one client the issuer knows",
           .default_value = defaults.client_id,
           .value_name = "ID"},
          {.name = "client-secret",
           .help = "make the client confidential: /token then requires this secret "
                   "(client_secret_basic or client_secret_post); default: a public client",
           .value_name = "SECRET"},
          {.name = "redirect-uri",
           .repeatable = true,
           .help = "a redirect URI the client may use, exactly (default: any http:// URI on "
                   "127.x.x.x, [::1] or localhost)",
           .value_name = "URI"},
          {.name = "user",
           .repeatable = true,
           .help = "a user who can sign in, with their groups (replaces the default users)",
           .value_name = "NAME:PASSWORD[:GROUP,GROUP...]"},
          {.name = "alg",
           .help = "the signing algorithm: ES256 (P-256) or RS256 (RSA)",
           .default_value = defaults.alg,
           .value_name = "ES256|RS256"},
          {.name = "key",
           .help = "the PEM private key to sign with (EC P-256 for ES256, RSA of 2048 bits or "
                   "more for RS256); default: a fresh key at each start",
           .value_name = "PEM_FILE"},
          {.name = "token-lifetime-s",
           .help = "how long issued tokens are valid",
           .default_value = std::to_string(defaults.token_lifetime.count()),
           .value_name = "N"},
          {.name = "groups-claim",
           .help = "the name of the claim that lists the user's groups",
           .default_value = defaults.groups_claim,
           .value_name = "NAME"},
      });
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  if (!args.positional().empty())
    throw cli::UsageError("unexpected argument \"" + args.positional()[0] + "\"");

  sim::oidc::OidcIssuerOptions options;
  options.client_id = args.value_or("client-id", defaults.client_id);
  if (options.client_id.empty()) throw cli::UsageError("--client-id must not be empty");
  if (const auto secret = args.get("client-secret"); secret && !secret->empty())
    options.client_secret = *secret;
  for (const auto& uri : args.all("redirect-uri")) {
    if (!(uri.starts_with("http://") || uri.starts_with("https://")) ||
        uri.find('#') != std::string::npos)
      throw cli::UsageError(
          "--redirect-uri must be an absolute http:// or https:// URI without "
          "a fragment, got \"" +
          uri + "\"");
    options.redirect_uris.push_back(uri);
  }
  for (const auto& user : args.all("user")) options.users.push_back(parse_user(user));
  options.alg = args.value_or("alg", defaults.alg);
  if (options.alg != "ES256" && options.alg != "RS256")
    throw cli::UsageError("--alg must be ES256 or RS256, got \"" + options.alg + "\"");
  if (const auto key = args.get("key"); key && !key->empty()) options.key_file = *key;
  options.token_lifetime = std::chrono::seconds(parse_bounded(
      args.value_or("token-lifetime-s", std::to_string(defaults.token_lifetime.count())),
      "token-lifetime-s", 1, 86'400));
  options.groups_claim = args.value_or("groups-claim", defaults.groups_claim);
  if (options.groups_claim.empty()) throw cli::UsageError("--groups-claim must not be empty");

  const auto listen = web::parse_listen_address(args.value_or("listen", "127.0.0.1:0"));
  boost::asio::io_context io;
  std::optional<sim::oidc::OidcIssuer> issuer;
  try {
    issuer.emplace(io, std::move(options));
  } catch (const Error& e) {
    // A key file that does not fit --alg, a user listed twice: the command line's fault.
    if (e.kind() != ErrorKind::invalid) throw;
    throw cli::UsageError(e.what());
  }
  issuer->listen(listen);

  const auto url = issuer->issuer();
  nlohmann::json users = nlohmann::json::array();
  for (const auto& user : issuer->options().users) users.push_back(user.username);
  const nlohmann::json line = {{"issuer", url},
                               {"endpoint", url},
                               {"discovery", url + "/.well-known/openid-configuration"},
                               {"jwks_uri", url + "/jwks"},
                               {"client_id", issuer->options().client_id},
                               {"alg", issuer->options().alg},
                               {"users", users}};
  return print_and_serve(io, line, "simulated OpenID Connect issuer");
}

}  // namespace ironhold::app
