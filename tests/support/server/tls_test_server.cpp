#include "tests/support/server/tls_test_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <memory>
#include <stdexcept>

namespace ironhold::test {
namespace {

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using X509Ptr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using SslPtr = std::unique_ptr<SSL, Deleter<SSL, SSL_free>>;

[[noreturn]] void fail(const std::string& what) {
  char reason[256] = "";
  ERR_error_string_n(ERR_get_error(), reason, sizeof reason);
  throw std::runtime_error("TlsTestServer: " + what + ": " + reason);
}

std::string bio_text(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(size));
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// "GET /redfish/v1/ HTTP/1.1\r\nHost: x\r\n..." into its parts; malformed lines are skipped.
ReceivedRequest parse_head(const std::string& head) {
  ReceivedRequest r;
  std::size_t line_end = head.find("\r\n");
  const std::string first = head.substr(0, line_end);
  const auto sp1 = first.find(' ');
  const auto sp2 = first.find(' ', sp1 == std::string::npos ? sp1 : sp1 + 1);
  if (sp1 != std::string::npos) {
    r.method = first.substr(0, sp1);
    r.target = first.substr(sp1 + 1, sp2 == std::string::npos ? std::string::npos : sp2 - sp1 - 1);
  }
  while (line_end != std::string::npos) {
    const std::size_t start = line_end + 2;
    line_end = head.find("\r\n", start);
    const std::string line =
        head.substr(start, line_end == std::string::npos ? line_end : line_end - start);
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::size_t value = colon + 1;
    while (value < line.size() && line[value] == ' ') ++value;
    r.headers[lower(line.substr(0, colon))] = line.substr(value);
  }
  return r;
}

std::string reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 401:
      return "Unauthorized";
    case 404:
      return "Not Found";
    case 500:
      return "Internal Server Error";
    default:
      return "Status";
  }
}

}  // namespace

SelfSignedCertificate make_self_signed_certificate(const std::string& common_name,
                                                   const std::vector<std::string>& ip_addresses) {
  PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) fail("EVP_PKEY_Q_keygen");
  X509Ptr cert(X509_new());
  if (!cert) fail("X509_new");
  unsigned char serial[8];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7F;  // a positive serial number
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_set_version(cert.get(), X509_VERSION_3);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 24 * 3600);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                             0);
  X509_set_issuer_name(cert.get(), name);
  if (!ip_addresses.empty()) {
    std::string san;
    for (const auto& ip : ip_addresses) san += (san.empty() ? "IP:" : ",IP:") + ip;
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, cert.get(), cert.get(), nullptr, nullptr, 0);
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, NID_subject_alt_name, san.c_str());
    if (!ext) fail("subjectAltName " + san);
    X509_add_ext(cert.get(), ext, -1);
    X509_EXTENSION_free(ext);
  }
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) fail("X509_sign");

  SelfSignedCertificate out;
  BioPtr cert_bio(BIO_new(BIO_s_mem()));
  BioPtr key_bio(BIO_new(BIO_s_mem()));
  if (!PEM_write_bio_X509(cert_bio.get(), cert.get())) fail("PEM_write_bio_X509");
  if (!PEM_write_bio_PrivateKey(key_bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr))
    fail("PEM_write_bio_PrivateKey");
  out.certificate_pem = bio_text(cert_bio.get());
  out.private_key_pem = bio_text(key_bio.get());
  return out;
}

TlsTestServer::TlsTestServer(std::string address, CannedResponse response, unsigned short port)
    : TlsTestServer(
          std::move(address), [response](const ReceivedRequest&) { return response; }, port) {}

TlsTestServer::TlsTestServer(std::string address, Handler handler, unsigned short port)
    : address_(std::move(address)), handler_(std::move(handler)) {
  // OpenSSL writes with write(2): a client that hangs up early must not kill the test binary.
  std::signal(SIGPIPE, SIG_IGN);
  certificate_ = make_self_signed_certificate("ironhold-test-bmc", {address_});

  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (!ctx) fail("SSL_CTX_new");
  ssl_ctx_ = ctx;
  BioPtr cert_bio(BIO_new_mem_buf(certificate_.certificate_pem.data(),
                                  static_cast<int>(certificate_.certificate_pem.size())));
  BioPtr key_bio(BIO_new_mem_buf(certificate_.private_key_pem.data(),
                                 static_cast<int>(certificate_.private_key_pem.size())));
  X509Ptr cert(PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr));
  PkeyPtr key(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
  if (!cert || !key || SSL_CTX_use_certificate(ctx, cert.get()) != 1 ||
      SSL_CTX_use_PrivateKey(ctx, key.get()) != 1) {
    SSL_CTX_free(ctx);
    fail("loading the certificate");
  }

  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (inet_pton(AF_INET, address_.c_str(), &addr.sin_addr) != 1) {
    SSL_CTX_free(ctx);
    throw std::invalid_argument("TlsTestServer: not an IPv4 address: " + address_);
  }
  listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener_, 16) != 0) {
    const std::string what = "cannot listen on " + address_ + ":" + std::to_string(port);
    if (listener_ >= 0) ::close(listener_);
    SSL_CTX_free(ctx);
    throw std::runtime_error("TlsTestServer: " + what);
  }
  socklen_t length = sizeof addr;
  ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &length);
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { run(); });
}

TlsTestServer::~TlsTestServer() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  ::close(listener_);
  SSL_CTX_free(static_cast<SSL_CTX*>(ssl_ctx_));
}

std::vector<ReceivedRequest> TlsTestServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

void TlsTestServer::run() {
  while (!stop_) {
    pollfd p{listener_, POLLIN, 0};
    // A short poll so that the destructor's stop is seen promptly.
    if (::poll(&p, 1, 50) <= 0) continue;
    const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    serve(client);
    ::close(client);
  }
}

void TlsTestServer::serve(int client) {
  // A client that stalls must not wedge the server thread (and with it the test's destructor).
  timeval limit{5, 0};
  ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  ::setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
  ++connections_;
  SslPtr ssl(SSL_new(static_cast<SSL_CTX*>(ssl_ctx_)));
  if (!ssl || SSL_set_fd(ssl.get(), client) != 1) return;
  if (SSL_accept(ssl.get()) != 1) {
    ERR_clear_error();
    return;
  }
  std::string pending;
  char buffer[4096];
  for (;;) {
    while (pending.find("\r\n\r\n") == std::string::npos && pending.size() < 16 * 1024) {
      const int got = SSL_read(ssl.get(), buffer, sizeof buffer);
      if (got <= 0) {
        ERR_clear_error();
        return;
      }
      pending.append(buffer, static_cast<std::size_t>(got));
    }
    const std::size_t head_end = pending.find("\r\n\r\n");
    const ReceivedRequest request = parse_head(pending.substr(0, head_end));
    pending.erase(0, head_end == std::string::npos ? pending.size() : head_end + 4);
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(request);
    }
    const bool keep = keep_alive_;
    const CannedResponse response = handler_(request);
    const std::string out = "HTTP/1.1 " + std::to_string(response.status) + " " +
                            reason_phrase(response.status) +
                            "\r\nContent-Type: " + response.content_type +
                            "\r\nContent-Length: " + std::to_string(response.body.size()) +
                            (keep ? "" : "\r\nConnection: close") + "\r\n\r\n" + response.body;
    if (SSL_write(ssl.get(), out.data(), static_cast<int>(out.size())) <= 0) break;
    if (!keep) {
      SSL_shutdown(ssl.get());
      break;
    }
  }
  ERR_clear_error();
}

}  // namespace ironhold::test
