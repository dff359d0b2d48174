#pragma once
// Passwords are stored as scrypt hashes in a PHC-style string that carries its own parameters,
// so they can be raised later without invalidating stored hashes:
//   $scrypt$ln=15,r=8,p=1$<salt, base64 without padding>$<hash, base64 without padding>
// The base64 is the standard alphabet (+ and /), as in the PHC string format, so the strings are
// readable by other PHC-aware tools.
#include <string>
#include <string_view>

namespace ironhold::crypto {

// N = 2^log2_n. The defaults (32 MiB, ~0.1 s) are the interactive-login figures of RFC 7914.
struct PasswordHashParams {
  int log2_n = 15;
  int r = 8;
  int p = 1;
};

// A fresh 16-byte random salt and a 32-byte hash. Throws ironhold::Error (invalid) for parameters
// outside what verify_password accepts, so no hash is made that could never be verified.
std::string hash_password(std::string_view password, PasswordHashParams params = {});

// Constant-time comparison; false for a wrong password AND for a malformed/unsupported stored
// string (never throws for those). Throws ironhold::Error (internal) only if scrypt itself fails on
// parameters that passed the bounds, which is a bug or an exhausted machine, not a bad password.
bool verify_password(std::string_view password, std::string_view stored);

// True when `stored` was made with weaker parameters than `current` (or cannot be parsed, or has a
// salt or hash shorter than hash_password makes): the caller re-hashes at the next successful
// sign-in.
bool needs_rehash(std::string_view stored, const PasswordHashParams& current);

}  // namespace ironhold::crypto
