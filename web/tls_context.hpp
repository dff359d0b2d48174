#pragma once
// The service's own TLS (--tls-cert, --tls-key): TLS 1.2 and 1.3 only, forward-secret AEAD
// ciphers (Mozilla's "intermediate" set), no compression, no renegotiation.
#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <string>

namespace ironhold::web {

// Loads the certificate chain (PEM, leaf first) and its private key (PEM, unencrypted). Throws
// ironhold::Error (invalid) naming the file and what is wrong with it.
std::shared_ptr<boost::asio::ssl::context> make_server_tls_context(const std::string& cert_file,
                                                                   const std::string& key_file);

}  // namespace ironhold::web
