#include "sim/oidc/oauth_wire.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <boost/asio/ip/address.hpp>
#include <cctype>

#include "inventory/crypto/primitives.hpp"
#include "inventory/util/percent_decode.hpp"

namespace ironhold::sim::oidc {

using cloud::ApiReply;
using cloud::ApiRequest;
using nlohmann::json;

Form::Form(std::string_view text) {
  for (auto& [name, value] : cloud::parse_form(text)) {
    if (value.empty()) continue;  // RFC 6749 section 3.1: a parameter without a value is omitted
    if (!values.emplace(name, value).second) repeated.insert(name);
  }
}

std::optional<std::string> Form::get(const std::string& name) const {
  const auto it = values.find(name);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

namespace {
bool unreserved(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' ||
         c == '~';
}

// One form-urlencoded component of HTTP Basic client credentials (RFC 6749 section 2.3.1).
std::optional<std::string> form_decode(std::string text) {
  std::replace(text.begin(), text.end(), '+', ' ');
  std::string out;
  if (!percent_decode(text, out)) return std::nullopt;
  return out;
}

}  // namespace

std::string percent_encode(std::string_view text) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    if (unreserved(c)) {
      out += c;
    } else {
      const auto byte = static_cast<unsigned char>(c);
      out += '%';
      out += hex[byte >> 4];
      out += hex[byte & 0xf];
    }
  }
  return out;
}

// RFC 7636 section 4.1: a code verifier (and an S256 challenge) is 43 to 128 unreserved chars.
bool pkce_string(std::string_view text) {
  return text.size() >= 43 && text.size() <= 128 &&
         std::all_of(text.begin(), text.end(), unreserved);
}

bool has_scope(std::string_view scope, std::string_view wanted) {
  while (!scope.empty()) {
    const auto space = scope.find(' ');
    if (scope.substr(0, space) == wanted) return true;
    if (space == std::string_view::npos) break;
    scope.remove_prefix(space + 1);
  }
  return false;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// http:// on 127.x.x.x, [::1] or localhost with any port (RFC 8252 section 7.3), no user info
// and no fragment (RFC 6749 section 3.1.2).
bool loopback_redirect(std::string_view uri) {
  constexpr std::string_view scheme = "http://";
  if (!uri.starts_with(scheme) || uri.find('#') != std::string_view::npos) return false;
  const auto rest = uri.substr(scheme.size());
  const auto authority = rest.substr(0, rest.find_first_of("/?"));
  if (authority.find('@') != std::string_view::npos) return false;
  std::string_view host = authority;
  std::string_view port;
  if (authority.starts_with('[')) {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return false;
    host = authority.substr(1, close - 1);
    const auto after = authority.substr(close + 1);
    if (!after.empty() && after[0] != ':') return false;
    if (!after.empty()) port = after.substr(1);
    if (!after.empty() && port.empty()) return false;
  } else if (const auto colon = authority.find(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
    if (port.empty()) return false;
  }
  if (port.size() > 5 || !std::all_of(port.begin(), port.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      }))
    return false;
  if (lower(host) == "localhost") return true;
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(std::string(host), ec);
  // A bracketed host must be IPv6 and a bare one IPv4, as in a URI.
  if (ec || address.is_v6() != authority.starts_with('[')) return false;
  return address.is_loopback();
}

// Compares digests so that neither the content nor the length of the secret shows in the time.
bool same_secret(std::string_view a, std::string_view b) {
  const auto da = crypto::sha256(a);
  const auto db = crypto::sha256(b);
  return CRYPTO_memcmp(da.data(), db.data(), da.size()) == 0;
}

// The client id and secret of an "Authorization: Basic" header; nullopt when malformed.
std::optional<ClientCredentials> basic_credentials(std::string_view value) {
  if (value.size() < 6 || lower(value.substr(0, 6)) != "basic ") return std::nullopt;
  std::string encoded(value.substr(6));
  while (!encoded.empty() && encoded.back() == '=') encoded.pop_back();
  // Standard base64 as base64url, which is all primitives.hpp decodes.
  if (encoded.find_first_of("-_") != std::string::npos) return std::nullopt;
  std::replace(encoded.begin(), encoded.end(), '+', '-');
  std::replace(encoded.begin(), encoded.end(), '/', '_');
  std::vector<std::uint8_t> bytes;
  if (!crypto::from_base64url(encoded, bytes)) return std::nullopt;
  const std::string decoded(bytes.begin(), bytes.end());
  const auto colon = decoded.find(':');
  if (colon == std::string::npos) return std::nullopt;
  auto id = form_decode(decoded.substr(0, colon));
  auto secret = form_decode(decoded.substr(colon + 1));
  if (!id || !secret) return std::nullopt;
  return ClientCredentials{std::move(*id), std::move(*secret)};
}

bool form_encoded(const ApiRequest& request) {
  const auto type = request.header("Content-Type");
  return type && lower(*type).starts_with("application/x-www-form-urlencoded");
}

ApiReply json_reply(unsigned status, const json& body) {
  ApiReply reply;
  reply.status = status;
  reply.body = body.dump();
  return reply;
}

// An OAuth error (RFC 6749 section 5.2) from the token endpoint.
ApiReply oauth_error(unsigned status, std::string_view error, std::string_view description) {
  ApiReply reply = json_reply(status, {{"error", error}, {"error_description", description}});
  reply.headers = {{"Cache-Control", "no-store"}, {"Pragma", "no-cache"}};
  if (status == 401)
    reply.headers.emplace_back("WWW-Authenticate",
                               "Basic realm=\"simulated OpenID Connect issuer\"");
  return reply;
}

ApiReply html_reply(unsigned status, std::string body) {
  ApiReply reply;
  reply.status = status;
  reply.content_type = "text/html; charset=utf-8";
  reply.body = std::move(body);
  // No form-action: browsers apply it to the redirect that follows the form, which leaves for
  // the client's origin.
  reply.headers = {{"Cache-Control", "no-store"},
                   {"Content-Security-Policy",
                    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"},
                   {"X-Frame-Options", "DENY"},
                   {"Referrer-Policy", "no-referrer"}};
  return reply;
}

ApiReply redirect_to(std::string location) {
  ApiReply reply;
  reply.status = 302;
  reply.content_type.clear();
  reply.headers = {{"Location", std::move(location)}, {"Cache-Control", "no-store"}};
  return reply;
}

ApiReply method_not_allowed(std::string_view allow) {
  ApiReply reply = json_reply(405, {{"error", "method_not_allowed"},
                                    {"error_description", "allowed: " + std::string(allow)}});
  reply.headers = {{"Allow", std::string(allow)}};
  return reply;
}

}  // namespace ironhold::sim::oidc
