// A node's serial console through the service: GET /api/v1/nodes/{id}/console as a WebSocket over
// real loopback HTTP (Beast's own client), the simulated IPMI BMC's Serial-over-LAN behind it, the
// output kept in PostgreSQL (console/log) and the sessions listed (console/sessions). Expected
// text comes from the simulated host (what it printed and received, by its own record).
#include <algorithm>
#include <catch2/catch.hpp>

#include "sim/ipmi/fleet.hpp"
#include "sim/redfish/fleet.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"
#include "tests/support/server/websocket_client.hpp"
#include "tests/web/tasks/task_helpers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace serial_console_routes_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

sim::IpmiFleetOptions fleet_on(const std::string& address) {
  sim::IpmiFleetOptions options;
  options.listen = address + ":0";
  options.cycle_delay = 300ms;
  return options;
}

std::string enroll_ipmi(TestServer& server, const std::string& token, const std::string& name,
                        const std::string& endpoint) {
  const auto res = http_send(server.port(), "POST", "/api/v1/nodes",
                             {{"name", name},
                              {"driver", "ipmi"},
                              {"endpoint", endpoint},
                              {"options", {{"cipher_suites", {17, 3}}}},
                              {"credentials", {{"username", "admin"}, {"password", "password"}}}},
                             token);
  INFO(res.body);
  REQUIRE(res.status == 201);
  return res.json()["id"];
}

std::map<std::string, std::string> bearer(const std::string& token) {
  return {{"Authorization", "Bearer " + token}};
}

// A simulated IPMI BMC of its own on `address`, the service, an operator's token, and the BMC
// enrolled as `name`.
struct ConsoleSetup {
  ConsoleSetup(const std::string& address, const std::string& name) : fleet(fleet_on(address)) {
    fleet.start();
    token = server.token("operator");
    id = enroll_ipmi(server, token, name, fleet.endpoint(0));
  }
  sim::IpmiFleet fleet;
  TestServer server;
  std::string token, id;
};

std::string console_path(const std::string& id) {
  return "/api/v1/nodes/" + id + "/console";
}

// Every chunk of the node's console log, page after page, as text.
std::string whole_log(TestServer& server, const std::string& token, const std::string& id) {
  std::string out;
  long long after = 0;
  for (;;) {
    const auto res = http_get(
        server.port(), console_path(id) + "/log?limit=5&after=" + std::to_string(after), token);
    REQUIRE(res.status == 200);
    const json page = res.json();
    for (const auto& chunk : page["chunks"]) out += chunk["data"].get<std::string>();
    if (!page["more"].get<bool>()) return out;
    after = page["next_after"];
  }
}

}  // namespace

TEST_CASE("an operator types into a node's console over a WebSocket while another watches",
          "[console][e2e][ipmi]") {
  ConsoleSetup setup("127.0.88.10", "sol-u1");
  auto& [fleet, server, alice, id] = setup;
  const auto bob = server.token("operator");

  WebSocketClient writer(server.port(), console_path(id), bearer(alice));
  REQUIRE(writer.upgraded());
  const auto hello = writer.next_control();
  REQUIRE(hello);
  CHECK((*hello)["type"] == "attached");
  CHECK((*hello)["writer"] == true);
  CHECK((*hello)["protocol"] == "ipmi-sol");
  CHECK((*hello)["node_id"] == id);

  WebSocketClient watcher(server.port(), console_path(id), bearer(bob));
  REQUIRE(watcher.upgraded());
  const auto second = watcher.next_control();
  REQUIRE(second);
  CHECK((*second)["writer"] == false);
  // One BMC console for both.
  CHECK(fleet.state(0).console()["active"] == true);

  writer.send_binary("hello\r");
  REQUIRE(writer.read_until("hello"));
  REQUIRE(watcher.read_until("hello"));
  CHECK(fleet.state(0).console()["received"] == "hello\r");

  // The watcher's keys never reach the host; it is told why.
  watcher.send_binary("rm -rf /\r");
  const auto refusal = watcher.next_control();
  REQUIRE(refusal);
  CHECK((*refusal)["type"] == "refused");
  CHECK((*refusal)["reason"].get<std::string>().find("read-only") != std::string::npos);
  CHECK(fleet.state(0).console()["received"] == "hello\r");

  // What the host prints reaches both.
  fleet.state(0).console_print("Kernel panic - not syncing: Fatal exception\r\n");
  CHECK(writer.read_until("Kernel panic - not syncing"));
  CHECK(watcher.read_until("Kernel panic - not syncing"));

  // An unknown control message is refused, not taken as keys.
  writer.send_text(R"({"type":"paste","data":"x"})");
  const auto unknown = writer.next_control();
  REQUIRE(unknown);
  CHECK((*unknown)["type"] == "refused");

  watcher.close();
  writer.close();
  CHECK(eventually([&] { return fleet.state(0).console()["active"] == false; }));

  // Both sessions are listed with who had them, and the writer's keys are counted (the rows are
  // closed by the hub's database pool, a moment after the BMC's console).
  json sessions;
  CHECK(eventually([&] {
    sessions = http_get(server.port(), console_path(id) + "/sessions", alice).json()["items"];
    return std::all_of(sessions.begin(), sessions.end(),
                       [](const json& s) { return !s["closed_at"].is_null(); });
  }));
  REQUIRE(sessions.size() == 2);
  int writers = 0;
  for (const auto& s : sessions) {
    CHECK_FALSE(s["closed_at"].is_null());
    CHECK(s["end_reason"] == "closed by the viewer");
    if (s["writer"] == true) {
      ++writers;
      CHECK(s["bytes_in"] == 6);
    }
  }
  CHECK(writers == 1);
}

TEST_CASE("a node's console log keeps what it printed through a power cycle, byte for byte",
          "[console][e2e][ipmi]") {
  ConsoleSetup setup("127.0.88.11", "sol-u2");
  auto& [fleet, server, token, id] = setup;

  WebSocketClient console(server.port(), console_path(id), bearer(token));
  REQUIRE(console.upgraded());
  REQUIRE(console.next_control());
  const json task =
      wait_task_end(server, token, start_task(server, token, id, "power", {{"action", "cycle"}}));
  INFO(task.dump(2));
  CHECK(task["state"] == "succeeded");
  // Up to the boot's last line, the login prompt: closing earlier could leave its last lines to
  // the host's history alone (the SOL console gone before they were sent), not to the log.
  REQUIRE(console.read_until("Reached target multi-user.target"));
  REQUIRE(console.read_until("sim-node-0 login: "));
  console.close();

  // The host's own record of what it printed since the console opened is in the log, in order.
  const std::string history = fleet.state(0).console()["history"];
  const auto boot = history.find("reboot: Power down");
  REQUIRE(boot != std::string::npos);
  const std::string printed = history.substr(boot);
  CHECK(
      eventually([&] { return whole_log(server, token, id).find(printed) != std::string::npos; }));
  const auto raw = http_get(server.port(), console_path(id) + "/log?format=raw&limit=1000", token);
  REQUIRE(raw.status == 200);
  CHECK(raw.header("content-type") == "application/octet-stream");
  CHECK(raw.body.find(printed) != std::string::npos);
  CHECK(raw.body == whole_log(server, token, id));
  // since= in the future selects nothing.
  const auto later =
      http_get(server.port(), console_path(id) + "/log?since=2999-01-01T00:00:00Z", token);
  REQUIRE(later.status == 200);
  CHECK(later.json()["chunks"].empty());
}

TEST_CASE("the console route refuses what it must, before any upgrade", "[console][e2e]") {
  ConsoleSetup setup("127.0.88.12", "sol-u3");
  auto& [fleet, server, operator_token, id] = setup;
  const auto viewer_token = server.token("viewer");

  // A viewer may not have a console (not even a read-only one): 403, no upgrade.
  WebSocketClient viewer(server.port(), console_path(id), bearer(viewer_token));
  CHECK_FALSE(viewer.upgraded());
  CHECK(viewer.status() == 403);
  CHECK(http_get(server.port(), console_path(id) + "/log", viewer_token).status == 403);

  // No credential at all.
  WebSocketClient nobody(server.port(), console_path(id), {});
  CHECK(nobody.status() == 401);

  // A plain GET is told it needs the upgrade.
  const auto plain = http_get(server.port(), console_path(id), operator_token);
  CHECK(plain.status == 426);
  CHECK(plain.header("upgrade") == "websocket");

  // Unknown nodes, bad parameters.
  WebSocketClient missing(server.port(), console_path("no-such-node"), bearer(operator_token));
  CHECK(missing.status() == 404);
  WebSocketClient bad_mode(server.port(), console_path(id) + "?mode=admin", bearer(operator_token));
  CHECK(bad_mode.status() == 400);
  CHECK(http_get(server.port(), console_path(id) + "/log?after=-1", operator_token).status == 400);
  CHECK(http_get(server.port(), console_path(id) + "/log?format=pdf", operator_token).status ==
        400);

  // A console session's cookie from a page elsewhere (cross-site WebSocket hijacking).
  HttpRequest sign_in;
  sign_in.method = "POST";
  sign_in.target = "/api/v1/session";
  sign_in.body = json{{"token", operator_token}}.dump();
  const auto session = http_request(server.port(), sign_in);
  REQUIRE(session.status == 201);
  const std::string set_cookie = session.header("set-cookie");
  const std::string cookie = set_cookie.substr(0, set_cookie.find(';'));
  WebSocketClient elsewhere(server.port(), console_path(id),
                            {{"Cookie", cookie}, {"Origin", "https://evil.example"}});
  CHECK_FALSE(elsewhere.upgraded());
  CHECK(elsewhere.status() == 403);
  CHECK(fleet.state(0).console()["active"] == false);
  // The console's own page may.
  WebSocketClient own(
      server.port(), console_path(id),
      {{"Cookie", cookie}, {"Origin", "http://127.0.0.1:" + std::to_string(server.port())}});
  CHECK(own.upgraded());
  own.close();

  // A Redfish BMC whose Manager advertises no SSH serial console: 422, saying so.
  sim::RedfishFleetOptions without;
  without.mockup_dir = project_mockup("compute-server");
  without.listen = "127.0.88.12:0";
  sim::RedfishFleet no_console(without);
  no_console.start();
  const std::string redfish = enroll_redfish(server, operator_token, "sol-redfish",
                                             no_console.endpoint(0), without.password);
  WebSocketClient unsupported(server.port(), console_path(redfish), bearer(operator_token));
  CHECK_FALSE(unsupported.upgraded());
  CHECK(unsupported.status() == 422);
  CHECK_THAT(unsupported.body(), Catch::Contains("SerialConsole"));

  // A wrong BMC password: the BMC refuses the console, 503 with its reason.
  const auto changed =
      http_send(server.port(), "PATCH", "/api/v1/nodes/" + id,
                {{"credentials", {{"username", "admin"}, {"password", "nope"}}}}, operator_token);
  REQUIRE(changed.status == 200);
  WebSocketClient refused(server.port(), console_path(id), bearer(operator_token));
  CHECK_FALSE(refused.upgraded());
  CHECK(refused.status() == 503);
}

TEST_CASE("a service that stops ends its consoles, saying so, and closes their sessions",
          "[console][e2e][ipmi]") {
  ConsoleSetup setup("127.0.88.13", "sol-u4");
  auto& [fleet, server, token, id] = setup;
  WebSocketClient console(server.port(), console_path(id), bearer(token));
  REQUIRE(console.upgraded());
  REQUIRE(console.next_control());

  std::thread stopping([&] { server.host().stop(); });
  CHECK(console.until_closed(30s));
  stopping.join();
  CHECK(console.close_code() == 1001);
  bool told = false;
  for (const auto& c : console.controls())
    told = told || (c["type"] == "ended" && c["reason"] == "the service is stopping");
  CHECK(told);
  CHECK(eventually([&] { return fleet.state(0).console()["active"] == false; }));
  CHECK(server.database().execute("SELECT count(*) FROM serial_console_sessions") == "1");
  CHECK(server.database().execute("SELECT end_reason FROM serial_console_sessions") ==
        "the service is stopping");
}

TEST_CASE(
    "a Redfish node's SSH console: its host key pinned at first use, refused once it "
    "changes, and repinned",
    "[console][e2e][redfish][ssh]") {
  sim::RedfishFleetOptions options;
  options.mockup_dir = project_mockup("hgx-gpu-server");
  options.listen = "127.0.88.17:0";
  options.password = "Sup3r-Secret-BMC";
  options.reset_delay = 200ms;
  options.ssh_consoles = true;
  sim::RedfishFleet fleet(options);
  fleet.start();
  TestServer server;
  const auto token = server.token("operator");
  const auto admin = server.token("admin");
  const std::string id =
      enroll_redfish(server, token, "gpu-ssh", fleet.endpoint(0), options.password);
  const std::string first_key = fleet.ssh_host_key_fingerprint(0);

  {
    WebSocketClient console(server.port(), console_path(id), bearer(token));
    REQUIRE(console.upgraded());
    const auto hello = console.next_control();
    REQUIRE(hello);
    CHECK((*hello)["protocol"] == "ssh");
    CHECK((*hello)["writer"] == true);
    console.send_binary("root\r");
    REQUIRE(console.read_until("Login incorrect"));
    CHECK(fleet.state(0).console()["received"] == "root\r");
    console.close();
  }
  // Pinned on first use: the key the BMC holds, on the node and in the audit log.
  CHECK(eventually([&] {
    return http_get(server.port(), "/api/v1/nodes/" + id, token).json()["ssh_host_key"] ==
           first_key;
  }));
  CHECK(eventually([&] {
    return server.database().execute(
               "SELECT coalesce(max(details ->> 'ssh_host_key'), '') FROM audit_log "
               " WHERE action = 'serial_console.ssh_host_key_pinned'") == first_key;
  }));
  // The BMC's password reached neither the kept output nor the session records.
  CHECK(eventually([&] { return !whole_log(server, token, id).empty(); }));
  CHECK(whole_log(server, token, id).find(options.password) == std::string::npos);
  CHECK(
      http_get(server.port(), console_path(id) + "/sessions", token).body.find(options.password) ==
      std::string::npos);

  // Another key: refused before any login, with both keys named.
  const std::string second_key = fleet.change_ssh_host_key(0);
  const auto logins = fleet.state(0).counters().ssh_logins;
  {
    WebSocketClient refused(server.port(), console_path(id), bearer(token));
    CHECK_FALSE(refused.upgraded());
    CHECK(refused.status() == 503);
    CHECK_THAT(refused.body(), Catch::Contains(second_key) && Catch::Contains(first_key));
    CHECK_THAT(refused.body(), !Catch::Contains(options.password));
  }
  CHECK(fleet.state(0).counters().ssh_logins == logins);

  // An admin repins: the key is forgotten, and the next console pins the new one.
  const auto repinned =
      http_send(server.port(), "POST", "/api/v1/nodes/" + id + "/tls/repin", json::object(), admin);
  REQUIRE(repinned.status == 200);
  CHECK(repinned.json()["ssh_host_key"].is_null());
  {
    WebSocketClient console(server.port(), console_path(id), bearer(token));
    REQUIRE(console.upgraded());
    console.close();
  }
  CHECK(eventually([&] {
    return http_get(server.port(), "/api/v1/nodes/" + id, token).json()["ssh_host_key"] ==
           second_key;
  }));
}

}  // namespace serial_console_routes_test
