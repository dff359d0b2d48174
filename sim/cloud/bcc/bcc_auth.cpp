#include "sim/cloud/bcc/bcc_auth.hpp"

#include <openssl/crypto.h>

#include <algorithm>

#include "cloudapi/bcc/bce_signer.hpp"
#include "inventory/util/percent_decode.hpp"

namespace ironhold::sim::cloud::bcc {
namespace {

namespace signer = ironhold::cloudapi::bcc;

std::string lower(std::string_view text) {
  std::string out(text);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

std::string decoded(std::string_view text) {
  std::string out;
  if (!percent_decode(text, out)) throw BccApiError(faults::invalid_uri());
  return out;
}

bool same_signature(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

// Clocks disagree a little; a timestamp far in the future is as suspect as an expired one.
constexpr std::int64_t kFutureSkewSeconds = 15 * 60;

}  // namespace

std::vector<std::pair<std::string, std::optional<std::string>>> decode_query(
    std::string_view query) {
  std::vector<std::pair<std::string, std::optional<std::string>>> out;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view item = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string_view::npos)
      out.emplace_back(decoded(item), std::nullopt);
    else
      out.emplace_back(decoded(item.substr(0, eq)), decoded(item.substr(eq + 1)));
  }
  return out;
}

std::optional<BccFault> check_bce_auth(const ApiRequest& request,
                                       const std::map<std::string, std::string>& secret_keys,
                                       std::chrono::system_clock::time_point now) {
  const auto header = request.header("Authorization");
  if (!header || header->empty()) return faults::access_denied("The request is not signed.");
  const auto auth = signer::parse_bce_authorization(*header);
  if (!auth) return faults::invalid_auth_header();
  const auto key = secret_keys.find(auth->access_key);
  if (key == secret_keys.end()) return faults::invalid_access_key_id();

  const auto signed_at = signer::parse_bce_timestamp(auth->timestamp);
  if (!signed_at) return faults::invalid_auth_header();
  const auto now_seconds =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  if (now_seconds > *signed_at + auth->expiration_seconds ||
      *signed_at > now_seconds + kFutureSkewSeconds)
    return faults::request_expired(auth->timestamp);

  signer::BceRequestToSign to_sign;
  to_sign.method = request.method;
  to_sign.path = decoded(request.path());
  to_sign.params = decode_query(request.query());
  to_sign.timestamp = *signed_at;
  to_sign.expiration_seconds = auth->expiration_seconds;
  std::vector<std::string> listed;
  for (const auto& name : auth->signed_headers) listed.push_back(lower(trimmed(name)));
  for (const auto& [name, value] : request.headers) {
    const std::string lowered = lower(trimmed(name));
    // Only what the client listed: it may send x-bce-* headers it did not sign.
    if (listed.empty() || std::find(listed.begin(), listed.end(), lowered) != listed.end())
      to_sign.headers.emplace_back(name, value);
  }
  if (!listed.empty()) to_sign.headers_to_sign = listed;
  const auto expected = signer::sign_bce_v1({auth->access_key, key->second}, to_sign);
  if (!same_signature(expected.signature, auth->signature))
    return faults::signature_does_not_match();
  return std::nullopt;
}

}  // namespace ironhold::sim::cloud::bcc
