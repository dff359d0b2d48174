#pragma once
// AWS Signature Version 4 (AWS4-HMAC-SHA256): the canonical request, the string to sign, the
// signing key chain and the Authorization header, with OpenSSL's SHA-256 and HMAC. The EC2 driver
// signs with it and the EC2 simulator verifies with it; the building blocks are public so both
// sides (and the tests against AWS's own suite) see the intermediate strings.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ironhold::cloudapi::ec2 {

struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::optional<std::string> session_token;  // temporary (STS) credentials
};

using SigV4Headers = std::vector<std::pair<std::string, std::string>>;

// A request as it will go on the wire.
struct SigV4Request {
  std::string method;
  // The path and query as they will be sent ("/", "/?Action=DescribeInstances&..."). The path is
  // taken as not yet encoded: it is encoded once here (so "%" becomes "%25", the non-S3 rule).
  std::string target;
  SigV4Headers headers;  // must include Host
  std::string body;
};

struct SigV4Options {
  std::string region;
  std::string service = "ec2";
  // Remove "." and ".." segments and repeated slashes from the path (every service but S3).
  bool normalize_path = true;
  // Whether x-amz-security-token is part of the signature. A few services want it added after
  // signing (the suite's post-sts-header-after); EC2 signs it.
  bool sign_session_token = true;
  // Send and sign x-amz-content-sha256 (S3 style; EC2 does not need it).
  bool add_content_sha256 = false;
};

struct SigV4Result {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signature;      // lower-case hex
  std::string authorization;  // the Authorization header's value
  // What to add to the request before sending it: X-Amz-Date, X-Amz-Security-Token,
  // x-amz-content-sha256 (when asked) and Authorization.
  SigV4Headers headers_to_add;
};

// Signs every header of `request` except the ones proxies and clients change on the way
// (user-agent, expect, x-amzn-trace-id), plus the headers it adds.
SigV4Result sign_v4(const SigV4Request& request, const AwsCredentials& credentials,
                    const SigV4Options& options, std::chrono::system_clock::time_point when);

// --- building blocks ---

// "20150830T123600Z"
std::string amz_date(std::chrono::system_clock::time_point when);
// Parses amz_date's format; nothing when malformed.
std::optional<std::chrono::system_clock::time_point> parse_amz_date(std::string_view text);

std::string canonical_uri(std::string_view path, bool normalize);
// Each name and value decoded then re-encoded, sorted by name then value; "a" alone is "a=".
std::string canonical_query(std::string_view query);
// "name:value\n" for each name of `signed_names` (lower case, sorted, distinct): repeated headers
// joined with ',' in order, values trimmed and inner whitespace runs (folded lines too) made one
// space.
std::string canonical_headers(const SigV4Headers& headers,
                              const std::vector<std::string>& signed_names);
std::string canonical_request(std::string_view method, std::string_view target,
                              const SigV4Headers& headers,
                              const std::vector<std::string>& signed_names,
                              std::string_view payload_hash, bool normalize_path);
std::string credential_scope(std::string_view date8, std::string_view region,
                             std::string_view service);
std::string string_to_sign(std::string_view amz_date, std::string_view scope,
                           std::string_view canonical_request);
// HMAC chain "AWS4"+secret → date → region → service → "aws4_request", then the string to sign.
std::string signature_of(std::string_view secret, std::string_view date8, std::string_view region,
                         std::string_view service, std::string_view string_to_sign);
std::string sha256_hex(std::string_view data);

// The parts of an Authorization header, for a server that verifies it.
struct SigV4Authorization {
  std::string access_key_id;
  std::string date;  // "20150830"
  std::string region;
  std::string service;
  std::vector<std::string> signed_headers;  // as listed (lower case, sorted)
  std::string signature;
};
// Nothing when it is not a well-formed AWS4-HMAC-SHA256 header.
std::optional<SigV4Authorization> parse_authorization(std::string_view value);

}  // namespace ironhold::cloudapi::ec2
