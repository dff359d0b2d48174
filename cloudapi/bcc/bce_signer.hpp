#pragma once
// Baidu AI Cloud's request signing, bce-auth-v1 (the Authorization header of every BCC call):
//   prefix       = "bce-auth-v1/" AK "/" yyyy-mm-ddThh:mm:ssZ "/" expirationSeconds
//   signing key  = hex(HMAC-SHA256(SK, prefix))
//   canonical    = METHOD \n enc(path, '/' kept) \n sorted enc(k)=enc(v) \n sorted headers
//   signature    = hex(HMAC-SHA256(signing key as hex text, canonical))
//   Authorization= prefix "/" signed;headers "/" signature
// The body is not hashed. The pieces are exposed so the tests can check each against Baidu's SDKs
// and the simulator can verify a request with the same code path.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ironhold::cloudapi::bcc {

struct BceCredentials {
  std::string access_key;
  std::string secret_key;
};

// A query parameter; a value-less one ("?start") has no value and signs as "start=".
using BceParam = std::pair<std::string, std::optional<std::string>>;
using BceHeader = std::pair<std::string, std::string>;

struct BceRequestToSign {
  std::string method;              // "GET", "PUT"
  std::string path;                // decoded ("/v2/instance/i-x"); encoded while signing
  std::vector<BceParam> params;    // decoded names and values
  std::vector<BceHeader> headers;  // as they will be sent (names in any case)
  std::int64_t timestamp = 0;      // Unix seconds, UTC
  int expiration_seconds = 1800;
  // Header names (any case) to sign besides every x-bce-* header, which Baidu's SDKs always sign.
  // Absent or empty: the default set (host, content-length, content-type, content-md5, x-bce-*).
  std::optional<std::vector<std::string>> headers_to_sign;
};

struct BceSignature {
  std::string auth_string_prefix;
  std::string signing_key;
  std::string canonical_request;
  std::string signed_headers;  // "host;x-bce-date"
  std::string signature;
  std::string authorization;
};

// 1704067200 -> "2024-01-01T00:00:00Z"
std::string bce_timestamp(std::int64_t unix_seconds);
// The inverse; nullopt unless exactly that form.
std::optional<std::int64_t> parse_bce_timestamp(std::string_view text);

std::string bce_canonical_uri(std::string_view path);
// The query in canonical form; an "authorization" parameter (any case) is left out.
std::string bce_canonical_query(const std::vector<BceParam>& params);

BceSignature sign_bce_v1(const BceCredentials& credentials, const BceRequestToSign& request);

// The parts of an Authorization header value; nullopt unless it has the bce-auth-v1 shape.
struct BceAuthorization {
  std::string access_key;
  std::string timestamp;  // as written
  int expiration_seconds = 0;
  std::vector<std::string> signed_headers;  // as listed, possibly empty
  std::string signature;
};
std::optional<BceAuthorization> parse_bce_authorization(std::string_view value);

// Lower-case hex of HMAC-SHA256(key, message).
std::string hmac_sha256_hex(std::string_view key, std::string_view message);

}  // namespace ironhold::cloudapi::bcc
