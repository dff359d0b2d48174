// The per-BMC limit and the retry loop: the schedule as pure functions with an injected random
// source, and the loop against real loopback peers with an injected sleep that records delays
// instead of waiting them out.
#include "bmc/http/bmc_http_client.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch.hpp>
#include <future>
#include <mutex>
#include <set>

#include "tests/bmc/http/http_peer.hpp"
#include "tests/bmc/http/io_threads.hpp"
#include "tests/support/server/bmc_peers.hpp"
#include "tests/support/server/tls_test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace bmc_http_client_test {

namespace {

using namespace ironhold::bmc::http;
using ironhold::test::HttpPeer;
using ironhold::test::IoThreads;
using ironhold::test::PeerResponse;
using std::chrono::milliseconds;
namespace asio = boost::asio;

const auto kEpoch =
    std::chrono::system_clock::from_time_t(784111777);  // Sun, 06 Nov 1994 08:49:37 GMT

HttpRequest plain_get(std::string url) {
  HttpRequest request;
  request.url = std::move(url);
  request.tls.mode = TlsPolicy::Mode::none;
  return request;
}

// Records every delay the retry loop asks for and returns at once: no test waits on a backoff.
struct RecordedSleeps {
  std::mutex mutex;
  std::vector<milliseconds> delays;

  RetryEnvironment environment(double uniform = 0.5) {
    RetryEnvironment env;
    env.now = [] { return kEpoch; };
    env.uniform = [uniform] { return uniform; };
    env.sleep = [this](milliseconds delay) -> asio::awaitable<void> {
      {
        std::lock_guard lock(mutex);
        delays.push_back(delay);
      }
      co_return;
    };
    return env;
  }
};

BmcHttpClient::Options options(unsigned max_attempts = 3) {
  BmcHttpClient::Options o;
  o.retry.max_attempts = max_attempts;
  o.retry.base_delay = milliseconds(100);
  o.retry.max_delay = milliseconds(1000);
  o.retry.jitter = 0.5;
  return o;
}

}  // namespace

TEST_CASE("backoff_delay doubles, caps at max_delay and jitters with the random source") {
  RetryPolicy policy;
  policy.base_delay = milliseconds(100);
  policy.max_delay = milliseconds(1000);
  policy.jitter = 0.0;
  CHECK(backoff_delay(policy, 1, 0.9) == milliseconds(100));
  CHECK(backoff_delay(policy, 2, 0.9) == milliseconds(200));
  CHECK(backoff_delay(policy, 3, 0.9) == milliseconds(400));
  CHECK(backoff_delay(policy, 5, 0.9) == milliseconds(1000));
  CHECK(backoff_delay(policy, 64, 0.9) == milliseconds(1000));  // no overflow past the cap

  policy.jitter = 0.5;  // half fixed, half random
  CHECK(backoff_delay(policy, 1, 0.0) == milliseconds(50));
  CHECK(backoff_delay(policy, 1, 0.5) == milliseconds(75));
  CHECK(backoff_delay(policy, 3, 0.0) == milliseconds(200));
  CHECK(backoff_delay(policy, 3, 0.999) == milliseconds(399));

  policy.jitter = 1.0;  // full jitter
  CHECK(backoff_delay(policy, 2, 0.0) == milliseconds(0));
  CHECK(backoff_delay(policy, 2, 0.25) == milliseconds(50));
}

TEST_CASE("parse_retry_after reads delta-seconds and HTTP dates") {
  CHECK(parse_retry_after("7", kEpoch) == milliseconds(7000));
  CHECK(parse_retry_after(" 0 ", kEpoch) == milliseconds(0));
  CHECK(parse_retry_after("Sun, 06 Nov 1994 08:50:07 GMT", kEpoch) == milliseconds(30000));
  CHECK(parse_retry_after("Sun, 06 Nov 1994 08:00:00 GMT", kEpoch) == milliseconds(0));
  CHECK_FALSE(parse_retry_after("soon", kEpoch));
  CHECK_FALSE(parse_retry_after("-5", kEpoch));
  CHECK_FALSE(parse_retry_after("5s", kEpoch));
  CHECK_FALSE(parse_retry_after("Sun, 06 Foo 1994 08:50:07 GMT", kEpoch));
  CHECK(parse_retry_after("99999999999999999999999", kEpoch) == milliseconds::max());
}

TEST_CASE("retry_delay retries only what is safe and caps Retry-After") {
  RetryPolicy policy;
  policy.base_delay = milliseconds(100);
  policy.jitter = 0.0;
  policy.max_retry_after = milliseconds(5000);
  HttpResponse busy;
  busy.status = 503;
  busy.headers = {{"Retry-After", "3600"}};
  CHECK(retry_delay(policy, busy, 1, true, 0.0, kEpoch) == milliseconds(5000));
  CHECK_FALSE(retry_delay(policy, busy, 1, false, 0.0, kEpoch));  // a POST reached the server
  CHECK_FALSE(retry_delay(policy, busy, 3, true, 0.0, kEpoch));   // attempts used up

  HttpResponse not_implemented;
  not_implemented.status = 501;
  CHECK_FALSE(retry_delay(policy, not_implemented, 1, true, 0.0, kEpoch));
  HttpResponse fine;
  fine.status = 404;
  CHECK_FALSE(retry_delay(policy, fine, 1, true, 0.0, kEpoch));

  const HttpError unsent{HttpErrorKind::connect_failed, "refused", false};
  CHECK(retry_delay(policy, unsent, 2, false, 0.0, kEpoch) == milliseconds(200));
  const HttpError sent{HttpErrorKind::timeout, "no answer", true};
  CHECK_FALSE(retry_delay(policy, sent, 1, false, 0.0, kEpoch));
  CHECK(retry_delay(policy, sent, 1, true, 0.0, kEpoch) == milliseconds(100));
  const HttpError pin{HttpErrorKind::tls_pin_mismatch, "swapped", false};
  CHECK_FALSE(retry_delay(policy, pin, 1, true, 0.0, kEpoch));
}

TEST_CASE("BmcHttpClient retries a 5xx and then succeeds") {
  std::atomic<int> calls{0};
  HttpPeer peer([&calls](const std::string&) {
    return ++calls == 1 ? PeerResponse{.status = 500} : PeerResponse{.body = "ok"};
  });
  RecordedSleeps sleeps;
  IoThreads loop;
  BmcHttpClient client(loop.io.get_executor(), options(), sleeps.environment(0.0));
  const HttpResult result = loop.run(client.request(plain_get(peer.url("/redfish/v1/"))));
  REQUIRE(result.ok());
  CHECK(result.response().status == 200);
  CHECK(result.response().body == "ok");
  CHECK(peer.requests() == 2);
  CHECK(sleeps.delays == std::vector<milliseconds>{milliseconds(50)});
}

TEST_CASE("BmcHttpClient honours Retry-After on 503") {
  std::atomic<int> calls{0};
  HttpPeer peer([&calls](const std::string&) {
    return ++calls == 1 ? PeerResponse{.status = 503, .headers = {{"Retry-After", "7"}}}
                        : PeerResponse{.body = "ok"};
  });
  RecordedSleeps sleeps;
  IoThreads loop;
  auto o = options();
  o.retry.max_retry_after = milliseconds(10'000);
  BmcHttpClient client(loop.io.get_executor(), o, sleeps.environment());
  const HttpResult result = loop.run(client.request(plain_get(peer.url("/redfish/v1/"))));
  REQUIRE(result.ok());
  CHECK(result.response().status == 200);
  CHECK(peer.requests() == 2);
  CHECK(sleeps.delays == std::vector<milliseconds>{milliseconds(7000)});
}

TEST_CASE("BmcHttpClient gives up after max_attempts and never replays a received POST") {
  HttpPeer peer([](const std::string&) { return PeerResponse{.status = 502}; });
  RecordedSleeps sleeps;
  IoThreads loop;
  BmcHttpClient client(loop.io.get_executor(), options(3), sleeps.environment(0.0));

  const HttpResult get = loop.run(client.request(plain_get(peer.url("/x"))));
  REQUIRE(get.ok());
  CHECK(get.response().status == 502);
  CHECK(peer.requests() == 3);
  CHECK(sleeps.delays == std::vector<milliseconds>{milliseconds(50), milliseconds(100)});

  HttpRequest post = plain_get(peer.url("/redfish/v1/Systems/1/Actions/ComputerSystem.Reset"));
  post.method = "POST";
  post.body = R"({"ResetType":"On"})";
  const HttpResult once = loop.run(client.request(post));
  CHECK(once.response().status == 502);
  CHECK(peer.requests() == 4);

  const HttpResult told = loop.run(client.request(post, CallOptions{.idempotent = true}));
  CHECK(told.response().status == 502);
  CHECK(peer.requests() == 7);
}

TEST_CASE("a call's max_attempts lowers the client's, never raises it") {
  HttpPeer peer([](const std::string&) { return PeerResponse{.status = 502}; });
  RecordedSleeps sleeps;
  IoThreads loop;
  BmcHttpClient client(loop.io.get_executor(), options(3), sleeps.environment(0.0));

  const HttpResult once = loop.run(client.request(plain_get(peer.url("/x")), {.max_attempts = 1}));
  CHECK(once.response().status == 502);
  CHECK(peer.requests() == 1);
  CHECK(sleeps.delays.empty());

  const HttpResult capped =
      loop.run(client.request(plain_get(peer.url("/x")), {.max_attempts = 10}));
  CHECK(capped.response().status == 502);
  CHECK(peer.requests() == 4);
  CHECK(sleeps.delays.size() == 2);

  const HttpResult zero = loop.run(client.request(plain_get(peer.url("/x")), {.max_attempts = 0}));
  CHECK(zero.response().status == 502);
  CHECK(peer.requests() == 5);  // taken as 1: a call is always made
}

TEST_CASE("a call's on_wait is told before each of its own waits, and only then") {
  HttpPeer peer([](const std::string&) { return PeerResponse{.status = 502}; });
  RecordedSleeps sleeps;
  IoThreads loop;
  BmcHttpClient client(loop.io.get_executor(), options(3), sleeps.environment(0.0));
  // on_wait is called before the sleep it announces: it sees the delays recorded so far.
  std::vector<std::size_t> delays_seen;
  const auto record = [&] {
    std::lock_guard lock(sleeps.mutex);
    delays_seen.push_back(sleeps.delays.size());
  };

  const HttpResult retried =
      loop.run(client.request(plain_get(peer.url("/x")), {.on_wait = record}));
  CHECK(retried.response().status == 502);
  CHECK(peer.requests() == 3);
  CHECK(delays_seen == std::vector<std::size_t>{0, 1});

  // A paced request waits its turn: that is a wait of its own too.
  delays_seen.clear();
  HttpRequest paced = plain_get(peer.url("/x"));
  paced.pace = Pace{.key = "paced-bmc", .per_second = 1, .burst = 1};
  loop.run(client.request(paced, {.max_attempts = 1, .on_wait = record}));
  CHECK(delays_seen.empty());  // the first request of a burst does not wait
  loop.run(client.request(paced, {.max_attempts = 1, .on_wait = record}));
  CHECK(delays_seen.size() == 1);

  // An answer at the first attempt: nothing to announce.
  HttpPeer fine([](const std::string&) { return PeerResponse{.body = "ok"}; });
  delays_seen.clear();
  loop.run(client.request(plain_get(fine.url("/x")), {.on_wait = record}));
  CHECK(delays_seen.empty());
}

TEST_CASE("BmcHttpClient retries connection refused, even for a POST, then reports it") {
  RecordedSleeps sleeps;
  IoThreads loop;
  BmcHttpClient client(loop.io.get_executor(), options(3), sleeps.environment(0.0));
  HttpRequest post = plain_get(
      "http://127.0.0.1:" + std::to_string(ironhold::test::free_tcp_port("127.0.0.1")) + "/");
  post.method = "POST";
  const HttpResult result = loop.run(client.request(post));
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().kind == HttpErrorKind::connect_failed);
  CHECK(sleeps.delays.size() == 2);
}

TEST_CASE("BmcHttpClient keeps requests in flight per BMC within the limit across 200 requests") {
  std::vector<std::unique_ptr<HttpPeer>> peers;
  for (int i = 0; i < 4; ++i)
    peers.push_back(std::make_unique<HttpPeer>(
        [](const std::string&) { return PeerResponse{.body = "{}", .delay = milliseconds(2)}; }));
  RecordedSleeps sleeps;
  IoThreads loop;
  BmcHttpClient::Options o = options();
  o.transport.max_host_connections = 4;  // so only the limiter holds requests back
  BmcHttpClient client(loop.io.get_executor(), o, sleeps.environment());
  // One BMC allowed two at a time, to show the limit is per host and configurable.
  client.set_host_limit("127.0.0.1:" + std::to_string(peers[3]->port()), 2);

  std::vector<std::future<HttpResult>> results;
  for (int i = 0; i < 200; ++i) {
    auto work = client.request(plain_get(peers[static_cast<std::size_t>(i % 4)]->url("/r")));
    results.push_back(asio::co_spawn(loop.io, std::move(work), asio::use_future));
  }
  for (auto& f : results) {
    const HttpResult r = f.get();
    REQUIRE(r.ok());
    CHECK(r.response().status == 200);
  }
  for (int i = 0; i < 4; ++i) CHECK(peers[static_cast<std::size_t>(i)]->requests() == 50);
  for (int i = 0; i < 3; ++i) CHECK(peers[static_cast<std::size_t>(i)]->max_in_flight() == 1);
  CHECK(peers[3]->max_in_flight() <= 2);
  CHECK(sleeps.delays.empty());
}

TEST_CASE("BmcHttpClient serves many pinned TLS BMCs concurrently") {
  using ironhold::test::CannedResponse;
  using ironhold::test::TlsTestServer;
  std::vector<std::unique_ptr<TlsTestServer>> servers;
  for (int i = 0; i < 4; ++i)
    servers.push_back(std::make_unique<TlsTestServer>(
        "127.0.0.1", CannedResponse{200, "application/json", "{}"}));
  RecordedSleeps sleeps;
  IoThreads loop;
  BmcHttpClient client(loop.io.get_executor(), options(), sleeps.environment());

  std::vector<std::future<HttpResult>> results;
  for (int i = 0; i < 40; ++i) {
    const auto& server = *servers[static_cast<std::size_t>(i % 4)];
    HttpRequest request;
    request.url = "https://127.0.0.1:" + std::to_string(server.port()) + "/redfish/v1/";
    auto work = client.request(std::move(request));
    results.push_back(asio::co_spawn(loop.io, std::move(work), asio::use_future));
  }
  std::set<std::string> fingerprints;
  for (auto& f : results) {
    const HttpResult r = f.get();
    REQUIRE(r.ok());
    REQUIRE(r.response().peer_fingerprint);
    fingerprints.insert(*r.response().peer_fingerprint);
  }
  CHECK(fingerprints.size() == 4);
  for (const auto& server : servers) CHECK(server->requests().size() == 10);
}

}  // namespace bmc_http_client_test
