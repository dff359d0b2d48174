// The simulated BCC over real HTTP on loopback: pagination, detail, flavorSpec, actions through
// the transitional statuses, bce-auth-v1 checking with Baidu's error shapes, and faults.
#include <catch2/catch.hpp>
#include <set>

#include "cloudapi/bcc/admin_password.hpp"
#include "cloudapi/bcc/bce_signer.hpp"
#include "tests/cloudapi/bcc/bcc_test_bed.hpp"

namespace ironhold::test::bcc {
namespace bcc_simulator_test {
namespace {

using cloudapi::bcc::BccCall;
using cloudapi::bcc::BccCallResult;

BccCall get(std::string path, std::vector<cloudapi::bcc::BceParam> params = {}) {
  BccCall call;
  call.path = std::move(path);
  call.params = std::move(params);
  call.what = "test";
  return call;
}

BccCall put(const std::string& id, const std::string& verb, std::string body = {}) {
  BccCall call;
  call.method = "PUT";
  call.path = "/v2/instance/" + id;
  call.params = {{verb, std::nullopt}};
  call.body = std::move(body);
  call.idempotent = false;
  call.what = verb;
  return call;
}

// A BccClient that does not retry, to see the first answer.
cloudapi::bcc::BccClientOptions single_attempt() {
  auto options = fast_driver().client;
  options.retry.max_attempts = 1;
  return options;
}

}  // namespace

TEST_CASE("BCC simulator pages the instance list by marker", "[bcc][cloudapi]") {
  BccTestBed bed;
  std::vector<std::string> ids;
  std::string marker;
  int pages = 0;
  for (;;) {
    std::vector<cloudapi::bcc::BceParam> params{{"maxKeys", "1000"}};
    if (!marker.empty()) params.emplace_back("marker", marker);
    const BccCallResult result =
        bed.run(bed.client->call(bed.access(), get("/v2/instance", params)));
    REQUIRE(result.ok());
    const json page = json::parse(result.body);
    ++pages;
    CHECK(page.at("instances").size() <= 2);
    for (const auto& i : page.at("instances")) {
      ids.push_back(i.at("id").get<std::string>());
      // BCC's cardCount is a string.
      CHECK(i.at("cardCount").is_string());
    }
    if (!page.at("isTruncated").get<bool>()) break;
    marker = page.at("nextMarker").get<std::string>();
    REQUIRE_FALSE(marker.empty());
  }
  CHECK(pages == 3);
  CHECK(ids.size() == 5);
  CHECK(std::set<std::string>(ids.begin(), ids.end()).size() == 5);

  const auto detail = bed.run(bed.client->call(bed.access(), get("/v2/instance/" + ids[0])));
  REQUIRE(detail.ok());
  CHECK(json::parse(detail.body).at("instance").at("id") == ids[0]);

  const auto missing = bed.run(bed.client->call(bed.access(), get("/v2/instance/i-nothere")));
  CHECK(missing.status == 404);
  CHECK(missing.error_code == "NoSuchObject");

  const auto flavors = bed.run(
      bed.client->call(bed.access(), get("/v2/instance/flavorSpec", {{"zoneName", "cn-bj-d"}})));
  REQUIRE(flavors.ok());
  const json zones = json::parse(flavors.body).at("zoneResources");
  REQUIRE(zones.size() == 1);
  bool h20 = false;
  for (const auto& f : zones[0].at("bccResources").at("flavorGroups")[0].at("flavors"))
    h20 = h20 || (f.at("gpuCardType") == "H20" && f.at("gpuCardCount") == 8);
  CHECK(h20);
}

TEST_CASE("BCC simulator answers bad credentials with Baidu's error shapes", "[bcc][cloudapi]") {
  BccTestBed bed;
  cloudapi::bcc::BccClient client(bed.io.get_executor(), single_attempt());

  SECTION("unknown access key") {
    auto access = bed.access();
    access.credentials.access_key = "nosuchaccesskey";
    const auto r = bed.run(client.call(access, get("/v2/instance")));
    CHECK(r.status == 403);
    CHECK(r.error_code == "InvalidAccessKeyId");
    REQUIRE(r.error);
    CHECK(r.error->code == DriverErrorCode::auth_failed);
  }
  SECTION("wrong secret key") {
    auto access = bed.access();
    access.credentials.secret_key = "wrongwrongwrongwrongwrongwrong00";
    const auto r = bed.run(client.call(access, get("/v2/instance")));
    CHECK(r.status == 400);
    CHECK(r.error_code == "SignatureDoesNotMatch");
  }
  SECTION("timestamp older than its expiration") {
    auto options = single_attempt();
    options.now = [] { return std::chrono::system_clock::now() - std::chrono::hours(1); };
    cloudapi::bcc::BccClient stale(bed.io.get_executor(), options);
    const auto r = bed.run(stale.call(bed.access(), get("/v2/instance")));
    CHECK(r.status == 400);
    CHECK(r.error_code == "RequestExpired");
  }
  SECTION("no Authorization header, error body and request id header") {
    const auto response = bed.plain("GET", "/v2/instance");
    CHECK(response.status == 403);
    const json body = json::parse(response.body);
    CHECK(body.at("code") == "AccessDenied");
    const auto request_id = response.header("x-bce-request-id");
    REQUIRE(request_id);
    CHECK(body.at("requestId") == *request_id);
    CHECK(body.at("message").is_string());
  }
  SECTION("a signature over another path") {
    cloudapi::bcc::BceRequestToSign to_sign;
    to_sign.method = "GET";
    to_sign.path = "/v2/instance/i-a100Xk01";
    to_sign.timestamp = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    const std::string host = bed.endpoint.substr(std::string("http://").size());
    to_sign.headers = {{"Host", host}};
    const auto s = cloudapi::bcc::sign_bce_v1(
        {bed.simulator->options().access_key, bed.simulator->options().secret_key}, to_sign);
    const auto response =
        bed.plain("GET", "/v2/instance/i-a100Xk02", {}, {{"Authorization", s.authorization}});
    CHECK(response.status == 400);
    CHECK(json::parse(response.body).at("code") == "SignatureDoesNotMatch");
    // The same signature on the path it covers is accepted.
    const auto good =
        bed.plain("GET", "/v2/instance/i-a100Xk01", {}, {{"Authorization", s.authorization}});
    CHECK(good.status == 200);
  }
  SECTION("signed with Baidu's default header set, as the JS SDK does") {
    cloudapi::bcc::BceRequestToSign to_sign;
    to_sign.method = "GET";
    to_sign.path = "/v2/instance";
    to_sign.params = {{"maxKeys", "1"}};
    to_sign.timestamp = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    const std::string host = bed.endpoint.substr(std::string("http://").size());
    to_sign.headers = {{"Host", host},
                       {"Content-Type", "application/json; charset=utf-8"},
                       {"x-bce-date", cloudapi::bcc::bce_timestamp(to_sign.timestamp)}};
    const auto s = cloudapi::bcc::sign_bce_v1(
        {bed.simulator->options().access_key, bed.simulator->options().secret_key}, to_sign);
    CHECK(s.signed_headers == "content-type;host;x-bce-date");
    auto headers = to_sign.headers;
    headers.emplace_back("Authorization", s.authorization);
    const auto response = bed.plain("GET", "/v2/instance?maxKeys=1", {}, headers);
    CHECK(response.status == 200);
    CHECK(json::parse(response.body).at("instances").size() == 1);
  }
}

TEST_CASE("BCC simulator moves instances through Starting and Stopping", "[bcc][cloudapi]") {
  BccTestBed bed;
  cloudapi::bcc::BccClient client(bed.io.get_executor(), single_attempt());
  const auto access = bed.access();

  // i-a100Xk02 starts out Stopped.
  REQUIRE(bed.sim_instance("i-a100Xk02").at("status") == "Stopped");
  REQUIRE(bed.run(client.call(access, put("i-a100Xk02", "start"))).ok());
  CHECK(bed.sim_instance("i-a100Xk02").at("status") == "Starting");
  bed.simulator->finish_transitions();
  CHECK(bed.sim_instance("i-a100Xk02").at("status") == "Running");

  const auto again = bed.run(client.call(access, put("i-a100Xk02", "start")));
  CHECK(again.status == 409);
  CHECK(again.error_code == "Instance.InvalidStatus");

  REQUIRE(bed.run(client.call(access, put("i-a100Xk02", "stop", R"({"forceStop":true})"))).ok());
  CHECK(bed.sim_instance("i-a100Xk02").at("status") == "Stopping");
  CHECK(bed.sim_instance("i-a100Xk02").at("lastForceStop") == true);
  bed.simulator->finish_transitions();
  CHECK(bed.sim_instance("i-a100Xk02").at("status") == "Stopped");

  REQUIRE(bed.run(client.call(access, put("i-a100Xk01", "reboot", R"({"forceStop":false})"))).ok());
  CHECK(bed.sim_instance("i-a100Xk01").at("status") == "Starting");
  CHECK(bed.sim_instance("i-a100Xk01").at("lastForceStop") == false);
  CHECK(bed.plain("POST", "/_sim/transitions/finish").status == 200);
  CHECK(bed.sim_instance("i-a100Xk01").at("status") == "Running");

  const auto bad_json = bed.run(client.call(access, put("i-a100Xk01", "stop", "{nope")));
  CHECK(bad_json.status == 400);
  CHECK(bad_json.error_code == "MalformedJSON");
}

TEST_CASE("BCC simulator ends a transition by itself after transition_ms", "[bcc][cloudapi]") {
  auto options = held_transitions();
  options.transition = std::chrono::milliseconds(50);
  BccTestBed bed(options);
  const auto r = bed.run(bed.client->call(bed.access(), put("i-a10Wm05x", "start")));
  REQUIRE(r.ok());
  CHECK(bed.wait_for_status("i-a10Wm05x", "Running"));
}

TEST_CASE("BCC simulator rebuild decrypts adminPass with the secret key", "[bcc][cloudapi]") {
  BccTestBed bed;
  cloudapi::bcc::BccClient client(bed.io.get_executor(), single_attempt());
  const auto access = bed.access();
  const std::string sk = bed.simulator->options().secret_key;

  const json body = {{"imageId", "m-NewImage1"},
                     {"adminPass", cloudapi::bcc::encrypt_admin_password(sk, "N3w-Passw0rd")}};
  REQUIRE(bed.run(client.call(access, put("i-h800Yp03", "rebuild", body.dump()))).ok());
  const json during = bed.sim_instance("i-h800Yp03");
  CHECK(during.at("status") != "Running");
  CHECK(during.at("lastAdminPass") == "N3w-Passw0rd");
  CHECK(during.at("imageId") != "m-NewImage1");
  bed.simulator->finish_transitions();
  CHECK(bed.sim_instance("i-h800Yp03").at("status") == "Running");
  CHECK(bed.sim_instance("i-h800Yp03").at("imageId") == "m-NewImage1");

  const json plain_text = {{"imageId", "m-NewImage1"}, {"adminPass", "N3w-Passw0rd"}};
  const auto refused =
      bed.run(client.call(access, put("i-h800Yp03", "rebuild", plain_text.dump())));
  CHECK(refused.status == 400);
  CHECK(refused.error_code == "InvalidParameter");

  const json no_image = {{"keypairId", "k-abc"}};
  CHECK(bed.run(client.call(access, put("i-h800Yp03", "rebuild", no_image.dump()))).status == 400);
}

TEST_CASE("BCC simulator faults: throttling, 5xx, latency, release", "[bcc][cloudapi]") {
  BccTestBed bed;
  cloudapi::bcc::BccClient client(bed.io.get_executor(), single_attempt());
  const auto access = bed.access();

  const auto set = bed.plain("POST", "/_sim/faults", R"({"throttle_next": 1, "error_next": 1})");
  REQUIRE(set.status == 200);
  const auto throttled = bed.run(client.call(access, get("/v2/instance")));
  CHECK(throttled.status == 429);
  CHECK(throttled.error_code == "RequestRateLimitExceeded");
  const auto failed = bed.run(client.call(access, get("/v2/instance")));
  CHECK(failed.status == 500);
  CHECK(failed.error_code == "InternalError");
  CHECK(bed.run(client.call(access, get("/v2/instance"))).ok());

  CHECK(bed.plain("POST", "/_sim/faults", R"({"throttle_next": -1})").status == 400);

  const auto released = bed.plain("POST", "/_sim/instances/i-a10Wm05x/terminate");
  CHECK(released.status == 200);
  const auto detail = bed.run(client.call(access, get("/v2/instance/i-a10Wm05x")));
  REQUIRE(detail.ok());
  CHECK(json::parse(detail.body).at("instance").at("status") == "Deleted");
  CHECK(bed.plain("POST", "/_sim/instances/i-nope/terminate").status == 404);

  const auto raw = bed.plain("GET", "/_sim/instances");
  CHECK(json::parse(raw.body).size() == 5);
}

}  // namespace bcc_simulator_test
}  // namespace ironhold::test::bcc
