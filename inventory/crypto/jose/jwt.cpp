#include "inventory/crypto/jose/jwt.hpp"

#include <openssl/crypto.h>

#include <cstdio>

#include "inventory/crypto/jose/untrusted.hpp"
#include "inventory/error.hpp"
#include "inventory/util/time.hpp"

namespace ironhold::crypto::jose {
namespace jwt_detail {

using nlohmann::json;
using Clock = std::chrono::system_clock;

Error refuse(std::string why) {
  return Error(ErrorKind::unauthenticated, std::move(why));
}

// NumericDate (RFC 7519 section 2): seconds since the epoch, which may have a fraction. Compared
// as doubles, which hold any time a token could mean to the microsecond and cannot overflow on
// the absurd ones a forger might try.
double seconds_of(Clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

std::string when(double seconds) {
  // From 1970 to the end of 9999, what RFC 3339 can write; outside that, the number is all there
  // is to say, and %g keeps it short.
  if (!(seconds >= 0 && seconds < 253402300800.0)) {
    char text[64];
    std::snprintf(text, sizeof text, "%g s after 1970 (an absurd time)", seconds);
    return text;
  }
  const auto since =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  return format_rfc3339(Clock::time_point(since));
}

std::optional<double> numeric_date(const json& claims, const char* name) {
  const auto it = claims.find(name);
  if (it == claims.end()) return std::nullopt;
  if (!it->is_number())
    throw refuse(std::string("the token's \"") + name + "\" is not a number of seconds");
  return it->get<double>();
}

void check_issuer(const json& claims, const ClaimsExpectations& expected) {
  const auto iss = claims.find("iss");
  if (iss == claims.end()) throw refuse("the token has no \"iss\" (issuer)");
  if (!iss->is_string()) throw refuse("the token's \"iss\" (issuer) is not a string");
  if (*iss != expected.issuer)
    throw refuse("the token was issued by " + detail::quote_value(iss->get<std::string>()) +
                 ", not by the expected " + detail::quote_value(expected.issuer));
}

// Returns how many audiences the token names.
std::size_t check_audience(const json& claims, const ClaimsExpectations& expected) {
  const auto aud = claims.find("aud");
  if (aud == claims.end()) throw refuse("the token has no \"aud\" (audience)");
  std::vector<std::string> audiences;
  if (aud->is_string()) {
    audiences.push_back(aud->get<std::string>());
  } else if (aud->is_array()) {
    for (const auto& one : *aud) {
      if (!one.is_string()) throw refuse("the token's \"aud\" holds a value that is not a string");
      audiences.push_back(one.get<std::string>());
    }
  } else {
    throw refuse("the token's \"aud\" is neither a string nor an array of strings");
  }
  if (std::find(audiences.begin(), audiences.end(), expected.audience) == audiences.end())
    throw refuse("the token is for " +
                 (audiences.size() == 1 ? "the audience " + detail::quote_value(audiences[0])
                                        : std::to_string(audiences.size()) + " audiences") +
                 ", not for the expected " + detail::quote_value(expected.audience));
  return audiences.size();
}

// OpenID Connect Core 3.1.3.7, items 4 and 5: a token for several audiences must say which of them
// it was issued to (azp), and that must be this client.
void check_authorized_party(const json& claims, const ClaimsExpectations& expected,
                            std::size_t audiences) {
  if (!expected.check_authorized_party) return;
  const std::string& client = expected.client_id.empty() ? expected.audience : expected.client_id;
  const auto azp = claims.find("azp");
  if (azp == claims.end()) {
    if (audiences > 1)
      throw refuse("the token is for " + std::to_string(audiences) +
                   " audiences and has no \"azp\" saying which party it was issued to");
    return;
  }
  if (!azp->is_string() || *azp != client)
    throw refuse(
        "the token was issued to the party " +
        (azp->is_string() ? detail::quote_value(azp->get<std::string>()) : "(not a string)") +
        ", not to " + detail::quote_value(client));
}

void check_times(const json& claims, const ClaimsExpectations& expected, Clock::time_point now) {
  const double at = seconds_of(now);
  const double leeway = static_cast<double>(expected.leeway.count());
  const auto exp = numeric_date(claims, "exp");
  if (!exp) throw refuse("the token has no \"exp\" (expiry)");
  // RFC 7519 section 4.1.4: the current time must be before "exp".
  if (at >= *exp + leeway)
    throw refuse("the token expired at " + when(*exp) + " (now " + when(at) + ", leeway " +
                 std::to_string(expected.leeway.count()) + " s)");
  if (const auto nbf = numeric_date(claims, "nbf"); nbf && at + leeway < *nbf)
    throw refuse("the token is not valid before " + when(*nbf) + " (now " + when(at) + ", leeway " +
                 std::to_string(expected.leeway.count()) + " s)");
  if (const auto iat = numeric_date(claims, "iat"); iat && at + leeway < *iat)
    throw refuse("the token says it was issued at " + when(*iat) + ", in the future (now " +
                 when(at) + ", leeway " + std::to_string(expected.leeway.count()) +
                 " s): is this host's clock or the issuer's wrong?");
}

void check_nonce(const json& claims, const ClaimsExpectations& expected) {
  if (!expected.nonce) return;
  const auto nonce = claims.find("nonce");
  if (nonce == claims.end())
    throw refuse("the token has no \"nonce\"; one was sent with the request");
  const std::string& want = *expected.nonce;
  if (!nonce->is_string() || nonce->get_ref<const std::string&>().size() != want.size() ||
      CRYPTO_memcmp(nonce->get_ref<const std::string&>().data(), want.data(), want.size()) != 0)
    throw refuse("the token's \"nonce\" is not the one sent with the request (a replayed token?)");
}

}  // namespace jwt_detail

Claims check_claims(const nlohmann::json& claims, const ClaimsExpectations& expected,
                    std::chrono::system_clock::time_point now) {
  using namespace jwt_detail;
  if (expected.issuer.empty() || expected.audience.empty())
    throw Error(ErrorKind::internal,
                "a token's claims were checked without an expected issuer "
                "and audience");
  if (!claims.is_object()) throw refuse("the token's claim set is not a JSON object");
  check_issuer(claims, expected);
  check_authorized_party(claims, expected, check_audience(claims, expected));
  check_times(claims, expected, now);
  check_nonce(claims, expected);
  const auto sub = claims.find("sub");
  if (sub == claims.end() || !sub->is_string() || sub->get_ref<const std::string&>().empty())
    throw refuse("the token has no \"sub\" (subject) string");
  return {sub->get<std::string>(), claims};
}

Claims verify_jwt(std::string_view token, const JwkSet& keys, const JwsOptions& options,
                  const ClaimsExpectations& expected, std::chrono::system_clock::time_point now) {
  const VerifiedJws jws = verify_compact(token, keys, options);
  std::string why;
  const auto claims = detail::parse_object(jws.payload, why);
  if (!claims) throw jwt_detail::refuse("the JWT payload " + why);
  return check_claims(*claims, expected, now);
}

}  // namespace ironhold::crypto::jose
