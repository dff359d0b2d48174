// Nova's JSON: version discovery, servers/detail pages, flavors and extra specs, error bodies —
// checked against Nova's own api_samples (expected values read from the samples themselves) and
// the state table of PROVIDERS.md.
#include "cloudapi/openstack/nova_json.hpp"

#include <catch2/catch.hpp>

#include "inventory/error.hpp"
#include "tests/cloudapi/openstack/samples.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace nova_json_test {

using namespace ironhold::cloudapi::openstack;
using ironhold::Health;
using ironhold::PowerState;
using ironhold::test::openstack::have_samples;
using ironhold::test::openstack::sample;
using nlohmann::json;

namespace {

// "2.104" -> 104, read independently of the code under test.
int minor_of(const json& version) {
  const std::string text = version.get<std::string>();
  return std::stoi(text.substr(text.find('.') + 1));
}

void check_server_matches_sample(const ironhold::CloudInstance& instance, const json& server) {
  CHECK(instance.provider_id == server["id"]);
  CHECK(instance.name == server["name"]);
  CHECK(instance.provider_state == server["status"]);
  CHECK(instance.zone == server["OS-EXT-AZ:availability_zone"].get<std::string>());
  CHECK(instance.image_id == server["image"]["id"].get<std::string>());
  CHECK(instance.launched_at == server["created"].get<std::string>());
  CHECK(instance.tags == server["metadata"]);
  CHECK(instance.details["addresses"] == server["addresses"]);
  CHECK_FALSE(instance.gone);
}

}  // namespace

TEST_CASE("Nova's servers/detail samples become instances", "[openstack][cloudapi]") {
  if (!have_samples()) {
    WARN("shared cloud samples not found; skipped");
    return;
  }
  for (const char* file :
       {"nova/servers/servers-details-resp.json", "nova/servers/v2.47/servers-details-resp.json",
        "nova/servers/v2.100/servers-details-resp.json"}) {
    INFO(file);
    const json doc = sample(file);
    const ServersPage page = parse_servers_page(doc);
    REQUIRE(page.servers.size() == doc["servers"].size());
    // Nova's next link carries the last server's id as the marker.
    REQUIRE(page.next_marker);
    CHECK(*page.next_marker == doc["servers"].back()["id"]);
    for (std::size_t i = 0; i < page.servers.size(); ++i) {
      const json& server = doc["servers"][i];
      const auto instance =
          server_to_instance(page.servers[i], embedded_flavor(page.servers[i]), json::object());
      check_server_matches_sample(instance, server);
      // ACTIVE with power_state 1 (RUNNING) and no task: on, healthy.
      REQUIRE(server["status"] == "ACTIVE");
      REQUIRE(server["OS-EXT-STS:power_state"] == 1);
      CHECK(instance.power_state == PowerState::on);
      CHECK(instance.health == Health::ok);
      CHECK(instance.summary.gpu_count == 0);
    }
  }
}

TEST_CASE("A 2.47 server embeds its flavor: name, vCPUs, memory and extra specs",
          "[openstack][cloudapi]") {
  if (!have_samples()) {
    WARN("shared cloud samples not found; skipped");
    return;
  }
  for (const char* file :
       {"nova/servers/v2.47/server-get-resp.json", "nova/servers/v2.100/server-get-resp.json"}) {
    INFO(file);
    const json server = sample(file)["server"];
    const auto flavor = embedded_flavor(server);
    REQUIRE(flavor);
    CHECK_FALSE(flavor_id(server));
    CHECK(flavor->extra_specs == server["flavor"]["extra_specs"]);
    const auto instance = server_to_instance(server, flavor, json::object());
    CHECK(instance.instance_type == server["flavor"]["original_name"].get<std::string>());
    CHECK(instance.summary.cpu_count == server["flavor"]["vcpus"].get<int>());
    REQUIRE(instance.summary.memory_gib);
    CHECK(*instance.summary.memory_gib == Approx(server["flavor"]["ram"].get<double>() / 1024.0));
  }
}

TEST_CASE("A pre-2.47 server names its flavor by id", "[openstack][cloudapi]") {
  if (!have_samples()) {
    WARN("shared cloud samples not found; skipped");
    return;
  }
  const json server = sample("nova/servers/server-get-resp.json")["server"];
  CHECK_FALSE(embedded_flavor(server));
  REQUIRE(flavor_id(server));
  CHECK(*flavor_id(server) == server["flavor"]["id"]);
  // Without the flavor looked up, the instance still names it.
  const auto bare = server_to_instance(server, std::nullopt, json::object());
  CHECK(bare.instance_type == server["flavor"]["id"].get<std::string>());
  // Looked up in the flavors/detail sample, it gets the flavor's facts.
  const auto flavors = parse_flavors(sample("nova/flavors/v2.61/flavors-detail-resp.json"));
  const auto match = std::find_if(flavors.begin(), flavors.end(),
                                  [&](const Flavor& f) { return f.id == server["flavor"]["id"]; });
  REQUIRE(match != flavors.end());
  const auto instance = server_to_instance(server, *match, json::object());
  CHECK(instance.instance_type == match->name);
  CHECK(instance.summary.cpu_count == match->vcpus);
}

TEST_CASE("The rebuild answer's server parses", "[openstack][cloudapi]") {
  if (!have_samples()) {
    WARN("shared cloud samples not found; skipped");
    return;
  }
  for (const char* file : {"nova/servers/server-action-rebuild-resp.json",
                           "nova/servers/v2.100/server-action-rebuild-resp.json"}) {
    INFO(file);
    const json server = sample(file)["server"];
    const auto instance = server_to_instance(server, embedded_flavor(server), json::object());
    CHECK(instance.provider_id == server["id"]);
    CHECK(instance.name == server["name"]);
    CHECK(instance.tags == server["metadata"]);
    CHECK(instance.image_id == server["image"]["id"].get<std::string>());
  }
}

TEST_CASE("Flavors detail samples parse with their extra specs", "[openstack][cloudapi]") {
  if (!have_samples()) {
    WARN("shared cloud samples not found; skipped");
    return;
  }
  for (const char* file :
       {"nova/flavors/flavors-detail-resp.json", "nova/flavors/v2.61/flavors-detail-resp.json",
        "nova/flavors/v2.75/flavors-detail-resp.json"}) {
    INFO(file);
    const json doc = sample(file);
    const auto flavors = parse_flavors(doc);
    REQUIRE(flavors.size() == doc["flavors"].size());
    for (std::size_t i = 0; i < flavors.size(); ++i) {
      const json& f = doc["flavors"][i];
      CHECK(flavors[i].id == f["id"]);
      CHECK(flavors[i].name == f["name"]);
      CHECK(flavors[i].vcpus == f["vcpus"].get<int>());
      CHECK(flavors[i].ram_mib == f["ram"].get<long long>());
      CHECK(flavors[i].extra_specs == f.value("extra_specs", json::object()));
    }
  }
  const json specs = sample("nova/flavor-extra-specs/flavor-extra-specs-list-resp.json");
  CHECK(parse_extra_specs(specs) == specs["extra_specs"]);
  const json flavor = sample("nova/flavors/flavor-get-resp.json")["flavor"];
  const auto one = parse_flavor(flavor);
  REQUIRE(one);
  CHECK(one->id == flavor["id"]);
}

TEST_CASE("Version discovery picks the highest microversion both sides speak",
          "[openstack][cloudapi]") {
  if (!have_samples()) {
    WARN("shared cloud samples not found; skipped");
    return;
  }
  const json root = sample("nova/versions/versions-get-resp.json");
  const json v21 = sample("nova/versions/v21-version-get-resp.json");
  const json sdk = sample("openstacksdk-0.101-fixtures/compute-version.json");
  for (const json* doc : {&root, &v21, &sdk}) {
    const auto versions = parse_compute_versions(*doc);
    REQUIRE(versions);
    const json& entry = doc->contains("version") ? (*doc)["version"] : (*doc)["versions"][1];
    REQUIRE(versions->max);
    CHECK(versions->max->minor == minor_of(entry["version"]));
    REQUIRE(versions->min);
    CHECK(versions->min->minor == minor_of(entry["min_version"]));
    const auto chosen = choose_microversion(*versions);
    REQUIRE(chosen);
    CHECK(chosen->minor == std::min(minor_of(entry["version"]), kHighestMicroversion.minor));
  }
  // A server older than 2.47 is used at its own maximum; one without microversions gets none.
  CHECK(choose_microversion(ComputeVersions{Microversion{1}, Microversion{38}})->minor == 38);
  CHECK_FALSE(choose_microversion(ComputeVersions{}));
  CHECK_FALSE(choose_microversion(ComputeVersions{Microversion{101}, Microversion{120}}));
  CHECK(parse_microversion("2.47")->minor == 47);
  CHECK_FALSE(parse_microversion("latest"));
  CHECK_FALSE(parse_microversion("3.1"));
}

TEST_CASE("Server states map by the table of PROVIDERS.md", "[openstack][cloudapi]") {
  struct Row {
    const char* status;
    std::optional<long long> power;
    std::optional<std::string_view> task;
    PowerState expected;
    bool gone;
    Health health;
  };
  const Row rows[] = {
      {"ACTIVE", 1, std::nullopt, PowerState::on, false, Health::ok},
      {"SHUTOFF", 4, std::nullopt, PowerState::off, false, Health::ok},
      {"SHUTOFF", 6, std::nullopt, PowerState::off, false, Health::ok},
      {"ACTIVE", 1, "powering-off", PowerState::transitioning, false, Health::ok},
      {"SHUTOFF", 4, "powering-on", PowerState::transitioning, false, Health::ok},
      {"REBOOT", 1, "rebooting", PowerState::transitioning, false, Health::unknown},
      {"HARD_REBOOT", 1, "rebooting_hard", PowerState::transitioning, false, Health::unknown},
      {"REBUILD", 0, "rebuilding", PowerState::transitioning, false, Health::unknown},
      {"BUILD", 0, "spawning", PowerState::transitioning, false, Health::unknown},
      {"RESIZE", 1, std::nullopt, PowerState::transitioning, false, Health::unknown},
      {"MIGRATING", 1, std::nullopt, PowerState::transitioning, false, Health::unknown},
      {"ERROR", 0, std::nullopt, PowerState::unknown, false, Health::critical},
      {"DELETED", 0, std::nullopt, PowerState::off, true, Health::unknown},
      {"SOFT_DELETED", 4, std::nullopt, PowerState::off, true, Health::unknown},
      {"SHELVED_OFFLOADED", 4, std::nullopt, PowerState::off, false, Health::ok},
      {"PAUSED", 3, std::nullopt, PowerState::unknown, false, Health::unknown},
      {"UNKNOWN", 0, std::nullopt, PowerState::unknown, false, Health::unknown},
      {"SOMETHING_NEW", 1, std::nullopt, PowerState::unknown, false, Health::unknown},
  };
  for (const auto& row : rows) {
    INFO(row.status << " power " << row.power.value_or(-1) << " task "
                    << std::string(row.task.value_or("null")));
    const auto state = map_server_state(row.status, row.power, row.task, false);
    CHECK(state.power == row.expected);
    CHECK(state.gone == row.gone);
    CHECK(state.health == row.health);
  }
}

TEST_CASE("An ERROR server is critical with its fault, boot-from-volume has no image",
          "[openstack][cloudapi]") {
  if (!have_samples()) {
    WARN("shared cloud samples not found; skipped");
    return;
  }
  json server = sample("nova/servers/v2.47/server-get-resp.json")["server"];
  server["status"] = "ERROR";
  server["OS-EXT-STS:vm_state"] = "error";
  server["fault"] = {{"code", 500}, {"message", "No valid host was found."}};
  server["image"] = "";
  const auto instance = server_to_instance(server, embedded_flavor(server), json::object());
  CHECK(instance.health == Health::critical);
  CHECK(instance.power_state == PowerState::unknown);
  CHECK(instance.status_detail == "No valid host was found.");
  CHECK_FALSE(instance.image_id);
  CHECK_THROWS_AS(server_to_instance(json{{"name", "x"}}, std::nullopt, json::object()),
                  ironhold::Error);
}

TEST_CASE("GPUs come from a flavor's extra specs", "[openstack][cloudapi]") {
  const json aliases = {{"a100", "NVIDIA A100-SXM4-80GB"}, {"l4", "NVIDIA L4"}};
  {
    const auto gpus = gpus_from_extra_specs(json{{"pci_passthrough:alias", "a100:8"}}, aliases);
    CHECK(gpus.count == 8);
    CHECK(gpus.model == "NVIDIA A100-SXM4-80GB");
  }
  {
    // Without a mapping, the alias names the card; a NIC or disk alias is not a GPU.
    const auto gpus =
        gpus_from_extra_specs(json{{"pci_passthrough:alias", "h100:4, nvme:1"}}, json::object());
    CHECK(gpus.count == 4);
    CHECK(gpus.model == "NVIDIA H100");
  }
  {
    const auto gpus = gpus_from_extra_specs(
        json{{"resources:VGPU", "1"}, {"trait:CUSTOM_GPU_A10", "required"}}, json::object());
    CHECK(gpus.count == 1);
    CHECK(gpus.model == "NVIDIA A10");
  }
  {
    const auto gpus =
        gpus_from_extra_specs(json{{"resources:VGPU", "2"}}, json{{"VGPU", "NVIDIA L4"}});
    CHECK(gpus.count == 2);
    CHECK(gpus.model == "NVIDIA L4");
  }
  {
    const auto gpus = gpus_from_extra_specs(json{{"resources1:PGPU", "2"}}, json::object());
    CHECK(gpus.count == 2);
  }
  {
    const auto gpus =
        gpus_from_extra_specs(json{{"resources:CUSTOM_GPU_H100", "8"}}, json::object());
    CHECK(gpus.count == 8);
    CHECK(gpus.model == "NVIDIA H100");
  }
  {
    const auto gpus = gpus_from_extra_specs(
        json{{"hw:numa_nodes", "1"}, {"resources:CUSTOM_BAREMETAL_SMALL", "1"}}, json::object());
    CHECK(gpus.count == 0);
  }
}

TEST_CASE("Nova and Keystone error bodies become messages", "[openstack][cloudapi]") {
  CHECK(
      nova_error_message(
          R"({"conflictingRequest": {"code": 409, "message": "Cannot 'start' instance x while it is in vm_state active"}})") ==
      "conflictingRequest (409): Cannot 'start' instance x while it is in vm_state active");
  CHECK(nova_error_message(
            R"({"itemNotFound": {"code": 404, "message": "Instance x could not be found."}})") ==
        "itemNotFound (404): Instance x could not be found.");
  CHECK(
      nova_error_message(R"({"error": {"code": 401, "title": "Unauthorized", "message": "m"}})") ==
      "Unauthorized (401): m");
  CHECK_FALSE(nova_error_message("<html>"));
  CHECK_FALSE(nova_error_message(R"({"a": 1, "b": 2})"));
}

TEST_CASE("Markers are read from next links", "[openstack][cloudapi]") {
  CHECK(marker_of("http://n/v2.1/servers/detail?limit=2&marker=abc-1") == "abc-1");
  CHECK(marker_of("http://n/v2.1/servers/detail?marker=a%20b&limit=2") == "a b");
  CHECK_FALSE(marker_of("http://n/v2.1/servers/detail?limit=2"));
  CHECK(utc_seconds("2013-09-23T13:53:12.774549") == "2013-09-23T13:53:12Z");
  CHECK(utc_seconds("2017-02-14T19:24:42Z") == "2017-02-14T19:24:42Z");
  CHECK_FALSE(utc_seconds("yesterday"));
}

}  // namespace nova_json_test
