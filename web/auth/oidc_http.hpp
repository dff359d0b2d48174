#pragma once
// The few requests Ironhold makes of an OpenID Connect provider (discovery, key set, token
// endpoint), through libcurl's blocking interface: called on the blocking pool, rarely (the
// discovery document and key set are cached). No redirects are followed and answers are capped,
// so that a misbehaving provider costs a bounded amount; TLS is checked against the configured CA.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "web/auth/oidc_config.hpp"

namespace ironhold::web::auth {

struct OidcHttpResponse {
  long status = 0;
  std::string content_type;
  std::string body;
};

// `text` percent-encoded for a form body or a query (every byte outside RFC 3986's unreserved
// set as %XX), as RFC 6749 appendix B spells application/x-www-form-urlencoded.
std::string oauth_encode(std::string_view text);

// Throws Error(unavailable) naming the URL when the provider cannot be reached or its answer is
// over 1 MiB.
OidcHttpResponse oidc_get(const OidcConfig& config, const std::string& url);

// A form POST to the token endpoint, with the client's secret (when it has one) in an
// Authorization: Basic header as RFC 6749 section 2.3.1 spells it.
OidcHttpResponse oidc_post_form(const OidcConfig& config, const std::string& url,
                                const std::vector<std::pair<std::string, std::string>>& form);

}  // namespace ironhold::web::auth
