#pragma once
// A real TLS client for tests of the service's own HTTPS: OpenSSL, trusting only the test's
// certificate and checking it was issued for 127.0.0.1, with the protocol versions and TLS 1.2
// ciphers it offers under the test's control; and certificate files for `--tls-cert`/`--tls-key`.
#include <filesystem>
#include <string>

#include "tests/support/server/tls_test_server.hpp"

namespace ironhold::test {

// A self-signed certificate for 127.0.0.1 and its key, written to files of a directory of their
// own that is removed with this object.
struct CertificateFiles {
  CertificateFiles();
  ~CertificateFiles();
  CertificateFiles(const CertificateFiles&) = delete;
  CertificateFiles& operator=(const CertificateFiles&) = delete;

  std::filesystem::path dir;
  std::string cert, key;
  SelfSignedCertificate pem;
};

struct TlsOffer {
  int min_version = 0x0303;   // TLS1_2_VERSION
  int max_version = 0;        // the library's highest
  std::string tls12_ciphers;  // OpenSSL cipher list; empty: the library's default
};

struct TlsExchange {
  bool handshake_ok = false;
  std::string version;   // "TLSv1.3"
  std::string cipher;    // OpenSSL's name of the suite agreed, "TLS_AES_128_GCM_SHA256"
  std::string response;  // everything read after sending the request
};

// Connects to 127.0.0.1:`port`, and after a handshake that verified the certificate against
// `ca_pem` sends `request` and reads until the server closes. At security level 0, so that what is
// refused is refused by the server.
TlsExchange tls_exchange(unsigned short port, const std::string& ca_pem, const std::string& request,
                         const TlsOffer& offer = {});

// "GET <target>" with a bearer token, closing the connection after the answer.
std::string tls_get_request(const std::string& target, const std::string& token);

}  // namespace ironhold::test
