// `ironhold console NODE` in a pseudo-terminal, as an operator runs it: the real binary against a
// real service and the simulated IPMI BMC's Serial-over-LAN. What the simulated host received
// (its own record) is the expected text: keys as typed in raw mode (Ctrl-C included), the "~."
// escape kept to ourselves.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/ipmi/fleet.hpp"
#include "tests/app/cli_run.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/pty_process.hpp"
#include "tests/support/server/test_server.hpp"
#include "tests/support/server/tls_client.hpp"
#include "web/tls_context.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace cli_console_test {

#ifdef IRONHOLD_BINARY
using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

struct Setup {
  sim::IpmiFleet fleet;
  TestServer server;
  std::string token;
  std::string id;

  // With `cacert`, the service speaks TLS (`options.tls`) and the node is enrolled through the CLI,
  // which trusts that certificate; else over plain HTTP.
  explicit Setup(const std::string& bmc_address, web::ServerOptions options = {},
                 const std::string& cacert = {})
      : fleet([&] {
          sim::IpmiFleetOptions o;
          o.listen = bmc_address + ":0";
          o.cycle_delay = 300ms;
          return o;
        }()),
        server(std::move(options)) {
    fleet.start();
    token = server.token("operator");
    if (!cacert.empty()) {
      const Run enrolled =
          run_cli({"node", "enroll", "cli-sol", "--driver", "ipmi", "--endpoint", fleet.endpoint(0),
                   "--username", "admin", "--password-stdin", "-o", "json"},
                  {{"IRONHOLD_URL", "https://127.0.0.1:" + std::to_string(server.port())},
                   {"IRONHOLD_TOKEN", token},
                   {"IRONHOLD_CACERT", cacert}},
                  "password\n");
      INFO(enrolled.err);
      REQUIRE(enrolled.status == 0);
      id = json::parse(enrolled.out)["id"];
      return;
    }
    const auto res = http_send(server.port(), "POST", "/api/v1/nodes",
                               {{"name", "cli-sol"},
                                {"driver", "ipmi"},
                                {"endpoint", fleet.endpoint(0)},
                                {"options", {{"cipher_suites", {17, 3}}}},
                                {"credentials", {{"username", "admin"}, {"password", "password"}}}},
                               token);
    REQUIRE(res.status == 201);
    id = res.json()["id"];
  }
  std::string received() { return fleet.state(0).console()["received"]; }
};

}  // namespace

TEST_CASE("ironhold console attaches a terminal to a node's serial console", "[cli][console]") {
  Setup setup("127.0.88.14");
  PtyProcess cli({IRONHOLD_BINARY, "console", "cli-sol", "--url", setup.server.url()},
                 {{"IRONHOLD_TOKEN", setup.token}});
  REQUIRE(cli.wait_for("you have the keyboard", 30s));
  // The CLI made its terminal raw: keys are not edited or cooked on their way to the host.
  REQUIRE(cli.wait_until_raw());
  REQUIRE(cli.type("hello\r"));
  CHECK(cli.wait_for("hello"));
  CHECK(eventually([&] { return setup.received() == "hello\r"; }));
  // Raw mode: Ctrl-C is a key for the host, not a signal for ironhold.
  REQUIRE(cli.type("\x03"));
  CHECK(eventually([&] { return setup.received() == "hello\r\x03"; }));
  // A "~" inside a line is an ordinary key; "~~" at the start of one sends one "~".
  REQUIRE(cli.type("a~b\r~~\r"));
  CHECK(eventually([&] {
    return setup.received() ==
           "hello\r\x03"
           "a~b\r~\r";
  }));
  // "~." at the start of a line leaves; it never reaches the host.
  REQUIRE(cli.type("~."));
  CHECK(cli.wait_exit(30s) == 0);
  CHECK(eventually([&] { return setup.fleet.state(0).console()["active"] == false; }));
  CHECK(setup.received() ==
        "hello\r\x03"
        "a~b\r~\r");
  // The session's row is closed by the hub's database pool, a moment after the BMC's console.
  json sessions;
  CHECK(eventually([&] {
    sessions = http_get(setup.server.port(), "/api/v1/nodes/" + setup.id + "/console/sessions",
                        setup.token)
                   .json()["items"];
    return sessions.size() == 1 && !sessions[0]["closed_at"].is_null();
  }));
  REQUIRE(sessions.size() == 1);
  CHECK(sessions[0]["end_reason"] == "closed by the viewer");
  CHECK(sessions[0]["bytes_in"] == setup.received().size());
}

TEST_CASE("ironhold console says why a console cannot be opened", "[cli][console]") {
  Setup setup("127.0.88.15");
  const std::map<std::string, std::string> viewer{{"IRONHOLD_URL", setup.server.url()},
                                                  {"IRONHOLD_TOKEN", setup.server.token("viewer")}};
  const Run refused = run_cli({"console", "cli-sol"}, viewer);
  CHECK(refused.status == 1);
  CHECK(refused.err.find("HTTP 403") != std::string::npos);
  CHECK(refused.err.find("operator") != std::string::npos);

  const std::map<std::string, std::string> operator_env{{"IRONHOLD_URL", setup.server.url()},
                                                        {"IRONHOLD_TOKEN", setup.token}};
  const Run missing = run_cli({"console", "no-such-node"}, operator_env);
  CHECK(missing.status == 1);
  CHECK(missing.err.find("HTTP 404") != std::string::npos);

  const Run no_token = run_cli({"console", "cli-sol"}, {{"IRONHOLD_URL", setup.server.url()}});
  CHECK(no_token.status == 2);
  const Run two = run_cli({"console", "a", "b"}, operator_env);
  CHECK(two.status == 2);

  // Nothing listens there.
  const Run nobody = run_cli({"console", "cli-sol"},
                             {{"IRONHOLD_URL", "http://127.0.0.1:1"}, {"IRONHOLD_TOKEN", "t"}});
  CHECK(nobody.status == 1);
  CHECK(nobody.err.find("cannot connect") != std::string::npos);
  CHECK(setup.fleet.state(0).console()["active"] == false);
}

TEST_CASE("ironhold console speaks TLS to a service with its own certificate, verifying it",
          "[cli][console][tls]") {
  CertificateFiles files;
  web::ServerOptions options;
  options.tls = web::make_server_tls_context(files.cert, files.key);
  Setup setup("127.0.88.16", std::move(options), files.cert);
  const std::string url = "https://127.0.0.1:" + std::to_string(setup.server.port());

  // The certificate is self-signed: without --cacert the CLI does not trust it, and sends nothing.
  const Run untrusted =
      run_cli({"console", "cli-sol"}, {{"IRONHOLD_URL", url}, {"IRONHOLD_TOKEN", setup.token}});
  CHECK(untrusted.status == 1);
  CHECK(untrusted.err.find("TLS") != std::string::npos);
  CHECK(setup.fleet.state(0).console()["active"] == false);

  PtyProcess cli({IRONHOLD_BINARY, "console", "cli-sol", "--url", url, "--cacert", files.cert},
                 {{"IRONHOLD_TOKEN", setup.token}});
  REQUIRE(cli.wait_for("you have the keyboard", 30s));
  REQUIRE(cli.wait_until_raw());
  REQUIRE(cli.type("over tls\r"));
  CHECK(cli.wait_for("over tls"));
  CHECK(eventually([&] { return setup.received() == "over tls\r"; }));
  REQUIRE(cli.type("~."));
  CHECK(cli.wait_exit(30s) == 0);
}

#endif

}  // namespace cli_console_test
