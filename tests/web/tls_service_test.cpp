// The service's own TLS, with a real TLS client (OpenSSL, verifying the certificate and the IP it
// was issued for): the API over HTTPS, TLS 1.1 and weak TLS 1.2 suites refused, a plain-HTTP
// request on the TLS port answered with nothing, the console's session cookie marked Secure, and
// the plain-HTTP redirect.
#include <openssl/ssl.h>

#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <thread>

#include "inventory/error.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"
#include "tests/support/server/tls_client.hpp"
#include "web/redirect_server.hpp"
#include "web/tls_context.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace tls_service_test {

using namespace ironhold;
using namespace ironhold::test;

namespace {

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
  const auto ok = tls_exchange(server.port(), files.pem.certificate_pem,
                               tls_get_request("/api/v1/whoami", token));
  REQUIRE(ok.handshake_ok);
  CHECK((ok.version == "TLSv1.3" || ok.version == "TLSv1.2"));
  CHECK(ok.response.rfind("HTTP/1.1 200", 0) == 0);
  CHECK(ok.response.find("\"viewer-1\"") != std::string::npos);

  const auto tls12 = tls_exchange(server.port(), files.pem.certificate_pem,
                                  tls_get_request("/api/v1/whoami", token),
                                  {.min_version = TLS1_2_VERSION, .max_version = TLS1_2_VERSION});
  REQUIRE(tls12.handshake_ok);
  CHECK(tls12.version == "TLSv1.2");

  const auto old = tls_exchange(server.port(), files.pem.certificate_pem,
                                tls_get_request("/api/v1/whoami", token),
                                {.min_version = TLS1_VERSION, .max_version = TLS1_1_VERSION});
  CHECK_FALSE(old.handshake_ok);

  // Plain HTTP on the TLS port gets no HTTP answer.
  CHECK_THROWS(http_get(server.port(), "/api/v1/whoami", token));
}

// Over TLS 1.2 the server agrees only to forward-secret AEAD suites, whatever the client would
// settle for. The test certificate is ECDSA, so the suites a client could be given are ECDHE-ECDSA
// ones (the static-ECDH suites without forward secrecy, and 3DES, are gone from OpenSSL 3): their
// CBC variants (Lucky 13 and its kin) and NULL encryption are refused, each offered alone; a client
// that offers everything gets an ECDHE suite with GCM or ChaCha20-Poly1305.
TEST_CASE("over TLS 1.2 the service agrees only to forward-secret AEAD suites", "[web][tls]") {
  CertificateFiles files;
  TestServer server(tls_options(files));
  const std::string request = tls_get_request("/api/v1/whoami", server.token("viewer"));
  const auto offer_tls12 = [&](const std::string& ciphers) {
    return tls_exchange(server.port(), files.pem.certificate_pem, request,
                        {.min_version = TLS1_2_VERSION,
                         .max_version = TLS1_2_VERSION,
                         .tls12_ciphers = ciphers + ":@SECLEVEL=0"});
  };
  for (const std::string weak :
       {"ECDHE-ECDSA-AES128-SHA", "ECDHE-ECDSA-AES256-SHA", "ECDHE-ECDSA-AES128-SHA256",
        "ECDHE-ECDSA-AES256-SHA384", "ECDHE-ECDSA-NULL-SHA"}) {
    INFO(weak);
    CHECK_FALSE(offer_tls12(weak).handshake_ok);
  }
  const auto modern = offer_tls12("ALL");
  REQUIRE(modern.handshake_ok);
  CHECK(modern.version == "TLSv1.2");
  INFO(modern.cipher);
  CHECK(modern.cipher.rfind("ECDHE-", 0) == 0);
  CHECK((modern.cipher.find("-GCM-") != std::string::npos ||
         modern.cipher.find("CHACHA20-POLY1305") != std::string::npos));
  CHECK(modern.response.rfind("HTTP/1.1 200", 0) == 0);
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
