// Alerts end to end over real HTTP: a node turning critical fires one alert; the receiver, down
// at first and then failing, gets the notification once it answers, in the Alertmanager webhook
// format and signed (checked here with OpenSSL's own HMAC); acknowledging and resolving show in
// the API and resolving is notified too; a silence keeps the next firing quiet.
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <catch2/catch.hpp>
#include <thread>

#include "tests/support/eventually.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"
#include "tests/support/server/webhook_receiver.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace alerts_e2e_test {

using namespace ironhold::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

const std::string kSecret = "receiver-signing-secret-31c9";

std::string hmac_hex(const std::string& key, const std::string& body) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(body.data()), body.size(), mac, &length);
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += digits[mac[i] >> 4];
    out += digits[mac[i] & 15];
  }
  return out;
}

}  // namespace

TEST_CASE(
    "a critical node is alerted once, notified signed after the receiver's downtime, "
    "acknowledged, resolved and silenced",
    "[web][alerts][e2e]") {
  TestServer server;
  const std::string admin = server.token("admin");
  const auto port = server.port();
  auto api_get = [&](const std::string& target) { return http_get(port, target, admin); };
  auto set_health = [&](const std::string& health) {
    server.database().execute("UPDATE nodes SET health = '" + health + "' WHERE name = 'gpu-a1'");
  };
  REQUIRE(
      http_send(port, "POST", "/api/v1/nodes",
                {{"name", "gpu-a1"}, {"driver", "redfish"}, {"endpoint", "https://127.0.0.1:9"}},
                admin)
          .status == 201);
  // The receiver is down: nothing listens on its port yet.
  const std::string hook_address = private_loopback_address();
  const unsigned short hook_port = free_loopback_port(hook_address);
  const auto made =
      http_send(port, "POST", "/api/v1/alert-receivers",
                {{"name", "pager"},
                 {"url", "http://" + hook_address + ":" + std::to_string(hook_port) + "/alerts"},
                 {"secret", kSecret},
                 {"min_severity", "warning"}},
                admin);
  INFO(made.body);
  REQUIRE(made.status == 201);
  CHECK(made.body.find(kSecret) == std::string::npos);

  set_health("critical");
  json firing;
  REQUIRE(eventually([&] {
    firing = api_get("/api/v1/alerts?source=health&state=firing").json();
    return firing["items"].size() == 1;
  }));
  const std::string alert_id = std::to_string(firing["items"][0]["id"].get<long long>());
  CHECK(firing["items"][0]["severity"] == "critical");
  CHECK(firing["items"][0]["node_name"] == "gpu-a1");

  // Tried while down, and kept.
  REQUIRE(eventually([&] {
    return server.database().execute(
               "SELECT count(*) FROM alert_outbox WHERE attempts >= 1 AND delivered_at IS NULL") ==
           "1";
  }));
  // Up, but failing: still kept.
  WebhookReceiver receiver(hook_port, hook_address);
  receiver.answer(503);
  REQUIRE(receiver.wait_for(1));
  CHECK(server.database().execute("SELECT count(*) FROM alert_outbox WHERE delivered_at IS NULL") ==
        "1");
  // Healthy: delivered.
  receiver.answer(200);
  REQUIRE(eventually([&] {
    return server.database().execute(
               "SELECT count(*) FROM alert_outbox WHERE delivered_at IS NOT NULL") == "1";
  }));
  const auto all = receiver.received();
  const auto& last = all.back();
  CHECK(last.target == "/alerts");
  CHECK(last.headers.at("content-type") == "application/json");
  CHECK(last.headers.at("x-ironhold-signature") == "sha256=" + hmac_hex(kSecret, last.body));
  CHECK(last.headers.at("x-ironhold-signature") != "sha256=" + hmac_hex(kSecret + "x", last.body));
  const json note = json::parse(last.body);
  CHECK(note["version"] == "4");
  CHECK(note["status"] == "firing");
  CHECK(note["receiver"] == "pager");
  REQUIRE(note["alerts"].size() == 1);
  CHECK(note["alerts"][0]["status"] == "firing");
  CHECK(note["alerts"][0]["labels"]["alertname"] == "health");
  CHECK(note["alerts"][0]["labels"]["severity"] == "critical");
  CHECK(note["alerts"][0]["labels"]["node"] == "gpu-a1");
  CHECK(note["alerts"][0]["endsAt"] == "0001-01-01T00:00:00Z");

  // Seen on every evaluation since: still the one alert, notified once.
  std::this_thread::sleep_for(1s);
  CHECK(api_get("/api/v1/alerts?source=health").json()["items"].size() == 1);
  const std::size_t after_firing = receiver.received().size();

  const auto ack =
      http_send(port, "POST", "/api/v1/alerts/" + alert_id + "/ack", json::object(), admin);
  REQUIRE(ack.status == 200);
  CHECK(ack.json()["state"] == "acknowledged");
  CHECK(ack.json()["acknowledged_by"] == "admin-1");

  set_health("ok");
  REQUIRE(receiver.wait_for(after_firing + 1));
  const json resolved = json::parse(receiver.received().back().body);
  CHECK(resolved["status"] == "resolved");
  CHECK(resolved["alerts"][0]["endsAt"] != "0001-01-01T00:00:00Z");
  CHECK(api_get("/api/v1/alerts/" + alert_id).json()["state"] == "resolved");

  // Silenced: the next firing is an alert, but nobody is paged.
  const auto silence = http_send(port, "POST", "/api/v1/silences",
                                 {{"selector", {{"names", "gpu-a1"}}},
                                  {"ends_at", "2099-01-01T00:00:00Z"},
                                  {"comment", "PSU swap"}},
                                 admin);
  INFO(silence.body);
  REQUIRE(silence.status == 201);
  const std::size_t before_silenced = receiver.received().size();
  set_health("warning");
  REQUIRE(eventually([&] {
    return api_get("/api/v1/alerts?source=health&state=firing").json()["items"].size() == 1;
  }));
  std::this_thread::sleep_for(1500ms);
  CHECK(receiver.received().size() == before_silenced);
  CHECK(server.database().execute("SELECT count(*) FROM alert_outbox WHERE delivered_at IS NULL") ==
        "0");
  // The audit trail has the receiver, the acknowledgement and the silence; never the secret.
  const std::string audit = api_get("/api/v1/audit?limit=1000").body;
  CHECK(audit.find("/api/v1/alert-receivers") != std::string::npos);
  CHECK(audit.find("/ack") != std::string::npos);
  CHECK(audit.find(kSecret) == std::string::npos);
}

}  // namespace alerts_e2e_test
