#include "web/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "inventory/error.hpp"

namespace ironhold::web {
namespace {

namespace ssl = boost::asio::ssl;

// TLS 1.2's forward-secret AEAD suites; TLS 1.3 brings its own (all AEAD) and is preferred.
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

std::string openssl_reason() {
  const unsigned long code = ERR_peek_last_error();
  ERR_clear_error();
  if (code == 0) return "unknown error";
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return text;
}

}  // namespace

std::shared_ptr<ssl::context> make_server_tls_context(const std::string& cert_file,
                                                      const std::string& key_file) {
  auto context = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* native = context->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  SSL_CTX_set_options(native, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                                  SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_TICKET);
  if (SSL_CTX_set_cipher_list(native, kTls12Ciphers) != 1)
    throw Error(ErrorKind::internal,
                "OpenSSL takes none of the TLS 1.2 ciphers: " + openssl_reason());
  ERR_clear_error();
  if (SSL_CTX_use_certificate_chain_file(native, cert_file.c_str()) != 1)
    throw Error(ErrorKind::invalid, "--tls-cert " + cert_file +
                                        ": not a readable PEM certificate chain (" +
                                        openssl_reason() + ")");
  if (SSL_CTX_use_PrivateKey_file(native, key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    if (ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH) {
      ERR_clear_error();
      throw Error(ErrorKind::invalid,
                  "--tls-key " + key_file + " is not the key of the certificate in " + cert_file);
    }
    throw Error(ErrorKind::invalid, "--tls-key " + key_file +
                                        ": not a readable, unencrypted PEM private key (" +
                                        openssl_reason() + ")");
  }
  if (SSL_CTX_check_private_key(native) != 1)
    throw Error(ErrorKind::invalid,
                "--tls-key " + key_file + " is not the key of the certificate in " + cert_file);
  return context;
}

}  // namespace ironhold::web
