#pragma once
// A self-signed certificate made in memory at start, as a fresh BMC has: EC P-256, valid for a
// year, subjectAltName naming the address it listens on.
#include <string>

namespace ironhold::sim {

struct SelfSignedCert {
  std::string cert_pem;
  std::string key_pem;
};

// `ip` goes into the SAN as an IP address (and the CN). Throws ironhold::Error (internal) when
// OpenSSL fails.
SelfSignedCert make_self_signed_cert(const std::string& ip);

// The SHA-256 of the certificate's DER encoding in lower-case hex (no colons): what a client that
// pins the leaf records. Throws ironhold::Error (invalid) when `cert_pem` holds no certificate.
std::string sha256_fingerprint(const std::string& cert_pem);

}  // namespace ironhold::sim
