// `ironhold serve --tls-cert --tls-key --http-redirect` as an operator runs it: the API over HTTPS
// to a client that verifies the certificate, plain HTTP on the TLS port answered with nothing, and
// the plain-HTTP port answering only with a redirect to the HTTPS URL. And the flags' mistakes
// refused before anything starts.
#include <openssl/ssl.h>
#include <signal.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "inventory/util/process.hpp"
#include "tests/app/ironhold_process.hpp"
#include "tests/support/server/child_process.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/tls_client.hpp"
#include "tests/support/test_cluster.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace serve_tls_process_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

TEST_CASE("serve with --tls-cert, --tls-key and --http-redirect serves HTTPS and redirects to it",
          "[app][serve][tls]") {
  CertificateFiles files;
  const TempDir scratch("ih-tls");  // removed at the end with the cluster it relocated
  const fs::path data = scratch.path() / "data";
  ChildProcess serve(
      IRONHOLD_BINARY,
      {"serve", "--data-dir", data.string(), "--listen", "127.0.0.1:0", "--tls-cert", files.cert,
       "--tls-key", files.key, "--http-redirect", "127.0.0.1:0", "--shutdown-grace", "2000"},
      scratch.path() / "serve.log");
  const auto line = serve.wait_for_line("\"msg\":\"listening\"", 180s);
  INFO(serve.stderr_text());
  REQUIRE(line);
  const auto listening = nlohmann::json::parse(*line);
  const std::string url = listening.at("url");
  const std::string redirect = listening.at("http_redirect");
  CHECK(url.rfind("https://127.0.0.1:", 0) == 0);
  CHECK(redirect.rfind("http://127.0.0.1:", 0) == 0);
  const unsigned short port = url_port(url), redirect_port = url_port(redirect);
  REQUIRE(port != 0);
  REQUIRE(redirect_port != 0);
  CHECK(redirect_port != port);

  const std::string token = admin_token(data, "tls-admin");
  const auto nodes =
      tls_exchange(port, files.pem.certificate_pem, tls_get_request("/api/v1/nodes", token));
  REQUIRE(nodes.handshake_ok);
  CHECK((nodes.version == "TLSv1.3" || nodes.version == "TLSv1.2"));
  INFO(nodes.response);
  CHECK(nodes.response.rfind("HTTP/1.1 200", 0) == 0);
  const auto old =
      tls_exchange(port, files.pem.certificate_pem, tls_get_request("/api/v1/nodes", token),
                   {.min_version = TLS1_VERSION, .max_version = TLS1_1_VERSION});
  CHECK_FALSE(old.handshake_ok);
  CHECK_THROWS(http_get(port, "/api/v1/nodes", token));  // no plain-HTTP answer on the TLS port

  HttpRequest plain;
  plain.target = "/api/v1/nodes?health=ok";
  plain.headers["Host"] = "127.0.0.1:" + std::to_string(redirect_port);
  plain.headers["Authorization"] = "Bearer " + token;
  const auto redirected = http_request(redirect_port, plain);
  CHECK(redirected.status == 308);
  CHECK(redirected.header("location") ==
        "https://127.0.0.1:" + std::to_string(port) + "/api/v1/nodes?health=ok");
  CHECK(redirected.body.find("\"items\"") == std::string::npos);  // no data over plain HTTP

  serve.signal(SIGTERM);
  CHECK(serve.wait(60s) == 0);
}

TEST_CASE("serve refuses TLS flags that do not go together, naming them", "[app][serve][tls]") {
  CertificateFiles files;
  const TempDir scratch("ih-tls-flags");
  const std::string data = (scratch.path() / "data").string();
  const auto refused = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"serve", "--data-dir", data, "--listen", "127.0.0.1:0"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto run = util::run_process(IRONHOLD_BINARY, args);
    INFO(run.err);
    CHECK_FALSE(run.ok());
    return run.err;
  };
  CHECK_THAT(refused({"--tls-cert", files.cert}), Catch::Contains("--tls-key"));
  CHECK_THAT(refused({"--http-redirect", "127.0.0.1:0"}), Catch::Contains("--tls-cert"));
  CHECK_THAT(refused({"--tls-cert", files.cert, "--tls-key", files.cert}),
             Catch::Contains("--tls-key " + files.cert));
  CHECK_FALSE(fs::exists(scratch.path() / "data" / "master.key"));  // refused before anything
}

}  // namespace serve_tls_process_test
