#pragma once
// How a BMC's TLS certificate is trusted. Most BMCs serve a self-signed certificate, so the
// default is trust on first use: the leaf's SHA-256 fingerprint is recorded at the first contact
// and any other certificate is refused afterwards, inside the handshake, before a single request
// byte (and so a credential) leaves this process.
#include <cstddef>
#include <optional>
#include <string>

namespace ironhold::bmc::http {

struct TlsPolicy {
  enum class Mode {
    pin,       // trust on first use, then only the pinned leaf certificate
    ca,        // verify the chain against ca_bundle_pem and the host name
    insecure,  // no verification at all (an operator's explicit choice)
    none,      // plain http://; https:// URLs are refused so nothing is silently downgraded
  };
  Mode mode = Mode::pin;
  // Lower-case hex SHA-256 of the leaf certificate's DER; absent before the first contact.
  std::optional<std::string> pinned_sha256_hex;
  std::string ca_bundle_pem;
};

// What the handshake saw; written by the verify callback, read after the transfer.
struct TlsVerifyState {
  const TlsPolicy* policy = nullptr;
  std::optional<std::string> leaf_sha256_hex;
  bool pin_mismatch = false;
};

// Lower-case hex SHA-256 of a DER blob (a certificate's fingerprint as operators compare them).
std::string sha256_hex(const unsigned char* data, std::size_t size);

// Applies `policy` to a curl easy handle (passed as void* so that no curl type leaks out of
// bmc/http/). `state` must outlive the transfer. Returns false if the options were refused.
bool apply_tls_policy(void* curl_easy, const TlsPolicy& policy, TlsVerifyState& state);

// The leaf certificate fingerprint of the TLS connection a transfer is using right now, if any.
std::optional<std::string> connection_fingerprint(void* curl_easy);

}  // namespace ironhold::bmc::http
