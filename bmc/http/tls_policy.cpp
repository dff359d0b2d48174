#include "bmc/http/tls_policy.hpp"

#include <curl/curl.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "bmc/http/tls_client_contexts.hpp"

namespace ironhold::bmc::http {
namespace {

// Where the verify callback finds its TlsVerifyState: libcurl (7.88, OpenSSL backend) makes one
// SSL_CTX per connection, so the ctx's ex_data slot names the transfer that opens it.
int verify_state_index() {
  static const int index = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

// Where a connection keeps its leaf fingerprint once computed: every response is checked against
// the pin, and hashing the certificate again for each one showed in the steady-sweep profile.
// On the SSL object, which lives exactly as long as the connection.
void free_cached_fingerprint(void* /*parent*/, void* pointer, CRYPTO_EX_DATA* /*data*/,
                             int /*index*/, long /*argl*/, void* /*argp*/) {
  delete static_cast<std::string*>(pointer);
}

int fingerprint_cache_index() {
  static const int index =
      SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, free_cached_fingerprint);
  return index;
}

// Runs once per certificate of the chain, root first. Only the leaf (depth 0) matters for a pin;
// chain errors are ignored because BMC certificates are self-signed. Returning 0 aborts the
// handshake, so the HTTP request is never written to a peer with the wrong certificate.
int curl_pin_verify_callback(int /*preverify_ok*/, X509_STORE_CTX* store) {
  if (X509_STORE_CTX_get_error_depth(store) != 0) return 1;
  auto* ssl =
      static_cast<SSL*>(X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()));
  auto* state = ssl == nullptr ? nullptr
                               : static_cast<TlsVerifyState*>(SSL_CTX_get_ex_data(
                                     SSL_get_SSL_CTX(ssl), verify_state_index()));
  if (state == nullptr || state->policy == nullptr) return 0;  // fail closed
  state->leaf_sha256_hex = certificate_fingerprint(X509_STORE_CTX_get_current_cert(store));
  if (!state->leaf_sha256_hex) return 0;
  const auto& pin = state->policy->pinned_sha256_hex;
  if (pin && *pin != *state->leaf_sha256_hex) {
    state->pin_mismatch = true;
    return 0;
  }
  return 1;
}

// Settings for every BMC connection's context (libcurl 7.88 makes one per connection).
void tune_context(SSL_CTX* ctx) {
  // Thousands of kept-alive BMC connections sit idle most of the time: let OpenSSL free their
  // 16 KiB read and write buffers between polls (bench/redfish_sweep measures the difference).
  SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
  // BMCs have no reason to renegotiate, and a renegotiation would change the peer certificate
  // under a cached fingerprint and run the pin check against a transfer that has ended.
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
}

CURLcode install_tuning(CURL* /*curl*/, void* ssl_ctx, void* /*user*/) {
  tune_context(static_cast<SSL_CTX*>(ssl_ctx));
  return CURLE_OK;
}

CURLcode install_pin_check(CURL* /*curl*/, void* ssl_ctx, void* user) {
  auto* ctx = static_cast<SSL_CTX*>(ssl_ctx);
  if (SSL_CTX_set_ex_data(ctx, verify_state_index(), user) != 1) return CURLE_SSL_CERTPROBLEM;
  // SSL_VERIFY_PEER (libcurl set NONE since chain verification is off) so the callback runs.
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, curl_pin_verify_callback);
  tune_context(ctx);
  return CURLE_OK;
}

}  // namespace

std::string sha256_hex(const unsigned char* data, std::size_t size) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data, size, digest, &length, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0x0F];
  }
  return out;
}

bool apply_tls_policy(void* curl_easy, const TlsPolicy& policy, TlsVerifyState& state) {
  CURL* curl = static_cast<CURL*>(curl_easy);
  state.policy = &policy;
  bool ok = true;
  const auto set = [&ok](CURLcode code) { ok = ok && code == CURLE_OK; };
  switch (policy.mode) {
    case TlsPolicy::Mode::none:
      set(curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http"));
      return ok;
    case TlsPolicy::Mode::ca: {
      set(curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "https"));
      set(curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L));
      set(curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L));
      // The node's bundle alone: the system store would let any public CA vouch for a BMC. As a
      // blob (not an SSL_CTX callback) because libcurl compares it when reusing a connection,
      // so a connection verified against one bundle never serves a request for another.
      set(curl_easy_setopt(curl, CURLOPT_CAINFO, nullptr));
      set(curl_easy_setopt(curl, CURLOPT_CAPATH, nullptr));
      curl_blob blob{const_cast<char*>(policy.ca_bundle_pem.data()), policy.ca_bundle_pem.size(),
                     CURL_BLOB_COPY};
      set(curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &blob));
      set(curl_easy_setopt(curl, CURLOPT_SSL_CTX_FUNCTION, install_tuning));
      return ok;
    }
    case TlsPolicy::Mode::insecure:
      set(curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "https"));
      set(curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L));
      set(curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L));
      set(curl_easy_setopt(curl, CURLOPT_CAINFO, nullptr));  // nothing to verify against
      set(curl_easy_setopt(curl, CURLOPT_CAPATH, nullptr));
      set(curl_easy_setopt(curl, CURLOPT_SSL_CTX_FUNCTION, install_tuning));
      return ok;
    case TlsPolicy::Mode::pin:
      set(curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "https"));
      set(curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L));
      set(curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L));
      // The pin is the whole check: loading the system's CA bundle into every connection's
      // context would cost milliseconds of CPU per handshake and nothing else.
      set(curl_easy_setopt(curl, CURLOPT_CAINFO, nullptr));
      set(curl_easy_setopt(curl, CURLOPT_CAPATH, nullptr));
      set(curl_easy_setopt(curl, CURLOPT_SSL_CTX_FUNCTION, install_pin_check));
      set(curl_easy_setopt(curl, CURLOPT_SSL_CTX_DATA, &state));
      return ok;
  }
  return false;
}

std::optional<std::string> connection_fingerprint(void* curl_easy) {
  curl_tlssessioninfo* info = nullptr;
  if (curl_easy_getinfo(static_cast<CURL*>(curl_easy), CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK ||
      info == nullptr || info->backend != CURLSSLBACKEND_OPENSSL || info->internals == nullptr)
    return std::nullopt;
  SSL* ssl = static_cast<SSL*>(info->internals);
  if (const auto* cached =
          static_cast<const std::string*>(SSL_get_ex_data(ssl, fingerprint_cache_index())))
    return *cached;
  std::optional<std::string> computed = certificate_fingerprint(SSL_get0_peer_certificate(ssl));
  if (computed) {
    auto* cached = new std::string(*computed);
    if (SSL_set_ex_data(ssl, fingerprint_cache_index(), cached) != 1) delete cached;
  }
  return computed;
}

}  // namespace ironhold::bmc::http
