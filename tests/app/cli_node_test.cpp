// The pure parts of `ironhold node`: flags → query strings and request bodies, nodes → tables,
// and CSV rows → enrollment bodies. The end-to-end behaviour is in cli_live_test.cpp.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "app/cli/args.hpp"
#include "app/cli/node_commands.hpp"
#include "inventory/error.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace cli_node_test {

using ironhold::cli::Args;
using ironhold::cli::UsageError;
using nlohmann::json;
namespace node = ironhold::cli::node;

namespace {

Args args(std::string_view sub, std::vector<std::string> argv) {
  Args a = node::make_args(sub);
  a.parse(argv);
  return a;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("node list: filters become the API's query parameters", "[cli][node]") {
  CHECK(node::list_query(args("list", {})) == "");
  CHECK(node::list_query(args("list", {"--health", "ok", "--power-state", "on", "-q", "gpu a",
                                       "--sort=-last_seen", "--maintenance", "off", "--tag",
                                       "team:ml", "--tag", "rack=r 1", "--limit", "5000"})) ==
        "?health=ok&power_state=on&q=gpu%20a&maintenance=false&tag=team%3Aml"
        "&tag=rack%3Ar%201&sort=-last_seen&limit=1000");
  CHECK_THROWS_AS(node::list_query(args("list", {"--maintenance", "maybe"})), UsageError);
  CHECK_THROWS_AS(node::list_query(args("list", {"--tag", "justakey"})), UsageError);
  CHECK_THROWS_AS(node::list_query(args("list", {"--limit", "0"})), UsageError);
  CHECK_THROWS(node::list_query(args("list", {"--limit", "ten"})));
}

TEST_CASE("node enroll: flags become the POST body", "[cli][node]") {
  const json body = node::enroll_body(args("enroll", {"gpu-a01",
                                                      "--driver",
                                                      "ipmi",
                                                      "--endpoint",
                                                      "ipmi://10.0.0.5",
                                                      "--username",
                                                      "admin",
                                                      "--site",
                                                      "dc1",
                                                      "--rack",
                                                      "r12",
                                                      "--unit",
                                                      "7",
                                                      "--tag",
                                                      "team=ml",
                                                      "--tag",
                                                      "tier = gold",
                                                      "--option",
                                                      "cipher_suites=17,3",
                                                      "--option",
                                                      "privilege=admin",
                                                      "--option",
                                                      "kg=00ff"}),
                                      std::string("s3cret"));
  CHECK(body == json::parse(R"({
    "name": "gpu-a01", "driver": "ipmi", "endpoint": "ipmi://10.0.0.5",
    "credentials": {"username": "admin", "password": "s3cret"},
    "location": {"site": "dc1", "rack": "r12", "unit": 7},
    "tags": {"team": "ml", "tier": "gold"},
    "options": {"cipher_suites": [17, 3], "privilege": "admin", "kg": "00ff"}})"));

  const json minimal = node::enroll_body(
      args("enroll", {"n", "--driver", "redfish", "--endpoint", "https://b"}), std::nullopt);
  CHECK(minimal == json{{"name", "n"}, {"driver", "redfish"}, {"endpoint", "https://b"}});
}

TEST_CASE("node enroll: missing or malformed flags are usage errors", "[cli][node]") {
  auto body = [](std::vector<std::string> argv) {
    return node::enroll_body(args("enroll", std::move(argv)), std::nullopt);
  };
  CHECK(error_of([&] { body({"n", "--endpoint", "e"}); }) == "--driver is required");
  CHECK(error_of([&] {
          body({"--driver", "d", "--endpoint", "e"});
        }) == "expected exactly one NAME argument, got 0");
  CHECK(error_of([&] {
          body({"n", "--driver", "d", "--endpoint", "e", "--unit", "7a"});
        }) == "--unit must be a whole number, not \"7a\"");
  CHECK(error_of([&] {
          body({"n", "--driver", "d", "--endpoint", "e", "--tag", "x"});
        }) == "--tag takes KEY=VALUE, not \"x\"");
  CHECK(error_of([&] {
          body({"n", "--driver", "d", "--endpoint", "e", "--option", "cipher_suites=3,x"});
        }) == "each cipher suite must be a whole number, not \"x\"");
}

TEST_CASE("node set: flags become an RFC 7396 merge patch", "[cli][node]") {
  const json body = node::patch_body(
      args("set", {"gpu-a01", "--endpoint", "ipmi://10.0.0.6", "--site", "", "--unit", "9", "--tag",
                   "team=infra", "--untag", "tier", "--option", "tls=pin", "--unset-option", "kg",
                   "--maintenance", "on", "--reason", "fan swap"}),
      std::nullopt);
  CHECK(body == json::parse(R"({
    "endpoint": "ipmi://10.0.0.6", "location": {"site": null, "unit": 9},
    "tags": {"team": "infra", "tier": null}, "options": {"tls": "pin", "kg": null},
    "maintenance": true, "maintenance_reason": "fan swap"})"));

  CHECK(node::patch_body(args("set", {"n", "--username", "u"}), std::string("p")) ==
        json::parse(R"({"credentials": {"username": "u", "password": "p"}})"));
  CHECK(node::patch_body(args("set", {"n", "--maintenance", "off"}), std::nullopt) ==
        json{{"maintenance", false}});
}

TEST_CASE("node set: nothing to change, half credentials, bad maintenance", "[cli][node]") {
  CHECK_THROWS_AS(node::patch_body(args("set", {"n"}), std::nullopt), UsageError);
  CHECK_THROWS_AS(node::patch_body(args("set", {"n", "--username", "u"}), std::nullopt),
                  UsageError);
  CHECK_THROWS_AS(node::patch_body(args("set", {"n"}), std::string("p")), UsageError);
  CHECK_THROWS_AS(node::patch_body(args("set", {"n", "--maintenance", "1"}), std::nullopt),
                  UsageError);
}

TEST_CASE("node: unknown subcommand and unknown option", "[cli][node]") {
  CHECK_THROWS_AS(node::make_args("frobnicate"), UsageError);
  CHECK_THROWS_AS(args("list", {"--frobnicate"}), UsageError);
  CHECK(args("show", {"x", "-o", "json", "--url", "http://h:1", "--token", "t"}).get("output") ==
        "json");
}

TEST_CASE("node list: one table row per node, maintenance marked", "[cli][node]") {
  const auto now = *ironhold::parse_rfc3339("2026-01-01T12:00:00Z");
  const json n = json::parse(R"({
    "name": "gpu-a01", "health": "warning", "power_state": "on", "driver": "redfish",
    "endpoint": "https://10.0.0.5", "location": {"site": "dc1", "rack": "r12", "unit": 7},
    "lifecycle": "deployed", "maintenance": true, "last_seen": "2026-01-01T11:55:00Z"})");
  CHECK(node::list_row(n, now) == std::vector<std::string>{"gpu-a01", "warning", "on", "redfish",
                                                           "https://10.0.0.5", "dc1/r12/7",
                                                           "deployed (maint)", "5m ago"});
  const json bare = json::parse(R"({"name": "c", "location": {"site": null}, "last_seen": null,
                                   "maintenance": false, "lifecycle": "available"})");
  CHECK(node::list_row(bare, now) ==
        std::vector<std::string>{"c", "", "", "", "", "", "available", "never"});
}

TEST_CASE("node show: key/value view summarises options and never shows secrets", "[cli][node]") {
  const json n = json::parse(R"({
    "id": "7f3c", "name": "gpu-a01", "tags": {"team": "ml"}, "credentials_set": true,
    "options": {"tls": "ca", "ca_bundle": "-----BEGIN CERTIFICATE-----\nAAAA\n",
                "cipher_suites": [17, 3]},
    "maintenance": true, "maintenance_reason": "fan swap", "reachable": false})");
  const std::string text = node::show_text(n);
  INFO(text);
  CHECK(text.find("Name:          gpu-a01\n") != std::string::npos);
  CHECK(text.find("Tags:          team=ml\n") != std::string::npos);
  CHECK(text.find("Options:       ca_bundle=(PEM, 33 bytes), cipher_suites=17,3, tls=ca\n") !=
        std::string::npos);
  CHECK(text.find("Maintenance:   yes (fan swap)\n") != std::string::npos);
  CHECK(text.find("Credentials:   set\n") != std::string::npos);
  CHECK(text.find("Reachable:     no\n") != std::string::npos);
}

TEST_CASE("node import: a CSV row becomes an enrollment body", "[cli][node][import]") {
  const node::ImportMapper mapper({"Name", " driver ", "endpoint", "username", "password", "site",
                                   "rack", "unit", "tags", "options", "tag:Owner", "tls",
                                   "cipher_suites", "privilege", "kg", "ca_bundle"});
  const std::vector<std::string> row = {" gpu-a01 ",
                                        "ipmi",
                                        "ipmi://10.0.0.5",
                                        "admin",
                                        " pass word ",
                                        "dc1",
                                        "r12",
                                        "7",
                                        "team=ml; tier=gold;",
                                        R"({"tls":"insecure","extra":1})",
                                        "alice",
                                        "pin",
                                        "17;3",
                                        "admin",
                                        "",
                                        ""};
  CHECK(mapper.name(row) == "gpu-a01");
  CHECK(mapper.body(row) == json::parse(R"({
    "name": "gpu-a01", "driver": "ipmi", "endpoint": "ipmi://10.0.0.5",
    "credentials": {"username": "admin", "password": " pass word "},
    "location": {"site": "dc1", "rack": "r12", "unit": 7},
    "tags": {"team": "ml", "tier": "gold", "Owner": "alice"},
    "options": {"tls": "pin", "extra": 1, "cipher_suites": [17, 3], "privilege": "admin"}})"));
}

TEST_CASE("node import: empty cells are left out", "[cli][node][import]") {
  const node::ImportMapper mapper({"name", "driver", "endpoint", "site", "unit", "tags"});
  CHECK(mapper.body({"n", "redfish", "https://b", "", " ", ""}) ==
        json{{"name", "n"}, {"driver", "redfish"}, {"endpoint", "https://b"}});
}

TEST_CASE("node import: a bad cell fails its row, naming the column", "[cli][node][import]") {
  const node::ImportMapper mapper({"name", "unit", "tags", "options", "cipher_suites"});
  CHECK(error_of([&] {
          mapper.body({"n", "seven", "", "", ""});
        }) == "column unit must be a whole number, not \"seven\"");
  CHECK(error_of([&] {
          mapper.body({"n", "", "team", "", ""});
        }) == "column tags takes KEY=VALUE, not \"team\"");
  CHECK(error_of([&] {
          mapper.body({"n", "", "", "[1]", ""});
        }).starts_with("column options must hold a JSON object"));
  CHECK(error_of([&] {
          mapper.body({"n", "", "", "{", ""});
        }).starts_with("column options must hold a JSON object"));
  CHECK(error_of([&] {
          mapper.body({"n", "", "", "", "17,x"});
        }) == "each cipher suite must be a whole number, not \"x\"");
}

TEST_CASE("node import: the header is checked before any row", "[cli][node][import]") {
  CHECK(error_of([] {
          node::ImportMapper({"name", "colour"});
        }).starts_with("unknown column \"colour\""));
  CHECK(error_of([] { node::ImportMapper({"name", "Name"}); }) == "column \"Name\" appears twice");
  CHECK(error_of([] {
          node::ImportMapper({"name", "tag:"});
        }) == "column \"tag:\" needs a tag key after \"tag:\"");
  CHECK(error_of([] {
          node::ImportMapper({"driver", "endpoint"});
        }) == "the header has no \"name\" column");
  CHECK_NOTHROW(node::ImportMapper({"name", "tag:a", "tag:b"}));
}

}  // namespace cli_node_test
