// The transport against real peers on loopback: TlsTestServer for TLS (a real handshake with a
// self-signed certificate, like a BMC's) and HttpPeer where keep-alive or timing matters.
#include "bmc/http/curl_multi_client.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/detached.hpp>
#include <catch2/catch.hpp>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

#include "bmc/http/asio_http_client.hpp"
#include "tests/bmc/http/http_peer.hpp"
#include "tests/bmc/http/io_threads.hpp"
#include "tests/support/server/bmc_peers.hpp"
#include "tests/support/server/tls_test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace curl_multi_client_test {

namespace {

using namespace ironhold::bmc::http;
using ironhold::test::CannedResponse;
using ironhold::test::HttpPeer;
using ironhold::test::IoThreads;
using ironhold::test::PeerResponse;
using ironhold::test::TlsTestServer;
using Mode = TlsPolicy::Mode;

std::string https_url(const TlsTestServer& server, const std::string& path) {
  return "https://" + server.address() + ":" + std::to_string(server.port()) + path;
}

HttpRequest get(std::string url, TlsPolicy tls = {}) {
  HttpRequest request;
  request.url = std::move(url);
  request.tls = std::move(tls);
  return request;
}

TlsPolicy plain() {
  return TlsPolicy{Mode::none, std::nullopt, {}};
}

template <class Client>
HttpResult fetch(IoThreads& loop, Client& client, HttpRequest request) {
  return loop.run(client.request(std::move(request)));
}

}  // namespace

TEMPLATE_TEST_CASE("the HTTP client pins the certificate on first contact and accepts the same pin",
                   "", CurlMultiClient, AsioHttpClient) {
  TlsTestServer server("127.0.0.1", CannedResponse{200, "application/json", R"({"Id":"root"})"});
  IoThreads loop;
  TestType client(loop.io.get_executor());

  const HttpResult first = fetch(loop, client, get(https_url(server, "/redfish/v1/")));
  REQUIRE(first.ok());
  CHECK(first.response().status == 200);
  CHECK(first.response().body == R"({"Id":"root"})");
  REQUIRE(first.response().peer_fingerprint);
  CHECK(first.response().peer_fingerprint->size() == 64);

  TlsPolicy pinned{Mode::pin, first.response().peer_fingerprint, {}};
  const HttpResult again = fetch(loop, client, get(https_url(server, "/redfish/v1/"), pinned));
  REQUIRE(again.ok());
  CHECK(again.response().peer_fingerprint == first.response().peer_fingerprint);
  CHECK(server.requests().size() == 2);
}

TEMPLATE_TEST_CASE("the HTTP client refuses a different pin before sending any request byte", "",
                   CurlMultiClient, AsioHttpClient) {
  TlsTestServer server("127.0.0.1", CannedResponse{200, "application/json", "{}"});
  IoThreads loop;
  TestType client(loop.io.get_executor());

  TlsPolicy wrong{Mode::pin, std::string(64, 'a'), {}};
  HttpRequest request = get(https_url(server, "/redfish/v1/Systems"), wrong);
  request.headers.emplace_back("Authorization", "Basic c2VjcmV0OnNlY3JldA==");
  const HttpResult result = fetch(loop, client, request);
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().kind == HttpErrorKind::tls_pin_mismatch);
  CHECK_FALSE(result.error().request_sent);
  // The handshake failed, so the credential never reached the (swapped) server.
  CHECK(server.requests().empty());
}

TEMPLATE_TEST_CASE("the HTTP client verifies against the node's CA bundle in ca mode", "",
                   CurlMultiClient, AsioHttpClient) {
  TlsTestServer server("127.0.0.1", CannedResponse{200, "application/json", "{}"});
  IoThreads loop;
  TestType client(loop.io.get_executor());

  TlsPolicy right{Mode::ca, std::nullopt, server.certificate().certificate_pem};
  const HttpResult ok = fetch(loop, client, get(https_url(server, "/redfish/v1/"), right));
  REQUIRE(ok.ok());
  CHECK(ok.response().status == 200);
  CHECK(ok.response().peer_fingerprint);

  const auto other = ironhold::test::make_self_signed_certificate("someone-else", {"127.0.0.1"});
  TlsPolicy wrong{Mode::ca, std::nullopt, other.certificate_pem};
  const HttpResult refused = fetch(loop, client, get(https_url(server, "/redfish/v1/"), wrong));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().kind == HttpErrorKind::tls_failed);
  CHECK(server.requests().size() == 1);
}

TEMPLATE_TEST_CASE(
    "the HTTP client accepts any certificate in insecure mode and refuses https in none", "",
    CurlMultiClient, AsioHttpClient) {
  TlsTestServer server("127.0.0.1", CannedResponse{200, "application/json", "{}"});
  IoThreads loop;
  TestType client(loop.io.get_executor());

  const HttpResult insecure =
      fetch(loop, client, get(https_url(server, "/"), TlsPolicy{Mode::insecure, {}, {}}));
  REQUIRE(insecure.ok());
  CHECK(insecure.response().status == 200);

  // tls: none means http://; an https URL with it is a configuration error, not a downgrade.
  const HttpResult none = fetch(loop, client, get(https_url(server, "/"), plain()));
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().kind == HttpErrorKind::protocol);
  CHECK(server.requests().size() == 1);
}

TEMPLATE_TEST_CASE("the HTTP client caps the body: an oversized answer is too_large", "",
                   CurlMultiClient, AsioHttpClient) {
  TlsTestServer server("127.0.0.1",
                       CannedResponse{200, "application/json", std::string(4096, 'x')});
  IoThreads loop;
  TestType client(loop.io.get_executor());

  HttpRequest request = get(https_url(server, "/big"));
  request.max_body = 1024;
  const HttpResult result = fetch(loop, client, request);
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().kind == HttpErrorKind::too_large);

  request.max_body = 4096;  // exactly at the cap is fine
  const HttpResult fits = fetch(loop, client, request);
  REQUIRE(fits.ok());
  CHECK(fits.response().body.size() == 4096);
}

TEMPLATE_TEST_CASE("the HTTP client times out on a server that never answers", "", CurlMultiClient,
                   AsioHttpClient) {
  HttpPeer peer([](const std::string&) { return PeerResponse{.hang = true}; });
  IoThreads loop;
  TestType client(loop.io.get_executor());

  HttpRequest request = get(peer.url("/redfish/v1/"), plain());
  request.total_timeout = std::chrono::milliseconds(300);
  const HttpResult result = fetch(loop, client, request);
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().kind == HttpErrorKind::timeout);
  CHECK(result.error().request_sent);
}

TEMPLATE_TEST_CASE("the HTTP client reports connection refused as connect_failed", "",
                   CurlMultiClient, AsioHttpClient) {
  IoThreads loop;
  TestType client(loop.io.get_executor());
  const std::string url =
      "http://127.0.0.1:" + std::to_string(ironhold::test::free_tcp_port("127.0.0.1")) + "/";
  const HttpResult result = fetch(loop, client, get(url, plain()));
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().kind == HttpErrorKind::connect_failed);
  CHECK_FALSE(result.error().request_sent);
}

TEMPLATE_TEST_CASE("the HTTP client does not follow redirects", "", CurlMultiClient,
                   AsioHttpClient) {
  HttpPeer peer([](const std::string&) {
    return PeerResponse{.status = 302, .headers = {{"Location", "/again"}}};
  });
  IoThreads loop;
  TestType client(loop.io.get_executor());
  const HttpResult result = fetch(loop, client, get(peer.url("/loop"), plain()));
  REQUIRE(result.ok());
  CHECK(result.response().status == 302);
  CHECK(result.response().header("location") == "/again");
  CHECK(peer.requests() == 1);
}

TEMPLATE_TEST_CASE("the HTTP client keeps one connection alive per host across requests", "",
                   CurlMultiClient, AsioHttpClient) {
  HttpPeer peer([](const std::string& line) { return PeerResponse{.body = line}; });
  IoThreads loop;
  TestType client(loop.io.get_executor());
  for (int i = 0; i < 5; ++i) {
    const HttpResult result = fetch(loop, client, get(peer.url("/n" + std::to_string(i)), plain()));
    REQUIRE(result.ok());
    CHECK(result.response().body == "GET /n" + std::to_string(i) + " HTTP/1.1");
  }
  CHECK(peer.requests() == 5);
  CHECK(peer.connections() == 1);
}

TEMPLATE_TEST_CASE("the HTTP client sends the method, headers and body it is given", "",
                   CurlMultiClient, AsioHttpClient) {
  std::mutex mutex;  // the peer's thread writes what the test reads
  std::string seen;
  HttpPeer peer([&](const std::string& line) {
    std::lock_guard lock(mutex);
    seen = line;
    return PeerResponse{.status = 201, .headers = {{"X-Echo", "yes"}}, .body = "created"};
  });
  IoThreads loop;
  TestType client(loop.io.get_executor());
  HttpRequest request = get(peer.url("/redfish/v1/SessionService/Sessions"), plain());
  request.method = "POST";
  request.body = R"({"UserName":"u"})";
  request.headers.emplace_back("Content-Type", "application/json");
  const HttpResult result = fetch(loop, client, request);
  REQUIRE(result.ok());
  CHECK(result.response().status == 201);
  CHECK(result.response().header("x-echo") == "yes");
  std::string seen_line;
  {
    std::lock_guard lock(mutex);
    seen_line = seen;
  }
  CHECK(seen_line == "POST /redfish/v1/SessionService/Sessions HTTP/1.1");

  request.headers.emplace_back("X-Bad", "a\r\nInjected: 1");
  const HttpResult refused = fetch(loop, client, request);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().kind == HttpErrorKind::protocol);
  CHECK(peer.requests() == 1);
}

TEMPLATE_TEST_CASE("the HTTP client opens a new connection when the server closes the last one", "",
                   CurlMultiClient, AsioHttpClient) {
  // Every answer closes its connection: libcurl closes the socket and the next request opens
  // another, often with the same descriptor number, which must not be mistaken for the old one.
  HttpPeer peer([](const std::string& line) { return PeerResponse{.body = line, .close = true}; });
  IoThreads loop;
  TestType client(loop.io.get_executor());
  for (int i = 0; i < 20; ++i) {
    const HttpResult result = fetch(loop, client, get(peer.url("/c" + std::to_string(i)), plain()));
    REQUIRE(result.ok());
    CHECK(result.response().body == "GET /c" + std::to_string(i) + " HTTP/1.1");
  }
  CHECK(peer.requests() == 20);
  CHECK(peer.connections() == 20);
}

TEMPLATE_TEST_CASE("the HTTP client sends nothing of an earlier request with a later one", "",
                   CurlMultiClient, AsioHttpClient) {
  // Easy handles are reused between requests: a GET after a POST must carry neither its body
  // nor its headers.
  HttpPeer peer([](const std::string&) { return PeerResponse{.body = "ok"}; });
  IoThreads loop;
  TestType client(loop.io.get_executor());
  HttpRequest post = get(peer.url("/first"), plain());
  post.method = "POST";
  post.body = R"({"secret":"s3cr3t"})";
  post.headers.emplace_back("X-Only-First", "1");
  REQUIRE(fetch(loop, client, post).ok());
  REQUIRE(fetch(loop, client, get(peer.url("/second"), plain())).ok());
  const std::vector<std::string> received = peer.received();
  REQUIRE(received.size() == 2);
  CHECK(received[0].find("POST /first") == 0);
  CHECK(received[0].find("s3cr3t") != std::string::npos);
  CHECK(received[1].find("GET /second") == 0);
  CHECK(received[1].find("X-Only-First") == std::string::npos);
  CHECK(received[1].find("s3cr3t") == std::string::npos);
  CHECK(received[1].find("Content-Length") == std::string::npos);
}

TEST_CASE("CurlMultiClient spreads hosts over its shards and keeps each host on one") {
  CHECK(url_origin("https://127.0.0.1:8443/redfish/v1/Systems") == "https://127.0.0.1:8443");
  CHECK(url_origin("http://[::1]:80?x=1") == "http://[::1]:80");
  CHECK(url_origin("https://bmc.example#frag") == "https://bmc.example");
  CHECK(url_origin("no-scheme/path") == "no-scheme/path");

  // Twelve peers through four shards, four requests each at once: every host still gets one
  // connection (the per-host limit holds inside a shard) and every answer comes back.
  std::vector<std::unique_ptr<HttpPeer>> peers;
  for (int i = 0; i < 12; ++i)
    peers.push_back(std::make_unique<HttpPeer>([](const std::string& line) {
      return PeerResponse{.body = line, .delay = std::chrono::milliseconds(20)};
    }));
  IoThreads loop;
  CurlMultiClient::Options options;
  options.shards = 4;
  CurlMultiClient client(loop.io.get_executor(), options);
  std::vector<std::future<HttpResult>> results;
  for (auto& peer : peers)
    for (int i = 0; i < 4; ++i)
      results.push_back(boost::asio::co_spawn(
          loop.io, client.request(get(peer->url("/p" + std::to_string(i)), plain())),
          boost::asio::use_future));
  for (auto& result : results) CHECK(result.get().ok());
  for (auto& peer : peers) {
    CHECK(peer->requests() == 4);
    CHECK(peer->connections() == 1);
    CHECK(peer->max_in_flight() == 1);
  }
}

TEST_CASE("AsioHttpClient answers requests to many hosts at once, each with its own answer") {
  // Twelve peers, four requests each at once: the client has no per-host limit of its own
  // (BmcHttpClient's is in front of it), so a peer may see several connections, but every
  // answer must reach the request that asked, and the connections are kept for later.
  std::vector<std::unique_ptr<HttpPeer>> peers;
  for (int i = 0; i < 12; ++i)
    peers.push_back(std::make_unique<HttpPeer>([](const std::string& line) {
      return PeerResponse{.body = line, .delay = std::chrono::milliseconds(20)};
    }));
  IoThreads loop;
  AsioHttpClient client(loop.io.get_executor());
  const auto round = [&](const std::string& tag) {
    std::vector<std::pair<std::string, std::future<HttpResult>>> results;
    for (auto& peer : peers)
      for (int i = 0; i < 4; ++i) {
        const std::string path = "/" + tag + std::to_string(i);
        results.emplace_back(
            "GET " + path + " HTTP/1.1",
            boost::asio::co_spawn(loop.io, client.request(get(peer->url(path), plain())),
                                  boost::asio::use_future));
      }
    for (auto& [expected, result] : results) {
      const HttpResult r = result.get();
      REQUIRE(r.ok());
      CHECK(r.response().body == expected);
    }
  };
  round("a");
  std::vector<int> opened;
  for (auto& peer : peers) opened.push_back(peer->connections());
  round("b");
  for (std::size_t i = 0; i < peers.size(); ++i) {
    CHECK(peers[i]->requests() == 8);
    CHECK(peers[i]->connections() == opened[i]);  // the second round reused the first's
  }
}

TEMPLATE_TEST_CASE("the HTTP client sends a form, streaming a file part from the disk", "",
                   CurlMultiClient, AsioHttpClient) {
  // An image-like file: bytes a naive multipart writer would break on (CR LF, "--", NUL).
  std::string image = "IRONHOLD-FIRMWARE component=BMC version=9\n";
  for (int i = 0; i < 70'000; ++i) image += static_cast<char>(i % 251);
  image += "\r\n--\r\n";
  char path[] = "/tmp/ironhold-form-test-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  REQUIRE(::write(fd, image.data(), image.size()) == static_cast<ssize_t>(image.size()));
  ::close(fd);

  HttpPeer peer([](const std::string&) { return PeerResponse{.status = 202, .body = "{}"}; });
  IoThreads loop;
  TestType client(loop.io.get_executor());
  HttpRequest request = get(peer.url("/redfish/v1/UpdateService/upload"), plain());
  request.method = "POST";
  request.body = "ignored when there is a form";
  request.form = {FormPart{"UpdateParameters", "application/json", "{\"Targets\":[]}", "", ""},
                  FormPart{"UpdateFile", "application/octet-stream", "", path, "bmc-9.bin"}};
  const HttpResult result = fetch(loop, client, request);
  REQUIRE(result.ok());
  CHECK(result.response().status == 202);
  const auto received = peer.received();
  REQUIRE(received.size() == 1);
  const std::string& raw = received[0];
  // The boundary the head announces delimits exactly the two parts, in order.
  const auto type_at = raw.find("Content-Type: multipart/form-data; boundary=");
  REQUIRE(type_at != std::string::npos);
  const auto boundary_at = raw.find('=', type_at) + 1;
  const std::string boundary = raw.substr(boundary_at, raw.find("\r\n", boundary_at) - boundary_at);
  const std::string body = raw.substr(raw.find("\r\n\r\n") + 4);
  const std::string expected =
      "--" + boundary + "\r\n" +
      "Content-Disposition: form-data; name=\"UpdateParameters\"\r\n"
      "Content-Type: application/json\r\n\r\n"
      "{\"Targets\":[]}\r\n"
      "--" +
      boundary + "\r\n" +
      "Content-Disposition: form-data; name=\"UpdateFile\"; filename=\"bmc-9.bin\"\r\n"
      "Content-Type: application/octet-stream\r\n\r\n" +
      image + "\r\n--" + boundary + "--\r\n";
  CHECK(body.size() == expected.size());
  CHECK(body == expected);
  CHECK(raw.find("ignored when there is a form") == std::string::npos);

  // A file that is not there is refused before anything is sent, naming it.
  ::unlink(path);
  const HttpResult missing = fetch(loop, client, request);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().kind == HttpErrorKind::protocol);
  CHECK(missing.error().message.find(path) != std::string::npos);
  CHECK_FALSE(missing.error().request_sent);
  CHECK(peer.requests() == 1);
}

namespace {

// What a request's coroutine holds while it waits: it must go with the coroutine.
struct Held {
  explicit Held(int& alive) : alive(alive) { ++alive; }
  ~Held() { --alive; }
  int& alive;
  std::string bytes = std::string(4096, 'x');
};

template <class Client>
boost::asio::awaitable<void> request_holding(Client* client, HttpRequest request, int* alive,
                                             int* finished) {
  Held held(*alive);
  co_await client->request(std::move(request));
  ++*finished;
}

}  // namespace

// The service stopping with a poll in flight to a BMC that never answers: nothing runs the
// context again, so the transfer never completes. Its coroutine must be freed with the context
// (LeakSanitizer also fails this binary if it is not), never resumed.
TEMPLATE_TEST_CASE("the HTTP client frees requests still in flight when their context shuts down",
                   "", CurlMultiClient, AsioHttpClient) {
  HttpPeer peer([](const std::string&) { return PeerResponse{.hang = true}; });
  int alive = 0;
  int finished = 0;
  {
    boost::asio::io_context io;
    auto client = std::make_unique<TestType>(io.get_executor());
    for (int i = 0; i < 3; ++i) {
      HttpRequest request = get(peer.url("/redfish/v1/Systems/" + std::to_string(i)), plain());
      request.total_timeout = std::chrono::minutes(10);
      boost::asio::co_spawn(io,
                            request_holding(client.get(), std::move(request), &alive, &finished),
                            boost::asio::detached);
    }
    // Until the peer has the first request: the transfers are then in flight, not queued.
    for (int round = 0; round < 10'000 && peer.received().empty(); ++round)
      io.run_for(std::chrono::milliseconds(10));
    REQUIRE_FALSE(peer.received().empty());
    CHECK(alive == 3);
    client.reset();  // its shutdown is posted to a context that will not run again
  }
  CHECK(alive == 0);
  CHECK(finished == 0);
}

// The same, one step earlier: the request is handed to the client's strand but the context never
// runs again, so the transfer is never even started (the service stopping under load, with
// hundreds of polls just issued). Its coroutine must still be freed with the context.
TEMPLATE_TEST_CASE("the HTTP client frees requests not yet started when their context shuts down",
                   "", CurlMultiClient, AsioHttpClient) {
  HttpPeer peer([](const std::string&) { return PeerResponse{}; });
  int alive = 0;
  int finished = 0;
  {
    boost::asio::io_context io;
    TestType client(io.get_executor());
    HttpRequest request = get(peer.url("/redfish/v1"), plain());
    boost::asio::co_spawn(io, request_holding(&client, std::move(request), &alive, &finished),
                          boost::asio::detached);
    // One handler: the coroutine runs until it has handed its transfer to the client, and waits.
    REQUIRE(io.poll_one() == 1);
    CHECK(alive == 1);
  }
  CHECK(alive == 0);
  CHECK(finished == 0);
  CHECK(peer.received().empty());
}

// Trust on first use: the first request to a new BMC accepts any certificate and learns it; the
// pinned requests after it must not each need a connection (and an idle one) of their own.
TEST_CASE("AsioHttpClient carries pinned requests on the connection that learned the certificate") {
  TlsTestServer server("127.0.0.1", CannedResponse{200, "application/json", "{}"});
  server.keep_connections_alive();
  IoThreads loop;
  AsioHttpClient client(loop.io.get_executor());

  const HttpResult first =
      fetch(loop, client,
            get(https_url(server, "/redfish/v1/"), TlsPolicy{Mode::insecure, std::nullopt, {}}));
  REQUIRE(first.ok());
  REQUIRE(first.response().peer_fingerprint);
  const TlsPolicy pinned{Mode::pin, first.response().peer_fingerprint, {}};
  for (int i = 0; i < 3; ++i) {
    const HttpResult again = fetch(loop, client, get(https_url(server, "/redfish/v1/"), pinned));
    REQUIRE(again.ok());
  }
  CHECK(server.requests().size() == 4);
  CHECK(server.connections() == 1);
  CHECK(client.idle_connections() == 1);

  // A pin the kept connection's certificate does not match: that connection is not used, and
  // a new one's handshake refuses the server before any request byte.
  const HttpResult wrong =
      fetch(loop, client,
            get(https_url(server, "/redfish/v1/"), TlsPolicy{Mode::pin, std::string(64, 'a'), {}}));
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().kind == HttpErrorKind::tls_pin_mismatch);
  CHECK_FALSE(wrong.error().request_sent);
  CHECK(server.requests().size() == 4);
  CHECK(server.connections() == 2);
}

TEST_CASE("AsioHttpClient opens a new connection after one idled past max_idle_time") {
  HttpPeer peer([](const std::string&) { return PeerResponse{.body = "{}"}; });
  IoThreads loop;
  AsioHttpClient::Options options;
  options.max_idle_time = std::chrono::milliseconds(100);
  AsioHttpClient client(loop.io.get_executor(), options);

  REQUIRE(fetch(loop, client, get(peer.url("/a"), plain())).ok());
  REQUIRE(fetch(loop, client, get(peer.url("/b"), plain())).ok());
  CHECK(peer.connections() == 1);  // within max_idle_time: reused
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  REQUIRE(fetch(loop, client, get(peer.url("/c"), plain())).ok());
  CHECK(peer.connections() == 2);
  CHECK(peer.requests() == 3);
}

// A BMC polled every few minutes closes its side of the connection long before the next poll;
// the pool must not hold such a connection (and its TLS state) until then.
TEST_CASE("AsioHttpClient lets go of idle connections their servers closed, on other requests") {
  HttpPeer closing([](const std::string&) { return PeerResponse{.body = "{}", .close = true}; });
  HttpPeer staying([](const std::string&) { return PeerResponse{.body = "{}"}; });
  IoThreads loop;
  AsioHttpClient::Options options;
  options.prune_interval = std::chrono::milliseconds(0);
  AsioHttpClient client(loop.io.get_executor(), options);

  // The answer came without "Connection: close", so the client keeps the connection; the peer
  // closes it right after.
  REQUIRE(fetch(loop, client, get(closing.url("/a"), plain())).ok());
  CHECK(client.idle_connections() == 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  REQUIRE(fetch(loop, client, get(staying.url("/b"), plain())).ok());
  CHECK(client.idle_connections() == 1);  // the one to `staying`, kept
  REQUIRE(fetch(loop, client, get(staying.url("/c"), plain())).ok());
  CHECK(staying.connections() == 1);
  CHECK(closing.connections() == 1);
}

}  // namespace curl_multi_client_test
