#include "inventory/crypto/password_hash.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <charconv>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"

namespace ironhold::crypto {

namespace {

constexpr std::string_view prefix = "$scrypt$";
constexpr std::size_t salt_bytes = 16;
constexpr std::size_t hash_bytes = 32;

// The stored string decides how much memory and time verification spends, so a tampered or
// corrupted row must not be able to ask for gigabytes or minutes. One lane (128·r·N bytes) is
// capped at 256 MiB, which still leaves room to raise the defaults 8-fold; p lanes run one after
// another in OpenSSL, so p times that is a bound on time rather than memory.
constexpr int min_log2_n = 10, max_log2_n = 20;
constexpr int max_r = 32, max_p = 16;
constexpr std::uint64_t max_lane_bytes = std::uint64_t{256} << 20;
constexpr std::uint64_t max_total_bytes = std::uint64_t{1} << 30;
// The salt of RFC 7914's test vectors is 4 bytes ("NaCl"); a hash shorter than 16 bytes would make
// a guess too likely to match by chance.
constexpr std::size_t min_salt = 4, max_salt = 64;
constexpr std::size_t min_hash = 16, max_hash = 64;

std::uint64_t lane_bytes(const PasswordHashParams& params) {
  return std::uint64_t{128} * static_cast<std::uint64_t>(params.r) << params.log2_n;
}

bool within_bounds(const PasswordHashParams& params) {
  // RFC 7914 also requires N < 2^(16·r), which only bites at r = 1; OpenSSL refuses past it, and
  // a stored string it would refuse must read as unsupported, not as a failure.
  return params.log2_n >= min_log2_n && params.log2_n <= max_log2_n && params.r >= 1 &&
         params.r <= max_r && params.p >= 1 && params.p <= max_p && params.log2_n < 16 * params.r &&
         lane_bytes(params) <= max_lane_bytes &&
         lane_bytes(params) * static_cast<std::uint64_t>(params.p) <= max_total_bytes;
}

// PHC strings use standard base64 without padding; the URL-safe codec differs only in two
// characters, which must not be accepted in their URL-safe form.
std::string phc_base64(std::span<const std::uint8_t> bytes) {
  std::string text = base64url(bytes);
  for (char& c : text) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  return text;
}

bool from_phc_base64(std::string_view text, std::vector<std::uint8_t>& out) {
  std::string url(text);
  for (char& c : url) {
    if (c == '-' || c == '_') return false;
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return from_base64url(url, out);
}

struct Stored {
  PasswordHashParams params;
  std::vector<std::uint8_t> salt, hash;
};

// Takes "<name>=<decimal>" off the front of `text`. from_chars alone would take a sign.
bool take_param(std::string_view& text, std::string_view name, int& value) {
  if (!text.starts_with(name)) return false;
  text.remove_prefix(name.size());
  if (text.size() < 2 || text[0] != '=' || text[1] < '0' || text[1] > '9') return false;
  text.remove_prefix(1);
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc()) return false;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return true;
}

bool take_comma(std::string_view& text) {
  if (!text.starts_with(',')) return false;
  text.remove_prefix(1);
  return true;
}

// The order is fixed, as PHC asks of each function's parameters, so one hash has one spelling.
bool parse_params(std::string_view text, PasswordHashParams& params) {
  return take_param(text, "ln", params.log2_n) && take_comma(text) &&
         take_param(text, "r", params.r) && take_comma(text) && take_param(text, "p", params.p) &&
         text.empty();
}

std::optional<Stored> parse(std::string_view stored) {
  if (!stored.starts_with(prefix)) return std::nullopt;
  stored.remove_prefix(prefix.size());
  const auto first = stored.find('$');
  if (first == std::string_view::npos) return std::nullopt;
  const auto second = stored.find('$', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  const auto params_text = stored.substr(0, first);
  const auto salt_text = stored.substr(first + 1, second - first - 1);
  const auto hash_text = stored.substr(second + 1);  // a further '$' fails as bad base64

  Stored out;
  if (!parse_params(params_text, out.params) || !within_bounds(out.params)) return std::nullopt;
  if (!from_phc_base64(salt_text, out.salt) || out.salt.size() < min_salt ||
      out.salt.size() > max_salt)
    return std::nullopt;
  if (!from_phc_base64(hash_text, out.hash) || out.hash.size() < min_hash ||
      out.hash.size() > max_hash)
    return std::nullopt;
  return out;
}

void derive(std::string_view password, std::span<const std::uint8_t> salt,
            const PasswordHashParams& params, std::span<std::uint8_t> out) {
  // OpenSSL's default maxmem (32 MiB) is below what the default parameters need; it counts
  // 128·r·(N + 2 + p) bytes, so ask for exactly that (the bounds have already capped it).
  const auto block = std::uint64_t{128} * static_cast<std::uint64_t>(params.r);
  const auto maxmem = lane_bytes(params) + block * (2 + static_cast<std::uint64_t>(params.p));
  if (EVP_PBE_scrypt(password.data(), password.size(), salt.data(), salt.size(),
                     std::uint64_t{1} << params.log2_n, static_cast<std::uint64_t>(params.r),
                     static_cast<std::uint64_t>(params.p), maxmem, out.data(), out.size()) != 1)
    throw Error(ErrorKind::internal, "scrypt failed to derive a password hash");
}

}  // namespace

std::string hash_password(std::string_view password, PasswordHashParams params) {
  if (!within_bounds(params))
    throw invalid("scrypt parameters out of range: ln " + std::to_string(min_log2_n) + ".." +
                  std::to_string(max_log2_n) + ", r 1.." + std::to_string(max_r) + ", p 1.." +
                  std::to_string(max_p) + ", ln below 16·r, at most 256 MiB per lane");
  std::vector<std::uint8_t> salt(salt_bytes), hash(hash_bytes);
  random_bytes(salt);
  derive(password, salt, params, hash);
  return std::string(prefix) + "ln=" + std::to_string(params.log2_n) +
         ",r=" + std::to_string(params.r) + ",p=" + std::to_string(params.p) + "$" +
         phc_base64(salt) + "$" + phc_base64(hash);
}

bool verify_password(std::string_view password, std::string_view stored) {
  const auto parsed = parse(stored);
  if (!parsed) return false;
  std::vector<std::uint8_t> computed(parsed->hash.size());
  derive(password, parsed->salt, parsed->params, computed);
  return CRYPTO_memcmp(computed.data(), parsed->hash.data(), computed.size()) == 0;
}

bool needs_rehash(std::string_view stored, const PasswordHashParams& current) {
  const auto parsed = parse(stored);
  if (!parsed) return true;
  const auto& have = parsed->params;
  return have.log2_n < current.log2_n || have.r < current.r || have.p < current.p ||
         parsed->salt.size() < salt_bytes || parsed->hash.size() < hash_bytes;
}

}  // namespace ironhold::crypto
