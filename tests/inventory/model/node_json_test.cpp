// The node JSON written as text (append_json, json_text) against nlohmann::json's own dump of
// to_json: the API's list answers are written the fast way, and must be the very same bytes.
#include <catch2/catch.hpp>
#include <random>

#include "inventory/model/json_text.hpp"
#include "inventory/model/node.hpp"
#include "inventory/util/concat.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace node_json_test {

using ironhold::Node;
using nlohmann::json;

namespace {

std::string dumped(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string written(const Node& node) {
  std::string out = "prefix kept:";
  ironhold::append_json(out, node);
  REQUIRE(out.rfind("prefix kept:", 0) == 0);
  return out.substr(12);
}

std::string written_string(std::string_view text) {
  std::string out;
  ironhold::json_text::append_string(out, text);
  return out;
}

Node full_node() {
  Node n;
  n.id = "0b6f6c1e-6a55-4c1f-9a6e-3f2f1d9b7c10";
  n.name = "gpu-a17";
  n.project = "research \"blue\"";
  n.source = ironhold::Source::cloud;
  n.driver = "redfish";
  n.endpoint = "https://10.0.0.17:443";
  n.options = {{"tls", "insecure"}, {"timeout_ms", 2500}, {"ratio", 0.125}};
  n.location = {"fra1", "R\\07", 31};
  n.tags = {{"team", "vision"}, {"note", "tab\there, line\nthere, bell\x07, del\x7f"}};
  n.manufacturer = "Société Générale de Serveurs";
  n.model = "HGX \xF0\x9F\x9A\x80 B200";  // a 4-byte sequence
  n.serial = "SN\x01\x1f";
  n.asset_tag = "";
  n.provider_id = "i-0abc";
  n.cloud_account_id = "5a0f2f7e-5b8e-4c55-9a2c-1f0e2d3c4b5a";
  n.power_state = ironhold::PowerState::on;
  n.health = ironhold::Health::critical;
  n.reachable = false;
  n.last_error = "timeout";
  n.last_error_message = "no answer within 30 s from /redfish/v1/Systems/1";
  n.lifecycle = ironhold::Lifecycle::available;
  n.maintenance = true;
  n.maintenance_reason = "GPU 3 \"fell off the bus\"";
  n.credentials_set = true;
  // Some summary fields, one of another type than usual, and one the summary does not have.
  n.hardware = {{"gpu_count", 8},       {"gpu_model", "B200"}, {"memory_gib", 2048.5},
                {"cpu_model", nullptr}, {"drive_count", "3"},  {"not_a_summary_field", 1}};
  n.identity = {{"uuid", "x"}, {"nested", {{"list", {1, 2.5, "three", nullptr, true}}}}};
  n.tls_fingerprint = "AB:CD";
  n.parent_id = "1b6f6c1e-6a55-4c1f-9a6e-3f2f1d9b7c10";
  n.system_id = "System.Embedded.1";
  n.last_inspected = "2026-11-30T10:00:00.000001Z";
  n.last_seen = "2026-12-01T00:00:00.000000Z";
  n.created_at = "2026-01-01T00:00:00.000000Z";
  n.updated_at = "2026-12-01T00:00:01.000000Z";
  n.retired_at = "2026-12-02T00:00:00.000000Z";
  return n;
}

}  // namespace

TEST_CASE("a node written as text is to_json's dump, byte for byte", "[model][json]") {
  SECTION("every field set, with quotes, escapes, control characters and UTF-8") {
    const Node n = full_node();
    CHECK(written(n) == dumped(to_json(n)));
    CHECK(json::parse(written(n))["warnings"].size() == 1);  // tls insecure
  }
  SECTION("a node as enrolled: nothing known yet") {
    Node n;
    n.id = "0b6f6c1e-6a55-4c1f-9a6e-3f2f1d9b7c10";
    n.name = "bare";
    n.driver = "ipmi";
    CHECK(written(n) == dumped(to_json(n)));
  }
  SECTION("stored hardware that is not an object, and options that are not one either") {
    Node n = full_node();
    n.hardware = nullptr;
    n.options = json::array({1, 2});
    n.reachable = std::nullopt;
    n.location = {};
    CHECK(written(n) == dumped(to_json(n)));
    n.hardware = "nonsense";
    n.reachable = true;
    CHECK(written(n) == dumped(to_json(n)));
  }
  SECTION("invalid UTF-8 becomes what dump() makes of it") {
    for (const std::string bad : {"\xff\xfe"
                                  "ab",
                                  "cut \xe2\x82", "overlong \xc0\xaf", "surrogate \xed\xa0\x80",
                                  "past \xf4\x90\x80\x80 max", "ok \xc3\xa9 then \x80"}) {
      Node n = full_node();
      n.serial = bad;
      n.tags["bad"] = bad;
      INFO(dumped(json(bad)));
      CHECK(written(n) == dumped(to_json(n)));
    }
  }
}

TEST_CASE("strings are escaped as dump() escapes them, for every byte and random text",
          "[model][json]") {
  for (int b = 0; b < 256; ++b) {
    const std::string text = ironhold::util::concat("a", std::string(1, static_cast<char>(b)), "z");
    INFO("byte " << b);
    CHECK(written_string(text) == dumped(json(text)));
  }
  // Random byte strings, biased towards the bytes that matter (controls, quotes, UTF-8 lead and
  // continuation bytes), from a fixed seed so that a failure repeats.
  std::mt19937 random(20261202);
  const std::string interesting =
      "\"\\\x01\x1f\x7f\x80\xbf\xc2\xc3\xe0\xe2\xed\xef\xf0\xf4\xf5\xff a";
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const int length = static_cast<int>(random() % 12);
    for (int i = 0; i < length; ++i)
      text += random() % 2 ? interesting[random() % interesting.size()]
                           : static_cast<char>(random() % 256);
    INFO("round " << round);
    REQUIRE(written_string(text) == dumped(json(text)));
  }
}

}  // namespace node_json_test
