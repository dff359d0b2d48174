#pragma once
// What the tests of the simulated OpenID Connect issuer share: the issuer on loopback, an HTTP
// client over libcurl, the RFC 7636 appendix B verifier, and the form and token helpers.
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <thread>

#include "curl_client.hpp"
#include "inventory/crypto/jose/jwk.hpp"
#include "inventory/crypto/jose/jws.hpp"
#include "inventory/crypto/jose/jwt.hpp"
#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"
#include "sim/cloud/api_server.hpp"
#include "sim/oidc/oidc_issuer.hpp"
#include "tests/support/openssl_jws.hpp"
#include "tests/support/test_cluster.hpp"

// These names are apart from those of the other test files compiled with them.
namespace oidc_issuer_test {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using nlohmann::json;
namespace fs = std::filesystem;
namespace jose = ironhold::crypto::jose;
namespace oidc = ironhold::sim::oidc;
using Params = std::vector<std::pair<std::string, std::string>>;

// RFC 7636 appendix B: a code verifier and its S256 challenge, worked out by the RFC's authors.
inline const std::string verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
inline const std::string challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
inline const std::string callback = "http://127.0.0.1:47811/auth/callback";

// An issuer on 127.0.0.1 (a free port), its io_context on a thread of its own.
struct IssuerOnLoopback {
  explicit IssuerOnLoopback(oidc::OidcIssuerOptions options = {})
      : issuer(io, std::move(options)), work(io.get_executor()) {
    const auto bound = issuer.listen({boost::asio::ip::make_address("127.0.0.1"), 0});
    origin = "http://127.0.0.1:" + std::to_string(bound.port());
    thread = std::thread([this] { io.run(); });
  }
  ~IssuerOnLoopback() {
    issuer.close();
    work.reset();
    io.stop();
    thread.join();
  }

  boost::asio::io_context io;
  oidc::OidcIssuer issuer;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work;
  std::string origin;  // what the issuer must call itself
  std::thread thread;
};

inline oidc::OidcIssuerOptions test_options() {
  oidc::OidcIssuerOptions o;
  o.users = {{"dana", "dana-pass", {"gpu-ops", "night shift"}},
             {"erik", "erik-pass", {}, "erik-subject", "Erik E.", "erik@corp.test"}};
  o.token_lifetime = std::chrono::seconds(120);
  return o;
}

inline std::string encode(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) ||
        std::string_view("-._~").find(c) != std::string_view::npos) {
      out += c;
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", static_cast<unsigned char>(c));
      out += hex;
    }
  }
  return out;
}

inline std::string form(const Params& params) {
  std::string out;
  for (const auto& [name, value] : params)
    out += (out.empty() ? "" : "&") + name + "=" + encode(value);
  return out;
}

inline ironhold::test::CurlReply fetch(const std::string& url, ironhold::test::CurlCall call = {}) {
  auto reply = ironhold::test::curl_fetch(url, call);
  INFO(url << ": " << curl_easy_strerror(reply.code));
  REQUIRE(reply.ok());
  return reply;
}

inline ironhold::test::CurlReply get(const std::string& url) {
  ironhold::test::CurlCall call;
  call.basic.clear();
  return fetch(url, call);
}

// A form POST; `basic` is "id:secret" for curl to send as given, `headers` any others.
inline ironhold::test::CurlReply post(const std::string& url, const Params& params,
                                      std::vector<std::string> headers = {},
                                      std::string basic = {}) {
  ironhold::test::CurlCall call;
  call.method = "POST";
  call.body = form(params);
  call.basic = std::move(basic);
  call.headers = std::move(headers);
  call.headers.push_back("Content-Type: application/x-www-form-urlencoded");
  return fetch(url, call);
}

// The query parameters of a Location header.
inline std::map<std::string, std::string> query_of(const std::string& location) {
  const auto mark = location.find('?');
  REQUIRE(mark != std::string::npos);
  std::map<std::string, std::string> out;
  for (auto& [name, value] : ironhold::sim::cloud::parse_form(location.substr(mark + 1)))
    out[name] = value;
  return out;
}

inline std::string html_unescape(std::string text) {
  const std::pair<std::string, std::string> entities[] = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}};
  for (const auto& [entity, c] : entities)
    for (auto at = text.find(entity); at != std::string::npos; at = text.find(entity, at + 1))
      text.replace(at, entity.size(), c);
  return text;
}

// The hidden inputs of the sign-in form, as a browser would post them back.
inline Params hidden_inputs(const std::string& html) {
  Params out;
  const std::regex input("<input\\b[^>]*>");
  const std::regex attribute("([a-z-]+)=\"([^\"]*)\"");
  for (auto tag = std::sregex_iterator(html.begin(), html.end(), input);
       tag != std::sregex_iterator(); ++tag) {
    std::map<std::string, std::string> attrs;
    const std::string text = tag->str();
    for (auto a = std::sregex_iterator(text.begin(), text.end(), attribute);
         a != std::sregex_iterator(); ++a)
      attrs[(*a)[1]] = html_unescape((*a)[2]);
    if (attrs["type"] == "hidden") out.emplace_back(attrs["name"], attrs["value"]);
  }
  return out;
}

inline std::string authorize_url(const std::string& origin, const Params& params) {
  return origin + "/authorize?" + form(params);
}

inline Params authorize_params(const std::string& redirect_uri, const std::string& state,
                               const std::string& nonce) {
  return {{"response_type", "code"},
          {"client_id", "ironhold"},
          {"redirect_uri", redirect_uri},
          {"scope", "openid profile email groups"},
          {"state", state},
          {"nonce", nonce},
          {"code_challenge", challenge},
          {"code_challenge_method", "S256"}};
}

// Signs in through the form as a browser would; the code the redirect carries.
inline std::string sign_in(const IssuerOnLoopback& idp, const std::string& user,
                           const std::string& password,
                           const std::string& redirect_uri = callback) {
  const auto page = get(authorize_url(idp.origin, authorize_params(redirect_uri, "s", "n")));
  REQUIRE(page.status == 200);
  Params fields = hidden_inputs(page.body);
  fields.emplace_back("username", user);
  fields.emplace_back("password", password);
  const auto reply = post(idp.origin + "/authorize", fields);
  REQUIRE(reply.status == 302);
  return query_of(reply.headers.at("location")).at("code");
}

inline Params code_exchange(const std::string& code, const std::string& code_verifier = verifier,
                            const std::string& redirect_uri = callback) {
  return {{"grant_type", "authorization_code"},
          {"code", code},
          {"redirect_uri", redirect_uri},
          {"client_id", "ironhold"},
          {"code_verifier", code_verifier}};
}

inline jose::JwsOptions only(const std::string& alg) {
  jose::JwsOptions o;
  o.allowed_algs = {alg};
  return o;
}

inline json header_of(const std::string& token) {
  std::vector<std::uint8_t> bytes;
  REQUIRE(ironhold::crypto::from_base64url(token.substr(0, token.find('.')), bytes));
  return json::parse(bytes.begin(), bytes.end());
}

// Standard base64, which HTTP Basic uses, from base64url.
inline std::string base64(std::string_view text) {
  std::string out = ironhold::crypto::base64url(
      std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  for (char& c : out) c = c == '-' ? '+' : c == '_' ? '/' : c;
  while (out.size() % 4) out += '=';
  return out;
}

inline std::string header(const ironhold::test::CurlReply& reply, const std::string& name) {
  const auto it = reply.headers.find(name);
  return it == reply.headers.end() ? std::string() : it->second;
}

inline std::map<std::string, std::string> as_map(const Params& params) {
  return {params.begin(), params.end()};
}

inline std::string error_of(const ironhold::test::CurlReply& reply) {
  return reply.doc().value("error", "(none)");
}

}  // namespace oidc_issuer_test
