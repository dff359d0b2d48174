#include "inventory/crypto/primitives.hpp"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "inventory/error.hpp"

namespace ironhold::crypto {

void random_bytes(std::span<std::uint8_t> out) {
  if (RAND_bytes(out.data(), static_cast<int>(out.size())) != 1)
    throw Error(ErrorKind::internal, "the system random number generator failed");
}

std::string to_hex(std::span<const std::uint8_t> bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (auto b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 0xf];
  }
  return out;
}

namespace {
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

bool from_hex(std::string_view hex, std::vector<std::uint8_t>& out) {
  if (hex.size() % 2) return false;
  out.clear();
  out.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    int hi = hex_value(hex[i]), lo = hex_value(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<std::uint8_t>(hi << 4 | lo));
  }
  return true;
}

namespace {
constexpr char b64url_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
}

std::string base64url(std::span<const std::uint8_t> bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    std::uint32_t v = bytes[i] << 16 | bytes[i + 1] << 8 | bytes[i + 2];
    for (int s = 18; s >= 0; s -= 6) out += b64url_alphabet[(v >> s) & 63];
  }
  if (i + 1 == bytes.size()) {
    std::uint32_t v = bytes[i] << 16;
    out += b64url_alphabet[(v >> 18) & 63];
    out += b64url_alphabet[(v >> 12) & 63];
  } else if (i + 2 == bytes.size()) {
    std::uint32_t v = bytes[i] << 16 | bytes[i + 1] << 8;
    out += b64url_alphabet[(v >> 18) & 63];
    out += b64url_alphabet[(v >> 12) & 63];
    out += b64url_alphabet[(v >> 6) & 63];
  }
  return out;
}

bool from_base64url(std::string_view text, std::vector<std::uint8_t>& out) {
  out.clear();
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    const char* p = std::char_traits<char>::find(b64url_alphabet, 64, c);
    if (!p) return false;
    acc = (acc << 6) | static_cast<std::uint32_t>(p - b64url_alphabet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<std::uint8_t>((acc >> bits) & 0xff));
    }
  }
  return bits < 6;  // a single dangling character is not valid base64
}

std::array<std::uint8_t, 32> sha256(std::string_view data) {
  std::array<std::uint8_t, 32> digest{};
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1)
    throw Error(ErrorKind::internal, "SHA-256 failed");
  return digest;
}

std::string sha256_hex(std::string_view data) {
  return to_hex(sha256(data));
}

}  // namespace ironhold::crypto
