#include "cloudapi/ec2/sigv4.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <ctime>

#include "cloudapi/common/uri_encode.hpp"
#include "inventory/util/concat.hpp"
#include "inventory/util/percent_decode.hpp"

namespace ironhold::cloudapi::ec2 {
namespace {

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";
constexpr std::string_view kTerminator = "aws4_request";

std::string to_hex(const unsigned char* data, std::size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (std::size_t i = 0; i < size; ++i) {
    out.push_back(kDigits[data[i] >> 4]);
    out.push_back(kDigits[data[i] & 0x0F]);
  }
  return out;
}

std::string hmac_sha256(std::string_view key, std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  unsigned int size = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data(), &size);
  return std::string(reinterpret_cast<const char*>(out.data()), size);
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Trimmed, with each run of whitespace (a folded line's line break included) made one space.
std::string trim_all(std::string_view value) {
  std::string out;
  bool pending_space = false;
  for (const char c : value) {
    if (is_space(c)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    out.push_back(c);
  }
  return out;
}

// RFC 3986 remove_dot_segments plus merging of repeated slashes, as AWS normalizes paths.
std::string normalize_path(std::string_view path) {
  std::vector<std::string_view> segments;
  bool trailing_slash = false;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    const std::string_view segment = path.substr(start, end - start);
    const bool last = end == path.size();
    if (segment == "..") {
      if (!segments.empty()) segments.pop_back();
      trailing_slash = last;
    } else if (segment == ".") {
      trailing_slash = last;
    } else if (segment.empty()) {
      trailing_slash = last;
    } else {
      segments.push_back(segment);
      trailing_slash = false;
    }
    start = end + 1;
  }
  std::string out;
  for (const auto segment : segments) {
    out += '/';
    out += segment;
  }
  if (out.empty() || trailing_slash) out += '/';
  return out;
}

std::vector<std::string> signed_header_names(const SigV4Headers& headers) {
  std::vector<std::string> names;
  for (const auto& [name, value] : headers) {
    std::string n = lower(name);
    // Proxies and HTTP clients add or rewrite these; botocore leaves them out too.
    if (n == "authorization" || n == "user-agent" || n == "expect" || n == "x-amzn-trace-id")
      continue;
    names.push_back(std::move(n));
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::string join(const std::vector<std::string>& parts, char separator) {
  std::string out;
  for (const auto& part : parts) {
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  unsigned int size = 0;
  EVP_Digest(data.data(), data.size(), out.data(), &size, EVP_sha256(), nullptr);
  return to_hex(out.data(), size);
}

std::string amz_date(std::chrono::system_clock::time_point when) {
  const std::time_t t = std::chrono::system_clock::to_time_t(when);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 32> buffer{};
  const std::size_t n = std::strftime(buffer.data(), buffer.size(), "%Y%m%dT%H%M%SZ", &tm);
  return std::string(buffer.data(), n);
}

std::optional<std::chrono::system_clock::time_point> parse_amz_date(std::string_view text) {
  if (text.size() != 16 || text[8] != 'T' || text[15] != 'Z') return std::nullopt;
  auto number = [&](std::size_t pos, std::size_t len, int& out) {
    const char* first = text.data() + pos;
    const auto [p, ec] = std::from_chars(first, first + len, out);
    return ec == std::errc() && p == first + len;
  };
  std::tm tm{};
  if (!number(0, 4, tm.tm_year) || !number(4, 2, tm.tm_mon) || !number(6, 2, tm.tm_mday) ||
      !number(9, 2, tm.tm_hour) || !number(11, 2, tm.tm_min) || !number(13, 2, tm.tm_sec))
    return std::nullopt;
  if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
      tm.tm_min > 59 || tm.tm_sec > 60)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

std::string canonical_uri(std::string_view path, bool normalize) {
  if (path.empty()) return "/";
  return rfc3986_encode(normalize ? normalize_path(path) : std::string(path), true);
}

std::string canonical_query(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> pairs;
  std::size_t start = 0;
  while (start < query.size()) {
    const std::size_t end = std::min(query.find('&', start), query.size());
    const std::string_view pair = query.substr(start, end - start);
    start = end + 1;
    if (pair.empty()) continue;
    const std::size_t eq = pair.find('=');
    const std::string_view raw_name = pair.substr(0, eq);
    const std::string_view raw_value =
        eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1);
    std::string name, value;
    // A malformed escape is signed as it stands (encoded, so "%" becomes "%25").
    if (!percent_decode(raw_name, name)) name = std::string(raw_name);
    if (!percent_decode(raw_value, value)) value = std::string(raw_value);
    pairs.emplace_back(rfc3986_encode(name, false), rfc3986_encode(value, false));
  }
  std::sort(pairs.begin(), pairs.end());
  std::string out;
  for (const auto& [name, value] : pairs) {
    if (!out.empty()) out += '&';
    out += name;
    out += '=';
    out += value;
  }
  return out;
}

std::string canonical_headers(const SigV4Headers& headers,
                              const std::vector<std::string>& signed_names) {
  std::string out;
  for (const auto& name : signed_names) {
    std::string values;
    bool first = true;
    for (const auto& [n, v] : headers) {
      if (lower(n) != name) continue;
      if (!first) values += ',';
      values += trim_all(v);
      first = false;
    }
    out += name;
    out += ':';
    out += values;
    out += '\n';
  }
  return out;
}

std::string canonical_request(std::string_view method, std::string_view target,
                              const SigV4Headers& headers,
                              const std::vector<std::string>& signed_names,
                              std::string_view payload_hash, bool normalize_path) {
  const std::size_t q = target.find('?');
  const std::string_view path = target.substr(0, q);
  const std::string_view query =
      q == std::string_view::npos ? std::string_view{} : target.substr(q + 1);
  std::string out(method);
  out += '\n';
  out += canonical_uri(path, normalize_path);
  out += '\n';
  out += canonical_query(query);
  out += '\n';
  out += canonical_headers(headers, signed_names);
  out += '\n';
  out += join(signed_names, ';');
  out += '\n';
  out += payload_hash;
  return out;
}

std::string credential_scope(std::string_view date8, std::string_view region,
                             std::string_view service) {
  std::string out(date8);
  out += '/';
  out += region;
  out += '/';
  out += service;
  out += '/';
  out += kTerminator;
  return out;
}

std::string string_to_sign(std::string_view amz_date, std::string_view scope,
                           std::string_view canonical_request) {
  std::string out(kAlgorithm);
  out += '\n';
  out += amz_date;
  out += '\n';
  out += scope;
  out += '\n';
  out += sha256_hex(canonical_request);
  return out;
}

std::string signature_of(std::string_view secret, std::string_view date8, std::string_view region,
                         std::string_view service, std::string_view string_to_sign) {
  const std::string k_date = hmac_sha256("AWS4" + std::string(secret), date8);
  const std::string k_region = hmac_sha256(k_date, region);
  const std::string k_service = hmac_sha256(k_region, service);
  const std::string k_signing = hmac_sha256(k_service, kTerminator);
  const std::string mac = hmac_sha256(k_signing, string_to_sign);
  return to_hex(reinterpret_cast<const unsigned char*>(mac.data()), mac.size());
}

SigV4Result sign_v4(const SigV4Request& request, const AwsCredentials& credentials,
                    const SigV4Options& options, std::chrono::system_clock::time_point when) {
  SigV4Result result;
  const std::string date = amz_date(when);
  const std::string date8 = date.substr(0, 8);
  const std::string payload_hash = sha256_hex(request.body);

  SigV4Headers headers = request.headers;
  result.headers_to_add.emplace_back("X-Amz-Date", date);
  if (options.add_content_sha256)
    result.headers_to_add.emplace_back("x-amz-content-sha256", payload_hash);
  if (credentials.session_token && options.sign_session_token)
    result.headers_to_add.emplace_back("X-Amz-Security-Token", *credentials.session_token);
  headers.insert(headers.end(), result.headers_to_add.begin(), result.headers_to_add.end());

  const std::vector<std::string> names = signed_header_names(headers);
  result.canonical_request = canonical_request(request.method, request.target, headers, names,
                                               payload_hash, options.normalize_path);
  const std::string scope = credential_scope(date8, options.region, options.service);
  result.string_to_sign = string_to_sign(date, scope, result.canonical_request);
  result.signature = signature_of(credentials.secret_access_key, date8, options.region,
                                  options.service, result.string_to_sign);
  result.authorization =
      util::concat(kAlgorithm, " Credential=", credentials.access_key_id, "/", scope,
                   ", SignedHeaders=", join(names, ';'), ", Signature=", result.signature);
  if (credentials.session_token && !options.sign_session_token)
    result.headers_to_add.emplace_back("X-Amz-Security-Token", *credentials.session_token);
  result.headers_to_add.emplace_back("Authorization", result.authorization);
  return result;
}

std::optional<SigV4Authorization> parse_authorization(std::string_view value) {
  if (!value.starts_with(kAlgorithm)) return std::nullopt;
  value.remove_prefix(kAlgorithm.size());
  if (value.empty() || value.front() != ' ') return std::nullopt;
  std::optional<std::string_view> credential, signed_headers, signature;
  while (!value.empty()) {
    while (!value.empty() && (value.front() == ' ' || value.front() == ',')) value.remove_prefix(1);
    const std::size_t end = std::min(value.find(','), value.size());
    std::string_view item = value.substr(0, end);
    value.remove_prefix(end);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    const std::string_view key = item.substr(0, eq);
    const std::string_view val = item.substr(eq + 1);
    if (key == "Credential")
      credential = val;
    else if (key == "SignedHeaders")
      signed_headers = val;
    else if (key == "Signature")
      signature = val;
    else
      return std::nullopt;
  }
  if (!credential || !signed_headers || !signature) return std::nullopt;

  // AKID/date/region/service/aws4_request; the key id itself has no '/'.
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= credential->size()) {
    const std::size_t end = std::min(credential->find('/', start), credential->size());
    parts.emplace_back(credential->substr(start, end - start));
    start = end + 1;
  }
  if (parts.size() != 5 || parts[4] != kTerminator || parts[0].empty() || parts[1].size() != 8)
    return std::nullopt;
  SigV4Authorization out;
  out.access_key_id = parts[0];
  out.date = parts[1];
  out.region = parts[2];
  out.service = parts[3];
  start = 0;
  while (start <= signed_headers->size()) {
    const std::size_t end = std::min(signed_headers->find(';', start), signed_headers->size());
    if (end > start) out.signed_headers.emplace_back(signed_headers->substr(start, end - start));
    start = end + 1;
  }
  out.signature = std::string(*signature);
  if (out.signed_headers.empty() || out.signature.empty()) return std::nullopt;
  return out;
}

}  // namespace ironhold::cloudapi::ec2
