#include "tests/support/server/tls_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace ironhold::test {
namespace {

int connect_to(unsigned short port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port));
  }
  return fd;
}

}  // namespace

CertificateFiles::CertificateFiles()
    : pem(make_self_signed_certificate("127.0.0.1", {"127.0.0.1"})) {
  static std::atomic<int> made{0};
  dir = std::filesystem::temp_directory_path() /
        ("ironhold-tls-" + std::to_string(::getpid()) + "-" + std::to_string(++made));
  std::filesystem::create_directories(dir);
  cert = (dir / "cert.pem").string();
  key = (dir / "key.pem").string();
  std::ofstream(cert) << pem.certificate_pem;
  std::ofstream(key) << pem.private_key_pem;
}

CertificateFiles::~CertificateFiles() {
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

TlsExchange tls_exchange(unsigned short port, const std::string& ca_pem, const std::string& request,
                         const TlsOffer& offer) {
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_client_method()),
                                                        &SSL_CTX_free);
  SSL_CTX_set_security_level(ctx.get(), 0);
  SSL_CTX_set_min_proto_version(ctx.get(), offer.min_version);
  if (offer.max_version) SSL_CTX_set_max_proto_version(ctx.get(), offer.max_version);
  if (!offer.tls12_ciphers.empty() &&
      SSL_CTX_set_cipher_list(ctx.get(), offer.tls12_ciphers.c_str()) != 1)
    throw std::runtime_error("this OpenSSL knows none of " + offer.tls12_ciphers);
  BIO* bio = BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size()));
  X509* ca = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx.get()), ca);
  X509_free(ca);
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  std::unique_ptr<SSL, decltype(&SSL_free)> ssl(SSL_new(ctx.get()), &SSL_free);
  X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl.get()), "127.0.0.1");
  const int fd = connect_to(port);
  SSL_set_fd(ssl.get(), fd);
  TlsExchange out;
  if (SSL_connect(ssl.get()) == 1) {
    out.handshake_ok = true;
    out.version = SSL_get_version(ssl.get());
    out.cipher = SSL_get_cipher_name(ssl.get());
    SSL_write(ssl.get(), request.data(), static_cast<int>(request.size()));
    char buffer[4096];
    for (int n; (n = SSL_read(ssl.get(), buffer, sizeof buffer)) > 0;)
      out.response.append(buffer, static_cast<std::size_t>(n));
  }
  ERR_clear_error();
  ::close(fd);
  return out;
}

std::string tls_get_request(const std::string& target, const std::string& token) {
  return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token +
         "\r\nConnection: close\r\n\r\n";
}

}  // namespace ironhold::test
