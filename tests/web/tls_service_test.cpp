// The service's own TLS, with a real TLS client (OpenSSL, verifying the certificate and the IP it
// was issued for): the API over HTTPS, TLS 1.1 refused, a plain-HTTP request on the TLS port
// answered with nothing, the console's session cookie marked Secure, and the plain-HTTP redirect.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <thread>

#include "inventory/error.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"
#include "tests/support/server/tls_test_server.hpp"
#include "web/redirect_server.hpp"
#include "web/tls_context.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace tls_service_test {

using namespace ironhold;
using namespace ironhold::test;

namespace {

struct CertificateFiles {
  std::filesystem::path dir;
  std::string cert, key;
  SelfSignedCertificate pem = make_self_signed_certificate("127.0.0.1", {"127.0.0.1"});

  CertificateFiles() {
    dir = std::filesystem::temp_directory_path() /
          ("ironhold-tls-" + std::to_string(::getpid()) + "-" + std::to_string(++made()));
    std::filesystem::create_directories(dir);
    cert = (dir / "cert.pem").string();
    key = (dir / "key.pem").string();
    std::ofstream(cert) << pem.certificate_pem;
    std::ofstream(key) << pem.private_key_pem;
  }
  ~CertificateFiles() { std::filesystem::remove_all(dir); }
  static int& made() {
    static int n = 0;
    return n;
  }
};

int connect_to(unsigned short port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot connect");
  }
  return fd;
}

struct TlsExchange {
  bool handshake_ok = false;
  std::string version;   // "TLSv1.3"
  std::string response;  // everything read after sending the request
};

// A TLS client that trusts only `ca_pem` and checks the certificate is for 127.0.0.1.
TlsExchange tls_exchange(unsigned short port, const std::string& ca_pem, const std::string& request,
                         int min_version = TLS1_2_VERSION, int max_version = 0) {
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_client_method()),
                                                        &SSL_CTX_free);
  // Security level 0 on our side: whatever is refused, the server refused it.
  SSL_CTX_set_security_level(ctx.get(), 0);
  SSL_CTX_set_min_proto_version(ctx.get(), min_version);
  if (max_version) SSL_CTX_set_max_proto_version(ctx.get(), max_version);
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
    SSL_write(ssl.get(), request.data(), static_cast<int>(request.size()));
    char buffer[4096];
    for (int n; (n = SSL_read(ssl.get(), buffer, sizeof buffer)) > 0;)
      out.response.append(buffer, n);
  }
  ERR_clear_error();
  ::close(fd);
  return out;
}

std::string get_request(const std::string& target, const std::string& token) {
  return "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token +
         "\r\nConnection: close\r\n\r\n";
}

web::ServerOptions tls_options(const CertificateFiles& files) {
  web::ServerOptions o;
  o.tls = web::make_server_tls_context(files.cert, files.key);
  return o;
}

}  // namespace

TEST_CASE("the API is served over TLS 1.2+ to a client that verifies the certificate",
          "[web][tls]") {
  CertificateFiles files;
  TestServer server(tls_options(files));
  const std::string token = server.token("viewer");
  const auto ok =
      tls_exchange(server.port(), files.pem.certificate_pem, get_request("/api/v1/whoami", token));
  REQUIRE(ok.handshake_ok);
  CHECK((ok.version == "TLSv1.3" || ok.version == "TLSv1.2"));
  CHECK(ok.response.rfind("HTTP/1.1 200", 0) == 0);
  CHECK(ok.response.find("\"viewer-1\"") != std::string::npos);

  const auto tls12 =
      tls_exchange(server.port(), files.pem.certificate_pem, get_request("/api/v1/whoami", token),
                   TLS1_2_VERSION, TLS1_2_VERSION);
  REQUIRE(tls12.handshake_ok);
  CHECK(tls12.version == "TLSv1.2");

  const auto old = tls_exchange(server.port(), files.pem.certificate_pem,
                                get_request("/api/v1/whoami", token), TLS1_VERSION, TLS1_1_VERSION);
  CHECK_FALSE(old.handshake_ok);

  // Plain HTTP on the TLS port gets no HTTP answer.
  CHECK_THROWS(http_get(server.port(), "/api/v1/whoami", token));
}

TEST_CASE("a console session made over TLS has a Secure cookie", "[web][tls]") {
  CertificateFiles files;
  TestServer server(tls_options(files));
  const std::string token = server.token("viewer");
  const std::string body = "{\"token\": \"" + token + "\"}";
  const std::string request =
      "POST /api/v1/session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
      "application/json\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  const auto signed_in = tls_exchange(server.port(), files.pem.certificate_pem, request);
  REQUIRE(signed_in.handshake_ok);
  INFO(signed_in.response);
  CHECK(signed_in.response.rfind("HTTP/1.1 201", 0) == 0);
  const auto cookie = signed_in.response.find("Set-Cookie: ironhold_session=");
  REQUIRE(cookie != std::string::npos);
  const auto line_end = signed_in.response.find("\r\n", cookie);
  const std::string line = signed_in.response.substr(cookie, line_end - cookie);
  CHECK(line.find("; Secure") != std::string::npos);
  CHECK(line.find("HttpOnly") != std::string::npos);
}

TEST_CASE("TLS files that do not fit are refused naming the file", "[web][tls]") {
  CertificateFiles files, other;
  CHECK_THROWS_WITH(web::make_server_tls_context(files.cert, other.key),
                    Catch::Contains("is not the key of the certificate"));
  CHECK_THROWS_WITH(web::make_server_tls_context(files.dir.string() + "/missing.pem", files.key),
                    Catch::Contains("missing.pem"));
  CHECK_THROWS_WITH(web::make_server_tls_context(files.cert, files.cert),
                    Catch::Contains("--tls-key"));
}

TEST_CASE("the plain-HTTP port only redirects to HTTPS", "[web][tls]") {
  CHECK(web::https_location("example.org:8080", 8443, "/api/v1/nodes?health=ok") ==
        "https://example.org:8443/api/v1/nodes?health=ok");
  CHECK(web::https_location("[::1]:80", 443, "/") == "https://[::1]/");
  CHECK(web::https_location("", 443, "/").empty());
  CHECK(web::https_location("evil.org/\r\nX: y", 443, "/").empty());

  boost::asio::io_context io;
  web::RedirectServer redirect(io, 9443);
  const auto endpoint = redirect.listen({boost::asio::ip::make_address("127.0.0.1"), 0});
  std::thread runner([&] { io.run_for(std::chrono::seconds(30)); });
  HttpRequest request;
  request.target = "/assets/app.js";
  request.headers["Host"] = "127.0.0.1:" + std::to_string(endpoint.port());
  const auto res = http_request(endpoint.port(), request);
  CHECK(res.status == 308);
  CHECK(res.header("location") == "https://127.0.0.1:9443/assets/app.js");
  redirect.close();
  io.stop();
  runner.join();
}

}  // namespace tls_service_test
