#pragma once
// The cryptography RMCP+ needs, through OpenSSL 3: HMAC (EVP_MAC) with SHA-1 or SHA-256, and
// AES-128 in CBC mode without padding (IPMI pads the plaintext itself).
#include "bmc/ipmi/bytes.hpp"

namespace ironhold::bmc::ipmi {

enum class Digest { sha1, sha256 };

// HMAC of the concatenation of `parts` under `key`.
Bytes hmac(Digest digest, ByteView key, std::initializer_list<ByteView> parts);

// AES-CBC-128; `data` must be a whole number of 16-byte blocks, `key` and `iv` 16 bytes.
// Throws ironhold::Error (internal) only if OpenSSL itself fails.
Bytes aes_cbc_128_encrypt(ByteView key, ByteView iv, ByteView data);
Bytes aes_cbc_128_decrypt(ByteView key, ByteView iv, ByteView data);

}  // namespace ironhold::bmc::ipmi
