// Faults a simulated BMC shows on the wire, as a libcurl client meets them, while a healthy BMC in
// the same fleet answers normally.
#include <catch2/catch.hpp>

#include "curl_client.hpp"
#include "inventory/error.hpp"
#include "sim/redfish/faults.hpp"
#include "sim_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace redfish_faults_test {

using namespace std::chrono_literals;
using ironhold::test::curl_fetch;
using ironhold::test::CurlCall;
namespace rf = ironhold::sim::redfish;

namespace {

struct FaultyFleet {
  ironhold::sim::RedfishFleet fleet{ironhold::test::fleet_options(2)};
  std::string faulty = fleet.endpoint(0) + "/redfish/v1/Systems";
  std::string healthy = fleet.endpoint(1) + "/redfish/v1/Systems";
  FaultyFleet() { fleet.start(); }

  void set(const nlohmann::json& faults) { fleet.set_faults(0, rf::faults_from_json(faults)); }
  void check_neighbour() {
    const auto reply = curl_fetch(healthy);
    INFO(curl_easy_strerror(reply.code));
    CHECK(reply.ok());
    CHECK(reply.status == 200);
    CHECK(reply.doc().contains("Members"));
  }
};

}  // namespace

TEST_CASE("fault settings parse, and bad ones name the field", "[sim][redfish][faults]") {
  const auto f =
      rf::faults_from_json({{"latency_ms", 50}, {"error_rate", 0.25}, {"timeout", true}});
  CHECK(f.latency_ms == 50);
  CHECK(f.error_rate == 0.25);
  CHECK(f.timeout);
  CHECK(f.any());
  CHECK_FALSE(rf::Faults{}.any());
  CHECK(rf::active_faults(f) == nlohmann::json({"error_rate", "latency_ms", "timeout"}));
  CHECK(rf::faults_from_json(rf::to_json(f)) == f);
  CHECK(rf::faults_from_json({{"timeout", false}}, f).latency_ms == 50);  // merge keeps the rest
  CHECK_THROWS_AS(rf::faults_from_json({{"error_rate", 2}}), ironhold::Error);
  CHECK_THROWS_AS(rf::faults_from_json({{"latency_ms", -1}}), ironhold::Error);
  CHECK_THROWS_AS(rf::faults_from_json({{"timeout", "yes"}}), ironhold::Error);
  CHECK_THROWS_AS(rf::faults_from_json({{"explode", true}}), ironhold::Error);
  CHECK(rf::mangle_body(rf::Faults{.huge_body_bytes = 100}, "{}").size() >= 100);
  CHECK_FALSE(nlohmann::json::parse(rf::mangle_body(rf::Faults{.huge_body_bytes = 100}, "{}"),
                                    nullptr, false)
                  .is_discarded());
}

TEST_CASE("latency delays the faulty BMC's answers only", "[sim][redfish][faults]") {
  if (!ironhold::test::have_rackmount_mockup()) return;
  FaultyFleet f;
  f.set({{"latency_ms", 300}});
  const auto slow = curl_fetch(f.faulty);
  REQUIRE(slow.ok());
  CHECK(slow.status == 200);
  CHECK(slow.elapsed >= 300ms);
  f.check_neighbour();
  f.fleet.clear_faults(0);
  CHECK(curl_fetch(f.faulty).status == 200);
}

TEST_CASE("reset_connections drops the connection without an answer", "[sim][redfish][faults]") {
  if (!ironhold::test::have_rackmount_mockup()) return;
  FaultyFleet f;
  f.set({{"reset_connections", true}});
  const auto reply = curl_fetch(f.faulty);
  INFO(curl_easy_strerror(reply.code));
  CHECK_FALSE(reply.ok());
  CHECK(reply.status == 0);
  f.check_neighbour();
}

TEST_CASE("timeout accepts and never answers", "[sim][redfish][faults]") {
  if (!ironhold::test::have_rackmount_mockup()) return;
  FaultyFleet f;
  f.set({{"timeout", true}});
  CurlCall call;
  call.timeout_ms = 500;
  const auto reply = curl_fetch(f.faulty, call);
  // curl's own timer ends the call; its clock and ours may disagree by a millisecond, so the proof
  // is the timeout code and the missing status line, not the elapsed time.
  CHECK(reply.code == CURLE_OPERATION_TIMEDOUT);
  CHECK(reply.status == 0);
  f.check_neighbour();
}

TEST_CASE("truncated and invalid JSON bodies do not parse", "[sim][redfish][faults]") {
  if (!ironhold::test::have_rackmount_mockup()) return;
  FaultyFleet f;
  f.set({{"truncated_json", true}});
  const auto cut = curl_fetch(f.faulty);
  REQUIRE(cut.ok());
  CHECK(cut.status == 200);
  CHECK(!cut.body.empty());
  CHECK(cut.doc().is_discarded());
  f.set({{"invalid_json", true}});
  const auto junk = curl_fetch(f.faulty);
  REQUIRE(junk.ok());
  CHECK(junk.doc().is_discarded());
  f.check_neighbour();
}

TEST_CASE("slow drip delivers the whole body, slowly", "[sim][redfish][faults]") {
  if (!ironhold::test::have_rackmount_mockup()) return;
  FaultyFleet f;
  const auto normal = curl_fetch(f.fleet.endpoint(0) + "/redfish/v1/");
  REQUIRE(normal.ok());
  f.set({{"slow_drip_ms", 5}});
  const auto dripped = curl_fetch(f.fleet.endpoint(0) + "/redfish/v1/");
  REQUIRE(dripped.ok());
  CHECK(dripped.body == normal.body);
  // 16 bytes a pause: at least (chunks - 1) pauses.
  CHECK(dripped.elapsed >= std::chrono::milliseconds((normal.body.size() / 16 - 1) * 5));
  f.check_neighbour();
}

TEST_CASE("a redirect loop defeats a client that follows at most 5 redirects",
          "[sim][redfish][faults]") {
  if (!ironhold::test::have_rackmount_mockup()) return;
  FaultyFleet f;
  f.set({{"redirect_loop", true}});
  CurlCall no_follow;
  const auto first = curl_fetch(f.faulty, no_follow);
  REQUIRE(first.ok());
  CHECK(first.status == 302);
  CHECK(first.headers.at("location").rfind("/redfish/v1/Systems?", 0) == 0);
  CurlCall follow;
  follow.follow = true;
  CHECK(curl_fetch(f.faulty, follow).code == CURLE_TOO_MANY_REDIRECTS);
  f.check_neighbour();
}

TEST_CASE("error_rate answers 5xx, 503s with Retry-After", "[sim][redfish][faults]") {
  if (!ironhold::test::have_rackmount_mockup()) return;
  FaultyFleet f;
  f.set({{"error_rate", 1.0}});
  int unavailable = 0;
  for (int i = 0; i < 20; ++i) {
    const auto reply = curl_fetch(f.faulty);
    REQUIRE(reply.ok());
    CHECK(reply.status >= 500);
    if (reply.status == 503) {
      ++unavailable;
      CHECK(reply.headers.at("retry-after") == "1");
    }
    CHECK(reply.doc().contains("error"));
  }
  CHECK(unavailable > 0);
  CHECK(unavailable < 20);
  f.check_neighbour();
}

TEST_CASE("huge_body_bytes pads the JSON to at least that size", "[sim][redfish][faults]") {
  if (!ironhold::test::have_rackmount_mockup()) return;
  FaultyFleet f;
  f.set({{"huge_body_bytes", 3'000'000}});
  const auto big = curl_fetch(f.faulty);
  REQUIRE(big.ok());
  CHECK(big.body.size() >= 3'000'000);
  CHECK(big.doc().contains("Members"));
  f.check_neighbour();
}

}  // namespace redfish_faults_test
