// The normalizer must never throw, whatever the documents hold: every property of the crawled
// mockups replaced by wrong types, and hand-written hostile documents.
#include <catch2/catch.hpp>
#include <cstdint>

#include "bmc/redfish/crawler.hpp"
#include "bmc/redfish/json_read.hpp"
#include "bmc/redfish/normalize_parts.hpp"
#include "bmc/redfish/normalizer.hpp"
#include "tests/bmc/redfish/redfish_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace normalizer_hostile_test {

using namespace ironhold;
using namespace ironhold::bmc::redfish;
using namespace ironhold::bmc::redfish::testing;
using nlohmann::json;

namespace {

// Deterministic, so a failure is reproducible.
struct Lcg {
  std::uint64_t state;
  std::uint32_t next() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(state >> 33);
  }
};

json hostile_value(Lcg& random) {
  switch (random.next() % 12) {
    case 0:
      return nullptr;
    case 1:
      return "Absent";
    case 2:
      return 1e308;
    case 3:
      return -1;
    case 4:
      return true;
    case 5:
      return json::array();
    case 6:
      return json::object();
    case 7:
      return "NaN";
    case 8:
      return std::string(5000, 'x');
    case 9:
      return json::array({json::object({{"@odata.id", 7}}), "/redfish/v1/x", nullptr});
    case 10:
      return json::object({{"@odata.id", "/redfish/v1/Systems/437XR1138R2"}});
    default:
      return 18446744073709551615ULL;
  }
}

// Replaces about one value in `rate` by a hostile one, recursively; keys are kept, so the
// normalizer's paths are still reached.
void mutate(json& value, Lcg& random, unsigned rate) {
  if (value.is_object() || value.is_array()) {
    for (auto& child : value) {
      if (random.next() % rate == 0)
        child = hostile_value(random);
      else
        mutate(child, random, rate);
    }
  }
}

void normalize_everything(const ResourceGraph& graph, const std::string& system) {
  (void)normalize_status(graph, system);
  (void)normalize_sensors(graph, system);
  (void)normalize_inventory(graph, system);
  (void)manager_firmware(graph);
}

}  // namespace

TEST_CASE("the normalizer survives wrong types in every mockup property", "[redfish][hostile]") {
  for (std::string name : {"public-rackmount1", "public-cxl"}) {
    auto root = mockup(name);
    if (root.empty()) {
      WARN("redfish mockups not found; skipped");
      return;
    }
    CrawlOptions options;
    CrawlResult crawled = crawl_service(serve_mockup(root), options);
    REQUIRE_FALSE(crawled.error);
    const std::string system = crawled.system_paths.front();
    for (unsigned rate : {2u, 4u, 9u}) {
      for (std::uint64_t seed = 1; seed <= 25; ++seed) {
        INFO(name << " rate " << rate << " seed " << seed);
        Lcg random{seed * 7919 + rate};
        ResourceGraph graph;
        for (const auto& [path, document] : crawled.graph.documents()) {
          json copy = document;
          mutate(copy, random, rate);
          graph.add(path, std::move(copy));
          // Half the runs keep the crawled member lists, half fall back to the mutated Members.
          if (seed % 2 == 0) {
            auto members = crawled.graph.members(path);
            if (!members.empty()) graph.set_members(path, members);
          }
        }
        REQUIRE_NOTHROW(normalize_everything(graph, system));
      }
    }
  }
}

TEST_CASE("hand-written hostile documents", "[redfish][hostile]") {
  const std::string system = "/redfish/v1/Systems/1";
  ResourceGraph graph;
  graph.add("/redfish/v1", {{"Systems", {{"@odata.id", "/redfish/v1/Systems"}}},
                            {"Chassis", "not a link"},
                            {"Managers", {{"@odata.id", 5}}},
                            {"UpdateService", {{"@odata.id", "/redfish/v1/UpdateService"}}}});
  graph.add("/redfish/v1/UpdateService", json::array({1, 2}));
  graph.add(system, {{"Id", 12},
                     {"PowerState", {"On"}},
                     {"Status", "OK"},
                     {"MemorySummary", {{"TotalSystemMemoryGiB", "1e999"}}},
                     {"Processors", {{"@odata.id", "/redfish/v1/Systems/1/Processors"}}},
                     {"Memory", {{"@odata.id", "/redfish/v1/Systems/1/Memory"}}},
                     {"Links", {{"Chassis", "x"}, {"ManagedBy", {nullptr, 3, json::array()}}}},
                     {"LogServices", {{"@odata.id", "/redfish/v1/Systems/1"}}}});  // links itself
  graph.add("/redfish/v1/Systems/1/Processors",
            {{"Members",
              {{{"@odata.id", "/redfish/v1/Systems/1/Processors/a"}},
               {{"@odata.id", "/redfish/v1/Systems/1/Processors/a"}}}}});
  graph.add("/redfish/v1/Systems/1/Processors/a",
            {{"ProcessorType", "GPU"},
             {"Model", 3},
             {"Status", {{"State", nullptr}, {"Health", "Critical"}}},
             {"ProcessorMemory", {1, {{"CapacityMiB", "nan"}}, {{"CapacityMiB", "2048"}}}}});
  graph.add("/redfish/v1/Systems/1/Memory",
            {{"Members", {{{"@odata.id", "/redfish/v1/Systems/1/Memory/m"}}}}});
  graph.add("/redfish/v1/Systems/1/Memory/m", {{"CapacityMiB", "16384"}});
  REQUIRE_NOTHROW(normalize_everything(graph, system));
  SystemInventory inventory = normalize_inventory(graph, system);
  CHECK(inventory.system_id == "1");  // a number where the Id belongs: the path's segment
  CHECK(inventory.status.power_state == PowerState::unknown);
  CHECK(inventory.status.health == Health::unknown);
  CHECK(inventory.summary.gpu_count == 1);  // the same member listed twice counts once
  CHECK_FALSE(inventory.summary.gpu_model);
  // "1e999" is no number; the modules' sum ("16384" quoted) is used instead.
  REQUIRE(inventory.summary.memory_gib);
  CHECK(*inventory.summary.memory_gib == Approx(16.0));
  REQUIRE(inventory.components.size() == 2);
  CHECK(inventory.components[0].status == Health::critical);
  CHECK(inventory.components[0].details["memory_gib"] == Approx(2.0));
  CHECK(normalize_inventory(graph, "/redfish/v1/Systems/absent").components.empty());
}

TEST_CASE("tolerant readers", "[redfish][hostile]") {
  json document = {{"s", "text"},  {"empty", ""},
                   {"n", 4.5},     {"q", " 42 "},
                   {"nan", "nan"}, {"inf", "1e999"},
                   {"b", true},    {"bs", "false"},
                   {"arr", {1}},   {"obj", {{"@odata.id", "/redfish/v1/x/"}}}};
  CHECK(read_string(&document, "s") == "text");
  CHECK_FALSE(read_string(&document, "empty"));
  CHECK_FALSE(read_string(&document, "n"));
  CHECK(read_number(&document, "n") == 4.5);
  CHECK(read_number(&document, "q") == 42.0);
  CHECK_FALSE(read_number(&document, "nan"));
  CHECK_FALSE(read_number(&document, "inf"));
  CHECK_FALSE(read_number(&document, "s"));
  CHECK(read_bool(&document, "b") == true);
  CHECK(read_bool(&document, "bs") == false);
  CHECK_FALSE(read_object(&document, "arr"));
  CHECK(read_array(&document, "arr"));
  CHECK(read_links(&document, "obj") == std::vector<std::string>{"/redfish/v1/x"});
  json not_object = json::array({1, 2});
  CHECK_FALSE(read_string(&not_object, "s"));
  CHECK_FALSE(read_string(nullptr, "s"));
  CHECK(link_of(not_object, "x").empty());
}

TEST_CASE("power state and health tables", "[redfish][normalizer]") {
  CHECK(power_state_of("On") == PowerState::on);
  CHECK(power_state_of("Off") == PowerState::off);
  for (auto v : {"PoweringOn", "PoweringOff", "Paused"})
    CHECK(power_state_of(v) == PowerState::transitioning);
  for (auto v : {"", "on", "Unknown", "Standby"}) CHECK(power_state_of(v) == PowerState::unknown);
  CHECK(health_of({{"Health", "OK"}, {"HealthRollup", "Warning"}}) == Health::warning);
  CHECK(health_of({{"Health", "Critical"}}) == Health::critical);
  CHECK(health_of({{"Health", "OK"}, {"HealthRollup", 7}}) == Health::ok);
  CHECK(health_of({{"State", "Absent"}, {"Health", "OK"}}) == Health::unknown);
  CHECK(health_of(json::object()) == Health::unknown);
  CHECK(health_of("OK") == Health::unknown);
}

TEST_CASE("only RFC 3339 times are kept as occurred_at", "[redfish][normalizer]") {
  for (auto good : {"2012-03-07T14:44:00Z", "2021-03-13T04:14:13+06:00", "2024-02-29T23:59:60.123z",
                    "2015-03-13T04:14:33-05:30"})
    CHECK(is_rfc3339(good));
  for (auto bad :
       {"", "2012-03-07", "2012-03-07 14:44:00Z", "2012-13-07T14:44:00Z", "2023-02-29T10:00:00Z",
        "2012-03-07T24:00:00Z", "2012-03-07T14:44:00", "2012-03-07T14:44:00+0600",
        "2012-03-07T14:44:00.Z", "12/06/2017", "2012-03-07T14:44:00Z junk"})
    CHECK_FALSE(is_rfc3339(bad));
}

TEST_CASE("several Systems: each gets its own parts, firmware of others is left to them",
          "[redfish][normalizer]") {
  auto link = [](const std::string& path) { return json{{"@odata.id", path}}; };
  ResourceGraph graph;
  graph.add("/redfish/v1", {{"Systems", link("/redfish/v1/Systems")},
                            {"UpdateService", link("/redfish/v1/UpdateService")}});
  graph.add("/redfish/v1/Systems",
            {{"Members", {link("/redfish/v1/Systems/A"), link("/redfish/v1/Systems/B")}}});
  for (std::string id : {"A", "B"}) {
    std::string system = "/redfish/v1/Systems/" + id;
    graph.add(
        system,
        {{"Id", id}, {"BiosVersion", "bios-" + id}, {"Processors", link(system + "/Processors")}});
    graph.add(system + "/Processors", {{"Members", {link(system + "/Processors/GPU0")}}});
    graph.add(system + "/Processors/GPU0",
              {{"Id", "GPU0"}, {"ProcessorType", "GPU"}, {"Model", "H100 " + id}});
  }
  graph.add("/redfish/v1/UpdateService",
            {{"FirmwareInventory", link("/redfish/v1/UpdateService/FirmwareInventory")}});
  graph.add("/redfish/v1/UpdateService/FirmwareInventory",
            {{"Members",
              {link("/redfish/v1/UpdateService/FirmwareInventory/GPU0-A"),
               link("/redfish/v1/UpdateService/FirmwareInventory/GPU0-B")}}});
  for (std::string id : {"A", "B"})
    graph.add("/redfish/v1/UpdateService/FirmwareInventory/GPU0-" + id,
              {{"Id", "GPU0-" + id},
               {"Version", "96.00." + id},
               {"RelatedItem", {link("/redfish/v1/Systems/" + id + "/Processors/GPU0")}}});
  SystemInventory a = normalize_inventory(graph, "/redfish/v1/Systems/A");
  CHECK(a.summary.gpu_model == "H100 A");
  REQUIRE(a.firmware.size() == 2);  // its GPU's firmware and its BIOS
  CHECK(a.firmware[0].component == "GPU0-A");
  CHECK(a.firmware[0].related_component == "GPU0");
  CHECK(a.firmware[1].component == "BIOS");
  CHECK(a.firmware[1].version == "bios-A");
}

}  // namespace normalizer_hostile_test
