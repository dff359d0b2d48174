// Sessions, auth backoff and TLS pinning of the Redfish transport, over real HTTPS against the
// in-process simulator (its login counters are the witness).
#include <unistd.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_future.hpp>
#include <future>
#include <mutex>

#include "bmc/redfish/redfish_driver.hpp"
#include "bmc/redfish/redfish_transport.hpp"
#include "bmc/redfish/session_cache.hpp"
#include "tests/bmc/redfish/driver_test_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace session_transport_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace ironhold::bmc::redfish;
namespace asio = boost::asio;
namespace beast_http = boost::beast::http;
using nlohmann::json;

namespace {

// A clock the test moves, for the auth backoff.
struct TestClock {
  std::shared_ptr<std::atomic<long long>> offset_s = std::make_shared<std::atomic<long long>>(0);
  std::function<SessionCache::Clock::time_point()> now() const {
    return [o = offset_s] { return SessionCache::Clock::now() + std::chrono::seconds(o->load()); };
  }
  void advance(std::chrono::seconds by) { *offset_s += by.count(); }
};

struct Transport {
  explicit Transport(const TestClock& clock = {}) : cache({}, clock.now()) {}
  IoThreads io;  // first: outlives the client, whose destructor needs the executor
  bmc::http::BmcHttpClient client{io.io.get_executor(), {}};
  SessionCache cache;
  TransportOptions options;

  FetchResult get(const DriverTarget& target, const std::string& path,
                  std::optional<std::string>* fingerprint = nullptr) {
    auto resolved = resolve_target(target);
    REQUIRE(std::holds_alternative<RedfishTarget>(resolved));
    RedfishConnection connection(client, cache, options, std::get<RedfishTarget>(resolved));
    FetchResult result = io.run(connection.get_json(path));
    if (fingerprint) *fingerprint = connection.fingerprint();
    return result;
  }

  std::string key(const DriverTarget& target) {
    return std::get<RedfishTarget>(resolve_target(target)).key;
  }
};

sim::redfish::Response sim_call(sim::redfish::BmcState& state, beast_http::verb verb,
                                const std::string& path, const std::string& token) {
  sim::redfish::Request request{verb, path, 11};
  request.set("X-Auth-Token", token);
  return state.handle(request);
}

std::string error_text(const FetchResult& r) {
  if (const auto* e = std::get_if<DriverError>(&r))
    return std::string(to_string(e->code)) + ": " + e->message;
  return "ok";
}

// The sessions open at the first `count` BMCs of `bmcs`: the mockup's own samples and ours.
std::size_t open_sessions(SimulatedBmc& bmcs, std::size_t count) {
  const auto path =
      mockup_document(rackmount_mockup(), "/redfish/v1")["Links"]["Sessions"]["@odata.id"]
          .get<std::string>();
  std::size_t total = 0;
  for (std::size_t i = 0; i < count; ++i) {
    sim::redfish::Request request{beast_http::verb::get, path, 11};
    request.set(beast_http::field::authorization, "Basic YWRtaW46cGFzc3dvcmQ=");  // admin:password
    total += json::parse(bmcs.state(i).handle(request).body())["Members"].size();
  }
  return total;
}

}  // namespace

TEST_CASE("a Redfish session is opened once and reused by every request", "[redfish][session]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc;
  Transport transport;
  const std::string system = mockup_first_system(rackmount_mockup());
  for (int i = 0; i < 5; ++i) {
    const FetchResult result = transport.get(bmc.target(), system);
    INFO(error_text(result));
    REQUIRE(std::holds_alternative<json>(result));
    CHECK(std::get<json>(result)["@odata.id"] ==
          mockup_document(rackmount_mockup(), system)["@odata.id"]);
  }
  CHECK(bmc.state().counters().successful_logins == 1);
  CHECK(bmc.state().counters().failed_logins == 0);
  const auto session = transport.cache.find(transport.key(bmc.target()));
  REQUIRE(session);
  CHECK(session->mode == AuthMode::session);
  CHECK(session->session_uri.rfind("/redfish/v1/SessionService/Sessions/", 0) == 0);
}

TEST_CASE("concurrent requests to one BMC log in once", "[redfish][session]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc;
  Transport transport;
  const std::string system = mockup_first_system(rackmount_mockup());
  auto resolved = std::get<RedfishTarget>(resolve_target(bmc.target()));
  std::vector<std::unique_ptr<RedfishConnection>> connections;
  std::vector<std::future<FetchResult>> results;
  for (int i = 0; i < 4; ++i) {
    connections.push_back(std::make_unique<RedfishConnection>(transport.client, transport.cache,
                                                              transport.options, resolved));
    results.push_back(
        asio::co_spawn(transport.io.io, connections.back()->get_json(system), asio::use_future));
  }
  for (auto& r : results) CHECK(std::holds_alternative<json>(r.get()));
  CHECK(bmc.state().counters().successful_logins == 1);
}

TEST_CASE("a deleted Redfish session is replaced by one new login", "[redfish][session]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc;
  Transport transport;
  const std::string system = mockup_first_system(rackmount_mockup());
  REQUIRE(std::holds_alternative<json>(transport.get(bmc.target(), system)));
  const auto session = transport.cache.find(transport.key(bmc.target()));
  REQUIRE(session);
  // The BMC forgets the session (as on expiry): the next request meets a 401.
  const auto deleted =
      sim_call(bmc.state(), beast_http::verb::delete_, session->session_uri, session->token);
  REQUIRE(deleted.result_int() == 204);
  const FetchResult again = transport.get(bmc.target(), system);
  INFO(error_text(again));
  CHECK(std::holds_alternative<json>(again));
  CHECK(bmc.state().counters().successful_logins == 2);
  CHECK(transport.cache.find(transport.key(bmc.target()))->token != session->token);
}

TEST_CASE("rejected credentials are not tried again until the backoff passes or they change",
          "[redfish][session]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc;
  TestClock clock;
  Transport transport(clock);
  const std::string system = mockup_first_system(rackmount_mockup());
  const auto wrong = bmc.target("not-the-password");
  for (int i = 0; i < 5; ++i) {
    const FetchResult result = transport.get(wrong, system);
    REQUIRE(std::holds_alternative<DriverError>(result));
    CHECK(std::get<DriverError>(result).code == DriverErrorCode::auth_failed);
    CHECK(std::get<DriverError>(result).message.find("not-the-password") == std::string::npos);
  }
  CHECK(bmc.state().counters().failed_logins == 1);

  // 15 minutes later one more attempt; then the backoff doubles to 30 minutes.
  clock.advance(std::chrono::minutes(16));
  CHECK(std::holds_alternative<DriverError>(transport.get(wrong, system)));
  CHECK(bmc.state().counters().failed_logins == 2);
  clock.advance(std::chrono::minutes(16));
  CHECK(std::holds_alternative<DriverError>(transport.get(wrong, system)));
  CHECK(bmc.state().counters().failed_logins == 2);

  // New credentials are a new key: tried at once.
  const FetchResult fixed = transport.get(bmc.target("password"), system);
  INFO(error_text(fixed));
  CHECK(std::holds_alternative<json>(fixed));
  CHECK(bmc.state().counters().successful_logins == 1);
  CHECK(bmc.state().counters().failed_logins == 2);
}

TEST_CASE("the first contact reports the certificate, a wrong pin is refused before any login",
          "[redfish][session][tls]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc;
  Transport transport;
  const std::string system = mockup_first_system(rackmount_mockup());

  auto pinned_wrong = bmc.target();
  pinned_wrong.pinned_fingerprint = std::string(64, 'a');
  const FetchResult refused = transport.get(pinned_wrong, system);
  REQUIRE(std::holds_alternative<DriverError>(refused));
  const auto& error = std::get<DriverError>(refused);
  CHECK(error.code == DriverErrorCode::tls_pin_mismatch);
  CHECK(error.message.find(std::string(64, 'a')) != std::string::npos);
  CHECK(bmc.state().counters().successful_logins == 0);
  CHECK(bmc.state().counters().failed_logins == 0);

  std::optional<std::string> seen;
  const FetchResult first = transport.get(bmc.target(), system, &seen);
  CHECK(std::holds_alternative<json>(first));
  REQUIRE(seen);
  CHECK(seen->size() == 64);
  CHECK(*seen != std::string(64, 'a'));

  auto pinned_right = bmc.target();
  pinned_right.pinned_fingerprint = seen;
  std::optional<std::string> again;
  CHECK(std::holds_alternative<json>(transport.get(pinned_right, system, &again)));
  CHECK(again == seen);
}

TEST_CASE("plain http talks to the BMC without TLS", "[redfish][session]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc(rackmount_mockup(), /*tls=*/false);
  Transport transport;
  std::optional<std::string> seen;
  const auto target = bmc.target();
  CHECK(target.endpoint.scheme == "http");
  const FetchResult result = transport.get(target, mockup_first_system(rackmount_mockup()), &seen);
  INFO(error_text(result));
  CHECK(std::holds_alternative<json>(result));
  CHECK_FALSE(seen);
}

TEST_CASE("shutdown deletes the driver's Redfish sessions", "[redfish][session]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc;
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  const std::size_t before = open_sessions(bmc, 1);  // the mockup's own sample sessions
  const auto report = io.run(driver.identify(bmc.target(), "", false));
  CHECK(report.ok());
  CHECK(open_sessions(bmc, 1) == before + 1);
  io.run(driver.shutdown());
  CHECK(open_sessions(bmc, 1) == before);
}

TEST_CASE("shutdown logs out of more BMCs than it has workers, every one", "[redfish][session]") {
  if (!have_rackmount_mockup()) return;
  constexpr std::size_t kBmcs = 70;  // more than the 64 logouts that run at once
  SimulatedBmc bmcs(rackmount_mockup(), /*tls=*/true, kBmcs);
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  const std::size_t samples = open_sessions(bmcs, kBmcs);
  for (std::size_t i = 0; i < kBmcs; ++i) {
    const auto report = io.run(driver.identify(bmcs.target("password", i), "", false));
    INFO(i);
    REQUIRE(report.ok());
  }
  REQUIRE(open_sessions(bmcs, kBmcs) == samples + kBmcs);
  io.run(driver.shutdown());
  CHECK(open_sessions(bmcs, kBmcs) == samples);
}

TEST_CASE("shutdown does not wait out BMCs that stopped answering", "[redfish][session]") {
  if (!have_rackmount_mockup()) return;
  // One after another, each silent BMC's logout would have waited out the 30 s request timeout
  // (four minutes here); a stopping service must not.
  constexpr std::size_t kBmcs = 8;
  SimulatedBmc bmcs(rackmount_mockup(), /*tls=*/true, kBmcs);
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  REQUIRE(TransportOptions{}.total_timeout >= std::chrono::seconds(30));  // the premise
  for (std::size_t i = 0; i < kBmcs; ++i)
    REQUIRE(io.run(driver.identify(bmcs.target("password", i), "", false)).ok());
  sim::redfish::Faults silent;
  silent.timeout = true;
  for (std::size_t i = 0; i < kBmcs; ++i) bmcs.fleet->set_faults(i, silent);
  const auto start = std::chrono::steady_clock::now();
  io.run(driver.shutdown());
  const auto took = std::chrono::steady_clock::now() - start;
  INFO(std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms");
  // Not a speed figure: the logouts are given two seconds, in one attempt each (three attempts
  // had taken 7.4 s here); the bound is well above that, and far below what waiting out even one
  // silent BMC's request timeout would take.
  CHECK(took < std::chrono::milliseconds(5000));
}

TEST_CASE("Basic auth is used where the service has no session service", "[redfish][session]") {
  if (!have_rackmount_mockup()) return;
  // A copy of the mockup whose service root links no SessionService.
  const fs::path dir =
      fs::temp_directory_path() / ("ironhold-nosessions-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(rackmount_mockup(), dir, fs::copy_options::recursive);
  json root = mockup_document(dir, "/redfish/v1");
  root.erase("SessionService");
  root["Links"].erase("Sessions");
  std::ofstream(dir / "index.json") << root.dump(2);
  {
    SimulatedBmc bmc(dir);
    Transport transport;
    const std::string system = mockup_first_system(dir);
    for (int i = 0; i < 3; ++i) {
      const FetchResult result = transport.get(bmc.target(), system);
      INFO(error_text(result));
      CHECK(std::holds_alternative<json>(result));
    }
    const auto session = transport.cache.find(transport.key(bmc.target()));
    REQUIRE(session);
    CHECK(session->mode == AuthMode::basic);
    CHECK(bmc.state().counters().successful_logins == 3);  // Basic: every request
    CHECK(bmc.state().counters().failed_logins == 0);

    // Wrong credentials with Basic auth are barred like a failed login.
    const auto wrong = bmc.target("wrong");
    for (int i = 0; i < 3; ++i)
      CHECK(std::holds_alternative<DriverError>(transport.get(wrong, system)));
    CHECK(bmc.state().counters().failed_logins == 1);
  }
  fs::remove_all(dir);
}

TEST_CASE("a changed password logs the old session out instead of leaving it open",
          "[redfish][session]") {
  // BMCs keep a handful of session slots: the session opened with the old password must not
  // hold one until the service stops.
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc;
  IoThreads io;
  RedfishDriver driver(io.io.get_executor());
  REQUIRE(io.run(driver.poll_status(bmc.target())).ok());
  CHECK(bmc.state().session_count() == 1);
  bmc.state().set_password("changed");
  REQUIRE(io.run(driver.poll_status(bmc.target("changed"))).ok());
  CHECK(bmc.state().counters().successful_logins == 2);
  CHECK(bmc.state().session_count() == 1);
  io.run(driver.shutdown());
  CHECK(bmc.state().session_count() == 0);
}

TEST_CASE("a BMC's max_requests_per_second spaces out every request to it", "[redfish][session]") {
  if (!have_rackmount_mockup()) return;
  SimulatedBmc bmc;
  // The waits the pacer asks for are recorded and skipped: the test never sleeps.
  auto waits = std::make_shared<std::vector<std::chrono::milliseconds>>();
  auto waits_mutex = std::make_shared<std::mutex>();
  bmc::http::RetryEnvironment environment;
  environment.sleep = [waits, waits_mutex](std::chrono::milliseconds d) -> asio::awaitable<void> {
    std::lock_guard lock(*waits_mutex);
    waits->push_back(d);
    co_return;
  };
  IoThreads io;
  bmc::http::BmcHttpClient client{io.io.get_executor(), {}, environment};
  SessionCache cache;
  DriverTarget target = bmc.target();
  target.options = {{"max_requests_per_second", 2}};
  auto resolved = resolve_target(target);
  REQUIRE(std::holds_alternative<RedfishTarget>(resolved));
  CHECK(std::get<RedfishTarget>(resolved).pace.per_second == 2);
  RedfishConnection connection(client, cache, TransportOptions{},
                               std::get<RedfishTarget>(resolved));
  const std::string system = mockup_first_system(rackmount_mockup());
  for (int i = 0; i < 4; ++i)
    REQUIRE(std::holds_alternative<json>(io.run(connection.get_json(system))));
  // The login (the service root, then the session) and four reads: six requests, the first at
  // once, each later one reserving the next half-second slot of the bucket (less the little time
  // the requests themselves took).
  {
    std::lock_guard lock(*waits_mutex);
    REQUIRE(waits->size() == 5);
    for (std::size_t i = 1; i < waits->size(); ++i) CHECK((*waits)[i] > (*waits)[i - 1]);
    CHECK(waits->back() >= std::chrono::milliseconds(2000));
    CHECK(waits->back() <= std::chrono::milliseconds(2500));
    waits->clear();
  }

  // Without the option nothing waits.
  target.options = json::object();
  RedfishConnection unpaced(client, cache, TransportOptions{},
                            std::get<RedfishTarget>(resolve_target(target)));
  REQUIRE(std::holds_alternative<json>(io.run(unpaced.get_json(system))));
  std::lock_guard lock(*waits_mutex);
  CHECK(waits->empty());
}

}  // namespace session_transport_test
