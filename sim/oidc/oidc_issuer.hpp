#pragma once
// A simulated OpenID Connect identity provider on loopback (plain HTTP), the peer that tests and
// the demo sign in against: the authorization code flow with PKCE (S256 required) through an HTML
// sign-in form, the resource owner password grant for scripts, and signed ID and access tokens.
//   GET  /.well-known/openid-configuration   the discovery document
//   GET  /jwks                               the public keys (current, and the previous one)
//   GET  /authorize                          checks the request, shows the sign-in form
//   POST /authorize                          the form: signs in (302 with a code) or denies
//   POST /token                              authorization_code or password grant
// The issuer is "http://HOST:PORT" of the bound address, without a trailing slash.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/cloud/api_server.hpp"

namespace ironhold::sim::oidc {

struct OidcUser {
  std::string username;
  std::string password;
  std::vector<std::string> groups;
  // Empty: derived from the user name ("sub-alice", "Alice", "alice@example.test").
  std::string subject{};
  std::string name{};
  std::string email{};
};

struct OidcIssuerOptions {
  std::string client_id = "ironhold";
  // When set, /token authenticates the client with it (client_secret_basic or client_secret_post);
  // otherwise the client is public and PKCE is its only proof.
  std::optional<std::string> client_secret;
  // Exact redirect URIs the client may use. Empty: any http:// URI on a loopback host (127.x.x.x,
  // [::1] or localhost, any port), as RFC 8252 section 7.3 allows native apps.
  std::vector<std::string> redirect_uris;
  // Empty: alice/alice-oidc (gpu-ops, auditors), bob/bob-oidc (fleet-admins), carol/carol-oidc.
  std::vector<OidcUser> users;
  std::string alg = "ES256";  // or "RS256"
  // A PEM private key (EC P-256 for ES256, RSA >= 2048 for RS256); empty: a fresh key.
  std::filesystem::path key_file;
  std::chrono::seconds token_lifetime{300};
  std::string groups_claim = "groups";
  // The issuer's clock, for tokens' iat/exp and codes' expiry; empty: the system clock.
  std::function<std::chrono::system_clock::time_point()> clock;
};

// The users a simulated issuer has when none are configured.
std::vector<OidcUser> default_oidc_users();

class OidcIssuer {
 public:
  // Throws ironhold::Error (invalid) for unusable options: an unsupported alg, a key file that
  // does not fit it, an empty client id, duplicate or empty user names.
  OidcIssuer(boost::asio::io_context& io, OidcIssuerOptions options = {});
  ~OidcIssuer();
  OidcIssuer(const OidcIssuer&) = delete;
  OidcIssuer& operator=(const OidcIssuer&) = delete;

  // Binds (port 0: a free one) and serves; the bound endpoint, which names the issuer.
  boost::asio::ip::tcp::endpoint listen(const boost::asio::ip::tcp::endpoint& endpoint);
  void close();

  const OidcIssuerOptions& options() const;  // with the default users filled in
  std::string issuer() const;                // "" before listen()
  nlohmann::json jwks() const;               // what GET /jwks answers
  // A new signing key with a new kid; /jwks keeps the previous key so that tokens signed before
  // still verify.
  void rotate_key();
  // `claims` signed as they are with the current key: for tokens the flows never issue (expired,
  // another audience, another issuer).
  std::string mint(const nlohmann::json& claims) const;

  // One request, as the server hands it over.
  cloud::ApiReply handle(const cloud::ApiRequest& request);

  struct State;

 private:
  std::shared_ptr<State> state_;
  cloud::ApiServer server_;
};

}  // namespace ironhold::sim::oidc
