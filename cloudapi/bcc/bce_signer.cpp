#include "cloudapi/bcc/bce_signer.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <ctime>

#include "cloudapi/common/uri_encode.hpp"
#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"

namespace ironhold::cloudapi::bcc {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string_view trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n";
  const auto first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(kSpace);
  return s.substr(first, last - first + 1);
}

// The headers Baidu signs when the caller names none.
bool default_signed(const std::string& lowered) {
  return lowered == "host" || lowered == "content-length" || lowered == "content-type" ||
         lowered == "content-md5";
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool parse_int(std::string_view text, int& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  for (;;) {
    const auto at = text.find(sep);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) break;
    text.remove_prefix(at + 1);
  }
  return parts;
}

}  // namespace

std::string hmac_sha256_hex(std::string_view key, std::string_view message) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac.data(),
           &length) == nullptr)
    throw Error(ErrorKind::internal, "HMAC-SHA256 failed");
  return crypto::to_hex(std::span<const std::uint8_t>(mac.data(), length));
}

std::string bce_timestamp(std::int64_t unix_seconds) {
  const auto t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 32> buffer{};
  const auto n = std::strftime(buffer.data(), buffer.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(buffer.data(), n);
}

std::optional<std::int64_t> parse_bce_timestamp(std::string_view s) {
  if (s.size() != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
      s[16] != ':' || s[19] != 'Z')
    return std::nullopt;
  std::tm tm{};
  if (!parse_int(s.substr(0, 4), tm.tm_year) || !parse_int(s.substr(5, 2), tm.tm_mon) ||
      !parse_int(s.substr(8, 2), tm.tm_mday) || !parse_int(s.substr(11, 2), tm.tm_hour) ||
      !parse_int(s.substr(14, 2), tm.tm_min) || !parse_int(s.substr(17, 2), tm.tm_sec))
    return std::nullopt;
  if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
      tm.tm_min > 59 || tm.tm_sec > 60)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<std::int64_t>(timegm(&tm));
}

std::string bce_canonical_uri(std::string_view path) {
  if (path.empty()) return "/";
  return rfc3986_encode(path, /*keep_slash=*/true);
}

std::string bce_canonical_query(const std::vector<BceParam>& params) {
  std::vector<std::string> pairs;
  pairs.reserve(params.size());
  for (const auto& [name, value] : params) {
    // The signature may itself travel in the query; it cannot sign itself.
    if (lower(name) == "authorization") continue;
    pairs.push_back(rfc3986_encode(name) + "=" + rfc3986_encode(value.value_or("")));
  }
  std::sort(pairs.begin(), pairs.end());
  std::string out;
  for (const auto& p : pairs) {
    if (!out.empty()) out.push_back('&');
    out += p;
  }
  return out;
}

BceSignature sign_bce_v1(const BceCredentials& credentials, const BceRequestToSign& request) {
  BceSignature s;
  s.auth_string_prefix = "bce-auth-v1/" + credentials.access_key + "/" +
                         bce_timestamp(request.timestamp) + "/" +
                         std::to_string(request.expiration_seconds);
  s.signing_key = hmac_sha256_hex(credentials.secret_key, s.auth_string_prefix);

  std::vector<std::string> wanted;
  const bool use_defaults = !request.headers_to_sign || request.headers_to_sign->empty();
  if (!use_defaults)
    for (const auto& name : *request.headers_to_sign) wanted.push_back(lower(trim(name)));

  std::vector<std::string> canonical_headers;
  std::vector<std::string> names;
  for (const auto& [raw_name, raw_value] : request.headers) {
    const std::string name = lower(trim(raw_name));
    const std::string_view value = trim(raw_value);
    if (value.empty()) continue;
    const bool chosen =
        starts_with(name, "x-bce-") ||
        (use_defaults ? default_signed(name)
                      : std::find(wanted.begin(), wanted.end(), name) != wanted.end());
    if (!chosen) continue;
    canonical_headers.push_back(rfc3986_encode(name) + ":" + rfc3986_encode(value));
    names.push_back(name);
  }
  std::sort(canonical_headers.begin(), canonical_headers.end());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (const auto& n : names) {
    if (!s.signed_headers.empty()) s.signed_headers.push_back(';');
    s.signed_headers += n;
  }

  s.canonical_request = request.method + "\n" + bce_canonical_uri(request.path) + "\n" +
                        bce_canonical_query(request.params) + "\n";
  for (std::size_t i = 0; i < canonical_headers.size(); ++i) {
    if (i > 0) s.canonical_request.push_back('\n');
    s.canonical_request += canonical_headers[i];
  }
  // The key is used as its hex text, not as the 32 bytes it spells.
  s.signature = hmac_sha256_hex(s.signing_key, s.canonical_request);
  s.authorization = s.auth_string_prefix + "/" + s.signed_headers + "/" + s.signature;
  return s;
}

std::optional<BceAuthorization> parse_bce_authorization(std::string_view value) {
  const auto parts = split(trim(value), '/');
  if (parts.size() != 6 || parts[0] != "bce-auth-v1" || parts[1].empty() || parts[5].empty())
    return std::nullopt;
  BceAuthorization out;
  out.access_key = std::string(parts[1]);
  out.timestamp = std::string(parts[2]);
  if (!parse_int(parts[3], out.expiration_seconds) || out.expiration_seconds < 0)
    return std::nullopt;
  if (!parts[4].empty())
    for (const auto name : split(parts[4], ';')) out.signed_headers.emplace_back(name);
  out.signature = std::string(parts[5]);
  return out;
}

}  // namespace ironhold::cloudapi::bcc
