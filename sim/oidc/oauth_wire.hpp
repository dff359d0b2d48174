#pragma once
// The OAuth 2.0 wire details the simulated issuer (oidc_issuer.cpp) checks and answers with:
// form and query parameters (RFC 6749 section 3.1: none repeated, empty ones omitted), PKCE
// strings, loopback redirect URIs (RFC 8252 section 7.3), HTTP Basic client credentials (RFC 6749
// section 2.3.1), and the JSON, HTML and redirect replies.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "sim/cloud/api_server.hpp"

namespace ironhold::sim::oidc {

// A form or query, each name once; repeats are recorded for the caller to refuse.
struct Form {
  std::map<std::string, std::string> values;
  std::set<std::string> repeated;

  explicit Form(std::string_view text);
  std::optional<std::string> get(const std::string& name) const;
};

std::string percent_encode(std::string_view text);
// RFC 7636 section 4.1: a code verifier (and an S256 challenge) is 43 to 128 unreserved chars.
bool pkce_string(std::string_view text);
bool has_scope(std::string_view scope, std::string_view wanted);
std::string lower(std::string_view text);
// http:// on 127.x.x.x, [::1] or localhost with any port, no user info and no fragment.
bool loopback_redirect(std::string_view uri);
// Compares digests so that neither the content nor the length of the secret shows in the time.
bool same_secret(std::string_view a, std::string_view b);

struct ClientCredentials {
  std::string id;
  std::string secret;
};
// The client id and secret of an "Authorization: Basic" header; nullopt when malformed.
std::optional<ClientCredentials> basic_credentials(std::string_view value);

bool form_encoded(const cloud::ApiRequest& request);
cloud::ApiReply json_reply(unsigned status, const nlohmann::json& body);
// An OAuth error (RFC 6749 section 5.2) from the token endpoint.
cloud::ApiReply oauth_error(unsigned status, std::string_view error, std::string_view description);
cloud::ApiReply html_reply(unsigned status, std::string body);
cloud::ApiReply redirect_to(std::string location);
cloud::ApiReply method_not_allowed(std::string_view allow);

}  // namespace ironhold::sim::oidc
