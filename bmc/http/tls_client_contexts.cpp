#include "bmc/http/tls_client_contexts.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <map>
#include <memory>
#include <mutex>

namespace ironhold::bmc::http {
namespace {

int check_index() {
  static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

// Runs once per certificate of the chain, root first. Only the leaf (depth 0) matters for a pin;
// chain errors are ignored because BMC certificates are self-signed. Returning 0 aborts the
// handshake, so no request byte is ever written to a peer with the wrong certificate.
int handshake_pin_verify_callback(int /*preverify_ok*/, X509_STORE_CTX* store) {
  if (X509_STORE_CTX_get_error_depth(store) != 0) return 1;
  auto* ssl =
      static_cast<SSL*>(X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()));
  auto* check =
      ssl == nullptr ? nullptr : static_cast<HandshakeCheck*>(SSL_get_ex_data(ssl, check_index()));
  if (check == nullptr) return 0;  // fail closed
  check->leaf_sha256_hex = certificate_fingerprint(X509_STORE_CTX_get_current_cert(store));
  if (!check->leaf_sha256_hex) return 0;
  if (check->pinned_sha256_hex && *check->pinned_sha256_hex != *check->leaf_sha256_hex) {
    check->pin_mismatch = true;
    return 0;
  }
  return 1;
}

SSL_CTX* new_context() {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (ctx == nullptr) return nullptr;
  // Thousands of kept-alive BMC connections sit idle most of the time: OpenSSL frees their
  // 16 KiB read and write buffers between requests.
  SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
  // BMCs have no reason to renegotiate, and a renegotiation would change the peer certificate
  // under a fingerprint already checked.
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
  // Many BMCs close a connection without TLS's close_notify: that is the end of the stream (the
  // HTTP framing says whether an answer was whole), not an attack to report.
  SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
  // Each connection keeps only its own session: nothing here resumes one (a resumed handshake
  // would skip the pin check).
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  return ctx;
}

SSL_CTX* make_ca_context(const std::string& bundle_pem, std::string& error) {
  SSL_CTX* ctx = new_context();
  if (ctx == nullptr) {
    error = "OpenSSL could not make a TLS context";
    return nullptr;
  }
  // The node's bundle alone: the system store would let any public CA vouch for a BMC.
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(bundle_pem.data(), static_cast<int>(bundle_pem.size())), &BIO_free);
  int added = 0;
  while (bio) {
    X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr);
    if (cert == nullptr) break;
    if (X509_STORE_add_cert(store, cert) == 1) ++added;
    X509_free(cert);
  }
  ERR_clear_error();  // the end of the bundle reads as an error
  if (added == 0) {
    SSL_CTX_free(ctx);
    error = "the CA bundle holds no readable PEM certificate";
    return nullptr;
  }
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  return ctx;
}

struct Contexts {
  std::mutex mutex;
  SSL_CTX* insecure = nullptr;
  SSL_CTX* pinned = nullptr;
  std::map<std::string, SSL_CTX*> by_bundle;  // by the bundle's SHA-256
};

Contexts& contexts() {
  static Contexts* all = new Contexts;  // never destroyed: connections may outlive main()
  return *all;
}

// Distinct CA bundles kept; past this, the oldest goes (connections using it keep their own
// reference to it, so it is freed with the last of them).
constexpr std::size_t kMaxBundles = 64;

// With all.mutex held.
SSL_CTX* shared_context(Contexts& all, const TlsPolicy& policy, std::string& error) {
  switch (policy.mode) {
    case TlsPolicy::Mode::insecure:
      if (all.insecure == nullptr) {
        all.insecure = new_context();
        if (all.insecure != nullptr) SSL_CTX_set_verify(all.insecure, SSL_VERIFY_NONE, nullptr);
      }
      if (all.insecure == nullptr) error = "OpenSSL could not make a TLS context";
      return all.insecure;
    case TlsPolicy::Mode::pin:
      if (all.pinned == nullptr) {
        all.pinned = new_context();
        if (all.pinned != nullptr)
          SSL_CTX_set_verify(all.pinned, SSL_VERIFY_PEER, handshake_pin_verify_callback);
      }
      if (all.pinned == nullptr) error = "OpenSSL could not make a TLS context";
      return all.pinned;
    case TlsPolicy::Mode::ca: {
      const std::string key =
          sha256_hex(reinterpret_cast<const unsigned char*>(policy.ca_bundle_pem.data()),
                     policy.ca_bundle_pem.size());
      if (auto it = all.by_bundle.find(key); it != all.by_bundle.end()) return it->second;
      SSL_CTX* ctx = make_ca_context(policy.ca_bundle_pem, error);
      if (ctx == nullptr) return nullptr;
      if (all.by_bundle.size() >= kMaxBundles) {
        SSL_CTX_free(all.by_bundle.begin()->second);
        all.by_bundle.erase(all.by_bundle.begin());
      }
      all.by_bundle.emplace(key, ctx);
      return ctx;
    }
    case TlsPolicy::Mode::none:
      break;
  }
  error = "plain http has no TLS context";
  return nullptr;
}

}  // namespace

SSL_CTX* client_context(const TlsPolicy& policy, std::string& error) {
  Contexts& all = contexts();
  std::lock_guard lock(all.mutex);
  SSL_CTX* ctx = shared_context(all, policy, error);
  if (ctx != nullptr) SSL_CTX_up_ref(ctx);
  return ctx;
}

bool attach_handshake_check(SSL* ssl, HandshakeCheck& check) {
  return SSL_set_ex_data(ssl, check_index(), &check) == 1;
}

std::optional<std::string> certificate_fingerprint(X509* cert) {
  if (cert == nullptr) return std::nullopt;
  unsigned char* der = nullptr;
  const int size = i2d_X509(cert, &der);
  if (size <= 0) return std::nullopt;
  std::string hex = sha256_hex(der, static_cast<std::size_t>(size));
  OPENSSL_free(der);
  return hex;
}

std::optional<std::string> peer_fingerprint(SSL* ssl) {
  return certificate_fingerprint(SSL_get0_peer_certificate(ssl));
}

}  // namespace ironhold::bmc::http
