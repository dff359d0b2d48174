#pragma once
// The OpenSSL client contexts AsioHttpClient's connections share: one per way of trusting a BMC
// (TlsPolicy::Mode), and one per CA bundle in ca mode. A context costs some 13 KB of heap in
// OpenSSL 3.0 (its cipher, group and signature algorithm tables); libcurl 7.88 makes one per
// connection, which at 8,000 kept-alive BMC connections was a quarter of the service's RSS.
#include <openssl/ssl.h>

#include <optional>
#include <string>

#include "bmc/http/tls_policy.hpp"

namespace ironhold::bmc::http {

// What one connection's handshake saw, kept on its SSL object (not on the shared context) for the
// verify callback: the leaf certificate's fingerprint, and whether it broke the pin.
struct HandshakeCheck {
  std::optional<std::string> pinned_sha256_hex;  // the pin the handshake must match, if any
  std::optional<std::string> leaf_sha256_hex;
  bool pin_mismatch = false;
};

// The shared context for `policy`, or nullptr with `error` set (an unreadable CA bundle). The
// caller gets a reference of its own, to free (SSL_CTX_free) once its SSL_new holds one: a CA
// bundle's context may be dropped from the cache meanwhile.
SSL_CTX* client_context(const TlsPolicy& policy, std::string& error);

// Attaches `check` to a new connection before its handshake; it must outlive the handshake.
bool attach_handshake_check(SSL* ssl, HandshakeCheck& check);

// The leaf certificate's fingerprint of an established connection.
std::optional<std::string> peer_fingerprint(SSL* ssl);

// A certificate's fingerprint as operators compare them: lower-case hex SHA-256 of its DER.
std::optional<std::string> certificate_fingerprint(X509* cert);

}  // namespace ironhold::bmc::http
