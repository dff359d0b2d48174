// No secret leaves: BMC and cloud credentials, people's passwords, alert receivers' signing
// secrets and pushed-event addresses enrolled as marker strings go through the service's flows
// (polls of a real simulated BMC, one that rejects its password, cloud syncs of the three
// providers' simulators, a power task, credential changes, alerts notified to a receiver that
// answers and retried to one that refuses connections, events pushed to a subscription's address
// and to addresses nobody has, bad requests, exports in every format, the audit trail, the change
// stream, /metrics) and no response body, notification, log line or stored row of any table
// contains any of them, in clear text or as the hex bytes of a bytea column.
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <mutex>
#include <span>
#include <sstream>
#include <thread>

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/event_subscription_store.hpp"
#include "inventory/util/log.hpp"
#include "sim/cloud/bcc/bcc_simulator.hpp"
#include "sim/cloud/ec2/ec2_simulator.hpp"
#include "sim/cloud/openstack/openstack_simulator.hpp"
#include "sim/redfish/fleet.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/sse_client.hpp"
#include "tests/support/server/test_server.hpp"
#include "tests/support/server/webhook_receiver.hpp"
#include "tests/web/poller/poller_helpers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace secrets_sweep_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;
using namespace std::chrono_literals;
namespace asio = boost::asio;

namespace {

std::mutex sweep_mutex;
std::string sweep_logs;
void capture_logs(std::string_view line) {
  std::lock_guard lock(sweep_mutex);
  sweep_logs.append(line).append("\n");
}

const std::string kBmcPassword = "IHMARK-bmc-3c9e1f7a";
const std::string kWrongPassword = "IHMARK-wrong-8d2b60c4";
const std::string kNewPassword = "IHMARK-newbmc-e41f09b2";
const std::string kEc2Secret = "IHMARK-ec2-secret-5a7d3e91c0";
const std::string kBccSecret = "IHMARK-bcc-secret-19fe0a6b42";
const std::string kOpenStackPassword = "IHMARK-openstack-77c1d2e0";
const std::string kUserPassword = "IHMARK-user-pw-0b5c8e2d";
const std::string kUserNewPassword = "IHMARK-user-new-6f1a93c7";
const std::string kUserWrongPassword = "IHMARK-user-wrong-d2e7a410";
const std::string kReceiverSecret = "IHMARK-receiver-down-4e8a1c7f";
const std::string kLiveReceiverSecret = "IHMARK-receiver-live-a61d05e9";
const std::string kGoneReceiverSecret = "IHMARK-receiver-gone-73b2f8d4";
const std::string kRefusedReceiverSecret = "IHMARK-receiver-refused-0c9e6a15";
const std::string kEventSecret = "IHMARK-event-address-5f30c2b8";
const std::string kWrongEventSecret = "IHMARK-event-wrong-b84e1d07";
const std::vector<std::string> kMarkers = {kBmcPassword,
                                           kWrongPassword,
                                           kNewPassword,
                                           kEc2Secret,
                                           kBccSecret,
                                           kOpenStackPassword,
                                           kUserPassword,
                                           kUserNewPassword,
                                           kUserWrongPassword,
                                           kReceiverSecret,
                                           kLiveReceiverSecret,
                                           kGoneReceiverSecret,
                                           kRefusedReceiverSecret,
                                           kEventSecret,
                                           kWrongEventSecret};

// A Redfish Event document as a BMC posts it.
const json kPushedEvent = {{"@odata.type", "#Event.v1_7_0.Event"},
                           {"Id", "1"},
                           {"Name", "Event Array"},
                           {"Events",
                            {{{"EventType", "Alert"},
                              {"EventId", "9001"},
                              {"EventTimestamp", "2026-12-01T10:00:00Z"},
                              {"MessageSeverity", "Warning"},
                              {"Message", "Fan 3 speed low"},
                              {"MessageId", "Test.1.0.FanLow"},
                              {"OriginOfCondition", {{"@odata.id", "/redfish/v1/Systems/1"}}}}}}};

struct Clouds {
  asio::io_context io;
  std::unique_ptr<sim::cloud::openstack::OpenStackSimulator> openstack;
  std::unique_ptr<sim::cloud::ec2::Ec2Simulator> ec2;
  std::unique_ptr<sim::cloud::bcc::BccSimulator> bcc;
  unsigned short ec2_port = 0, bcc_port = 0;
  std::thread thread;

  Clouds() {
    const asio::ip::tcp::endpoint any(asio::ip::make_address("127.0.0.1"), 0);
    sim::cloud::openstack::OpenStackSimulatorOptions os;
    os.password = kOpenStackPassword;
    openstack = std::make_unique<sim::cloud::openstack::OpenStackSimulator>(io, os);
    openstack->listen(any);
    sim::cloud::ec2::Ec2SimulatorOptions e;
    e.secret_access_key = kEc2Secret;
    ec2 = std::make_unique<sim::cloud::ec2::Ec2Simulator>(io, e);
    ec2_port = ec2->listen(any).port();
    sim::cloud::bcc::BccSimulatorOptions b;
    b.secret_key = kBccSecret;
    bcc = std::make_unique<sim::cloud::bcc::BccSimulator>(io, b);
    bcc_port = bcc->listen(any).port();
    thread = std::thread([this] { io.run(); });
  }
  ~Clouds() {
    openstack->close();
    ec2->close();
    bcc->close();
    thread.join();
  }
};

struct Recorder {
  unsigned short port;
  std::string token;
  std::vector<std::pair<std::string, std::string>> bodies;  // what, body

  HttpResult get(const std::string& target) {
    auto r = http_get(port, target, token);
    bodies.emplace_back("GET " + target, r.body);
    return r;
  }
  HttpResult send(const std::string& method, const std::string& target, const json& body) {
    auto r = http_send(port, method, target, body, token);
    bodies.emplace_back(method + " " + target, r.body);
    return r;
  }
  // As a BMC posts its events: no token. Recorded with its headers (a Location would count).
  HttpResult push(const std::string& method, const std::string& target, const json& body) {
    auto r = http_send(port, method, target, body, std::nullopt);
    std::string seen = r.body;
    for (const auto& [name, value] : r.headers) seen += "\n" + name + ": " + value;
    bodies.emplace_back(method + " (a BMC's push)", seen);
    return r;
  }
};

// Every row of every table, as text (a bytea column as \x and its hex digits).
std::vector<std::string> every_row(TestDatabase& database) {
  const std::string tables = database.execute(
      "SELECT string_agg(quote_ident(table_name), ' ') FROM information_schema.tables "
      "WHERE table_schema = 'public' AND table_type = 'BASE TABLE'");
  std::vector<std::string> rows;
  std::istringstream names(tables);
  for (std::string table; names >> table;)
    rows.push_back(
        table + ": " +
        database.execute("SELECT coalesce(string_agg(t::text, E'\\n'), '') FROM " + table + " t"));
  return rows;
}

}  // namespace

TEST_CASE("no marker secret appears in any response, log line, export, audit row, event or task",
          "[web][secrets][sweep]") {
  {
    std::lock_guard lock(sweep_mutex);
    sweep_logs.clear();
  }
  log::set_sink(&capture_logs);
  log::set_level(log::Level::debug);
  std::vector<std::pair<std::string, std::string>> bodies;
  std::vector<std::string> rows;
  std::string good_id;
  {
    sim::RedfishFleet fleet([] {
      sim::RedfishFleetOptions o;
      o.mockup_dir = project_mockup("hgx-gpu-server");
      o.count = 2;
      o.password = kBmcPassword;
      o.reset_delay = 200ms;
      return o;
    }());
    fleet.start();
    Clouds clouds;
    CloudSyncOptions sync;
    sync.idle_wait = 100ms;
    TestServer server({}, {}, fast_poller(), sync);
    Recorder api{server.port(), server.token("admin"), {}};

    // Alert receivers, before anything goes wrong: one that answers, one that refuses
    // connections (its notifications are retried), one removed again; and refused requests
    // that carry a secret.
    WebhookReceiver hook;
    const std::string down_url =
        "http://127.0.0.1:" + std::to_string(free_loopback_port()) + "/alerts";
    const std::string hook_url = "http://127.0.0.1:" + std::to_string(hook.port()) + "/alerts";
    REQUIRE(api.send("POST", "/api/v1/alert-receivers",
                     {{"name", "pager-down"},
                      {"url", down_url},
                      {"secret", kReceiverSecret},
                      {"min_severity", "warning"},
                      {"project", nullptr}})
                .status == 201);
    REQUIRE(api.send("POST", "/api/v1/alert-receivers",
                     {{"name", "pager-live"},
                      {"url", hook_url},
                      {"secret", kLiveReceiverSecret},
                      {"min_severity", "warning"},
                      {"project", "default"}})
                .status == 201);
    REQUIRE(api.send("POST", "/api/v1/alert-receivers",
                     {{"name", "pager-gone"}, {"url", hook_url}, {"secret", kGoneReceiverSecret}})
                .status == 201);
    CHECK(api.send("POST", "/api/v1/alert-receivers",
                   {{"name", "pager-down"}, {"url", down_url}, {"secret", kRefusedReceiverSecret}})
              .status == 409);
    CHECK(api.send("POST", "/api/v1/alert-receivers",
                   {{"name", "pager-ftp"},
                    {"url", "ftp://127.0.0.1/alerts"},
                    {"secret", kRefusedReceiverSecret}})
              .status == 422);
    CHECK(api.send("POST", "/api/v1/alert-receivers",
                   {{"name", "pager-x"},
                    {"url", hook_url},
                    {"secret", kRefusedReceiverSecret},
                    {"min_severity", "info"}})
              .status == 422);
    CHECK(api.send("POST", "/api/v1/alert-receivers",
                   {{"name", "pager-x"},
                    {"url", hook_url},
                    {"secret", json::array({kRefusedReceiverSecret})}})
              .status == 400);
    CHECK(api.send("POST", "/api/v1/alert-receivers",
                   {{"name", "pager-x"},
                    {"url", hook_url},
                    {"secret", kRefusedReceiverSecret},
                    {"project", "no-such-project"}})
              .status == 422);
    CHECK(api.send("POST", "/api/v1/alert-receivers",
                   {{"name", "pager-x"},
                    {"url", hook_url},
                    {"secret", kRefusedReceiverSecret},
                    {"extra", kRefusedReceiverSecret}})
              .status == 422);
    CHECK(api.send("DELETE", "/api/v1/alert-receivers/pager-gone", json::object()).status == 204);

    // Owned servers: one with the right password, one with a wrong one (auth_failed).
    const auto good =
        api.send("POST", "/api/v1/nodes",
                 {{"name", "gpu-good"},
                  {"driver", "redfish"},
                  {"endpoint", fleet.endpoint(0)},
                  {"credentials", {{"username", "admin"}, {"password", kBmcPassword}}}});
    REQUIRE(good.status == 201);
    good_id = good.json()["id"];
    REQUIRE(api.send("POST", "/api/v1/nodes",
                     {{"name", "gpu-wrong"},
                      {"driver", "redfish"},
                      {"endpoint", fleet.endpoint(1)},
                      {"credentials", {{"username", "admin"}, {"password", kWrongPassword}}}})
                .status == 201);
    // Bad requests carrying secrets: refused without echoing them.
    api.send("POST", "/api/v1/nodes",
             {{"name", "bad name!"},
              {"driver", "redfish"},
              {"endpoint", fleet.endpoint(0)},
              {"credentials", {{"username", "admin"}, {"password", kWrongPassword}}}});
    api.send(
        "POST", "/api/v1/nodes",
        {{"name", "gpu-x"},
         {"driver", "redfish"},
         {"endpoint", fleet.endpoint(0)},
         {"credentials", {{"username", "admin"}, {"password", json::array({kWrongPassword})}}}});
    // Cloud accounts of every provider.
    REQUIRE(api.send("POST", "/api/v1/cloud-accounts",
                     {{"name", "aws"},
                      {"provider", "ec2"},
                      {"endpoint", "http://127.0.0.1:" + std::to_string(clouds.ec2_port) + "/"},
                      {"region", clouds.ec2->options().region},
                      {"credentials",
                       {{"access_key_id", clouds.ec2->options().access_key_id},
                        {"secret_access_key", kEc2Secret}}}})
                .status == 201);
    REQUIRE(
        api.send("POST", "/api/v1/cloud-accounts",
                 {{"name", "baidu"},
                  {"provider", "bcc"},
                  {"endpoint", "http://127.0.0.1:" + std::to_string(clouds.bcc_port)},
                  {"region", clouds.bcc->options().region},
                  {"credentials",
                   {{"access_key", clouds.bcc->options().access_key}, {"secret_key", kBccSecret}}}})
            .status == 201);
    REQUIRE(api.send("POST", "/api/v1/cloud-accounts",
                     {{"name", "private"},
                      {"provider", "openstack"},
                      {"endpoint", clouds.openstack->auth_url()},
                      {"region", "RegionOne"},
                      {"credentials",
                       {{"username", "admin"},
                        {"password", kOpenStackPassword},
                        {"user_domain_name", "Default"},
                        {"project_name", "gpu-team"},
                        {"project_domain_name", "Default"}}}})
                .status == 201);

    SseClient stream(server.port(), "/api/v1/stream", api.token);
    REQUIRE(stream.status() == 200);

    // The flows run: polls (one rejected), cloud syncs, a power task, a credential change.
    CHECK(
        eventually([&] { return api.get("/api/v1/nodes/gpu-good").json()["reachable"] == true; }));
    CHECK(eventually(
        [&] { return api.get("/api/v1/nodes/gpu-wrong").json()["last_error"] == "auth_failed"; }));
    CHECK(eventually(
        [&] { return api.get("/api/v1/nodes?source=cloud").json()["items"].size() >= 3; }));
    const auto task = api.send("POST", "/api/v1/nodes/gpu-good/power", {{"action", "cycle"}});
    REQUIRE(task.status == 202);
    const std::string task_id = task.json()["id"];
    CHECK(eventually([&] {
      const std::string state = api.get("/api/v1/tasks/" + task_id).json()["state"];
      return state == "succeeded" || state == "failed";
    }));
    api.send("PATCH", "/api/v1/nodes/gpu-wrong",
             {{"credentials", {{"username", "admin"}, {"password", kNewPassword}}}});
    api.send("PATCH", "/api/v1/cloud-accounts/aws",
             {{"credentials",
               {{"access_key_id", "AKIDNOTREAL"}, {"secret_access_key", kEc2Secret + "x"}}}});
    api.send("POST", "/api/v1/cloud-accounts/aws/sync", json::object());
    std::this_thread::sleep_for(2s);  // a few more polls and syncs, the wrong ones included

    // The refused password is an alert: notified, signed, to the receiver that answers, and
    // tried again and again at the one that refuses connections.
    CHECK(eventually([&] {
      const json alerts = api.get("/api/v1/alerts?source=auth_failed").json();
      for (const auto& a : alerts["items"])
        if (a["source"] == "auth_failed" && a["node_name"] == "gpu-wrong") return true;
      return false;
    }));
    CHECK(hook.wait_for(1));
    CHECK(eventually([&] {
      return server.database().execute(
                 "SELECT count(*) FROM alert_outbox o JOIN alert_receivers r ON r.id = "
                 "o.receiver_id WHERE r.name = 'pager-down' AND o.attempts >= 2 AND "
                 "o.delivered_at IS NULL AND o.last_error IS NOT NULL") != "0";
    }));
    for (const auto& note : hook.received()) {
      std::string seen = note.target + "\n" + note.body;
      for (const auto& [name, value] : note.headers) seen += "\n" + name + ": " + value;
      api.bodies.emplace_back("a notification to pager-live", seen);
    }

    // Pushed events: to the address of gpu-good's subscription (its secret recorded the way the
    // subscriber records it right before subscribing on the BMC: only its hash is kept, no key is
    // involved) and to addresses no subscription has, also with the wrong method, a query and a
    // path below them.
    const crypto::SecretBox no_key{crypto::Key{}};
    db::EventSubscriptionStore subscriptions(server.host().database(), no_key);
    subscriptions.expect_secret(good_id, kEventSecret);
    CHECK(api.push("POST", "/api/v1/redfish-events/" + kEventSecret, kPushedEvent).status == 204);
    CHECK(api.push("POST", "/api/v1/redfish-events/" + kEventSecret, {{"Events", "none"}}).status ==
          400);
    CHECK(api.push("POST", "/api/v1/redfish-events/" + kEventSecret + "?from=" + kEventSecret,
                   kPushedEvent)
              .status == 400);
    CHECK(api.push("POST", "/api/v1/redfish-events/" + kWrongEventSecret, kPushedEvent).status ==
          404);
    CHECK(api.push("GET", "/api/v1/redfish-events/" + kWrongEventSecret, json::object()).status ==
          405);
    CHECK(api.push("POST", "/api/v1/redfish-events/" + kWrongEventSecret + "/more", kPushedEvent)
              .status == 404);
    // Spelled with a percent-encoded hyphen, the address routes alike, and stays out of logs too.
    CHECK(api.push("POST", "/api/v1/redfish%2Devents/" + kEventSecret, kPushedEvent).status == 204);
    CHECK(api.push("POST", "/api/v1/redfish%2devents/" + kWrongEventSecret, kPushedEvent).status ==
          404);
    CHECK(eventually([&] {
      const json events = api.get("/api/v1/nodes/gpu-good/events").json();
      for (const auto& e : events["items"])
        if (e["message"] == "Fan 3 speed low") return true;
      return false;
    }));

    // A person's password: set, used, mistyped, changed.
    api.send("POST", "/api/v1/users",
             {{"name", "ops"},
              {"password", kUserPassword},
              {"roles", {{{"project", nullptr}, {"role", "operator"}}}}});
    for (const auto& password : {kUserWrongPassword, kUserPassword})
      api.send("POST", "/api/v1/session", {{"username", "ops"}, {"password", password}});
    api.send("PUT", "/api/v1/users/ops/password", {{"password", kUserNewPassword}});
    api.send("POST", "/api/v1/session", {{"username", "ops"}, {"password", kUserNewPassword}});
    api.send("POST", "/api/v1/users/ops/roles", {{"project", "default"}, {"role", "auditor"}});
    api.get("/api/v1/users");
    api.get("/api/v1/users/ops");

    // Everything that reads back what was stored.
    for (const char* target : {"/api/v1/nodes",
                               "/api/v1/nodes/gpu-good",
                               "/api/v1/nodes/gpu-wrong",
                               "/api/v1/nodes/gpu-good/components",
                               "/api/v1/nodes/gpu-good/firmware?history=true",
                               "/api/v1/nodes/gpu-good/sensors",
                               "/api/v1/nodes/gpu-good/events",
                               "/api/v1/nodes/gpu-good/event-subscription",
                               "/api/v1/events",
                               "/api/v1/alerts",
                               "/api/v1/alert-receivers",
                               "/api/v1/nodes/summary",
                               "/api/v1/cloud-accounts",
                               "/api/v1/cloud-accounts/aws",
                               "/api/v1/tasks",
                               "/api/v1/tokens",
                               "/api/v1/whoami",
                               "/metrics",
                               "/api/v1/audit?limit=1000",
                               "/api/v1/audit?format=csv",
                               "/api/v1/audit?format=ndjson",
                               "/api/v1/audit/verify",
                               "/api/v1/nodes/gpu-wrong/audit",
                               "/api/v1/export/assets",
                               "/api/v1/export/assets?format=json",
                               "/api/v1/export/assets?format=ndjson&lifecycle=retired",
                               "/api/v1/export/firmware?format=ndjson",
                               "/api/v1/export/firmware"})
      CHECK(api.get(target).status == 200);
    // What the change stream carried meanwhile (node, task and account changes as JSON).
    std::string streamed;
    try {
      for (int i = 0; i < 500; ++i) streamed += stream.next(2s).data + "\n";
    } catch (const std::exception&) {
      // two quiet seconds: everything so far is read
    }
    CHECK(!streamed.empty());
    api.bodies.emplace_back("GET /api/v1/stream", streamed);
    bodies = std::move(api.bodies);
    rows = every_row(server.database());
  }
  log::set_sink(nullptr);
  REQUIRE(bodies.size() > 30);
  REQUIRE(rows.size() > 30);
  // The receivers' rows, their notifications and the subscription are among what was read.
  auto stored = [&](const std::string& table) {
    for (const auto& row : rows)
      if (row.starts_with(table + ": ")) return row;
    return std::string();
  };
  CHECK(stored("alert_receivers").find("pager-live") != std::string::npos);
  CHECK(stored("alert_receivers").find("pager-gone") != std::string::npos);
  CHECK(stored("alert_outbox").find("auth_failed") != std::string::npos);
  CHECK(stored("event_subscriptions").find(good_id) != std::string::npos);
  std::lock_guard lock(sweep_mutex);
  CHECK(sweep_logs.find("\"msg\":\"request\"") != std::string::npos);  // the capture works
  for (const auto& marker : kMarkers) {
    INFO(marker);
    for (const auto& [what, body] : bodies) {
      INFO(what);
      CHECK(body.find(marker) == std::string::npos);
    }
    // A secret kept in a bytea column in clear shows as its bytes in hex.
    const std::string hex = crypto::to_hex(
        std::span(reinterpret_cast<const std::uint8_t*>(marker.data()), marker.size()));
    for (const auto& row : rows) {
      INFO(row.substr(0, row.find(':')));
      CHECK(row.find(marker) == std::string::npos);
      CHECK(row.find(hex) == std::string::npos);
    }
    CHECK(sweep_logs.find(marker) == std::string::npos);
  }
}

}  // namespace secrets_sweep_test
