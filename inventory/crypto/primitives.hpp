#pragma once
// Small cryptographic primitives over OpenSSL: CSPRNG bytes, SHA-256, hex and base64url.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ironhold::crypto {

// Bytes from OpenSSL's CSPRNG; throws ironhold::Error if it cannot supply them.
void random_bytes(std::span<std::uint8_t> out);
std::string to_hex(std::span<const std::uint8_t> bytes);
// False on an odd length or a non-hex digit.
bool from_hex(std::string_view hex, std::vector<std::uint8_t>& out);
std::string base64url(std::span<const std::uint8_t> bytes);  // no padding
// False on a character outside the URL-safe alphabet or a dangling final character.
bool from_base64url(std::string_view text, std::vector<std::uint8_t>& out);
std::array<std::uint8_t, 32> sha256(std::string_view data);
// The SHA-256 of `data` in lower-case hex: how secrets handed out once are stored.
std::string sha256_hex(std::string_view data);

}  // namespace ironhold::crypto
