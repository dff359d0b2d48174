// The GPU catalogue through the real service: an HGX server read over Redfish and the H100
// instances of an OpenStack cloud (its simulator speaking Keystone and Nova) are one GPU model
// once an admin maps the site's flavor, counted together and apart by source in the summary. The
// expected owned GPUs are read from the mockup's own documents and the rented ones from the
// simulator's state, not from what the service computed.
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <thread>

#include "sim/cloud/openstack/openstack_simulator.hpp"
#include "sim/redfish/fleet.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/web/poller/poller_helpers.hpp"
#include "tests/web/tasks/task_helpers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace gpu_models_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;
namespace asio = boost::asio;

namespace {

// The GPUs of a mockup: every Processor under Systems/ whose ProcessorType is GPU.
std::vector<json> mockup_gpus(const std::filesystem::path& mockup) {
  std::vector<json> gpus;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(mockup / "Systems")) {
    if (entry.path().filename() != "index.json") continue;
    if (entry.path().parent_path().parent_path().filename() != "Processors") continue;
    std::ifstream in(entry.path());
    const json doc = json::parse(in);
    if (doc.value("ProcessorType", "") == "GPU") gpus.push_back(doc);
  }
  return gpus;
}

struct OpenStackSim {
  asio::io_context io;
  std::unique_ptr<sim::cloud::openstack::OpenStackSimulator> sim;
  unsigned short port = 0;
  std::thread thread;
  OpenStackSim() {
    sim = std::make_unique<sim::cloud::openstack::OpenStackSimulator>(
        io, sim::cloud::openstack::OpenStackSimulatorOptions{});
    port = sim->listen({asio::ip::make_address("127.0.0.1"), 0}).port();
    thread = std::thread([this] { io.run(); });
  }
  ~OpenStackSim() {
    sim->close();
    io.stop();
    thread.join();
  }
  json account(const std::string& name) const {
    return {{"name", name},
            {"provider", "openstack"},
            {"endpoint", sim->auth_url()},
            {"region", "RegionOne"},
            {"credentials",
             {{"username", "admin"},
              {"password", "openstack"},
              {"user_domain_name", "Default"},
              {"project_name", "gpu-team"},
              {"project_domain_name", "Default"}}}};
  }
};

json nodes_of(TestServer& server, const std::string& token, const std::string& query) {
  return http_get(server.port(), "/api/v1/nodes?limit=500&" + query, token).json()["items"];
}

}  // namespace

TEST_CASE("owned and rented H100s are one catalogue model, counted apart by source",
          "[web][gpu_catalogue]") {
  const auto mockup = project_mockup("hgx-gpu-server");
  const auto gpus = mockup_gpus(mockup);
  REQUIRE(gpus.size() >= 2);
  const std::string raw = gpus.front()["Model"];
  sim::RedfishFleetOptions o;
  o.mockup_dir = mockup;
  sim::RedfishFleet fleet(o);
  fleet.start();
  OpenStackSim cloud;
  CloudSyncOptions sync;
  sync.idle_wait = std::chrono::milliseconds(100);
  TestServer server({}, {}, fast_poller(), sync);
  const auto admin = server.token("admin");
  const auto viewer = server.token("viewer");

  // The catalogue names the model the BMC's string stands for.
  const json catalogue = http_get(server.port(), "/api/v1/gpu-models", viewer).json();
  std::string canonical;
  for (const auto& m : catalogue["items"])
    for (const auto& a : m["aliases"])
      if (a["kind"] == "gpu" && a["alias"] == raw) canonical = m["name"];
  INFO("the BMC calls its GPUs " << raw);
  REQUIRE(!canonical.empty());

  const std::string id = enroll_redfish(server, admin, "hgx-1", fleet.endpoint(0));
  const json owned = wait_for_node(server, admin, id, [](const json& n) {
    return n["lifecycle"] == "available" && n["hardware"]["gpu_model"].is_string();
  });
  CHECK(owned["hardware"]["gpu_model"] == canonical);
  CHECK(owned["hardware"]["gpu_model_raw"] == raw);
  CHECK(owned["hardware"]["gpu_count"] == gpus.size());
  // The raw string stays in the components.
  const json components =
      http_get(server.port(), "/api/v1/nodes/" + id + "/components", admin).json();
  std::size_t gpu_components = 0;
  for (const auto& c : components["items"])
    if (c["kind"] == "gpu") {
      ++gpu_components;
      CHECK(c["model"] == raw);
    }
  CHECK(gpu_components == gpus.size());

  REQUIRE(http_send(server.port(), "POST", "/api/v1/cloud-accounts", cloud.account("lab"), admin)
              .status == 201);
  const json state = http_get(cloud.port, "/_sim/instances", std::nullopt).json();
  REQUIRE(eventually([&] {
    return static_cast<std::ptrdiff_t>(nodes_of(server, admin, "source=cloud").size()) ==
           std::count_if(state["instances"].begin(), state["instances"].end(),
                         [](const json& s) { return !s["deleted"].get<bool>(); });
  }));

  // The provider says only "H100": which card that is, the site's flavor says, and no alias
  // does yet. It is listed with the flavors that carry it.
  const json unmapped = http_get(server.port(), "/api/v1/gpu-models/unmapped", admin).json();
  INFO(unmapped.dump(2));
  json h100;
  for (const auto& u : unmapped["items"])
    if (u["name"].get<std::string>().find("H100") != std::string::npos) h100 = u;
  REQUIRE(h100.is_object());
  CHECK(h100["source"]["bmc"] == 0);
  CHECK(h100["drivers"] == json::array({"openstack"}));
  REQUIRE(!h100["instance_types"].empty());
  std::set<std::string> flavors;
  for (const auto& f : h100["instance_types"]) flavors.insert(f.get<std::string>());
  long long expected_cloud = 0;
  for (const auto& s : state["instances"])
    if (!s["deleted"].get<bool>() && flavors.count(s["flavor"].get<std::string>()))
      ++expected_cloud;
  CHECK(h100["nodes"] == expected_cloud);
  CHECK(h100["source"]["cloud"] == expected_cloud);
  CHECK(http_get(server.port(), "/api/v1/gpu-models/unmapped", viewer).status == 403);

  // Only a global admin maps; the mapping re-resolves the nodes at once and is audited.
  const std::string aliases = "/api/v1/gpu-models/" + url_encode(canonical) + "/aliases";
  const json alias = {{"kind", "instance_type"}, {"alias", *flavors.begin()}};
  CHECK(http_send(server.port(), "POST", aliases, alias, server.token("operator")).status == 403);
  const auto mapped = http_send(server.port(), "POST", aliases, alias, admin);
  INFO(mapped.body);
  REQUIRE(mapped.status == 200);
  CHECK(mapped.json()["nodes_remapped"] == expected_cloud);
  const json audit =
      http_get(server.port(), "/api/v1/audit?target=" + url_encode(canonical), admin).json();
  INFO(audit.dump(2));
  REQUIRE(!audit["items"].empty());
  CHECK(audit["items"][0]["target_name"] == canonical);

  // One row in the summary, split by source.
  const json summary = http_get(server.port(), "/api/v1/nodes/summary", viewer).json();
  INFO(summary.dump(2));
  const json& row = summary["gpu_models"][canonical];
  REQUIRE(row.is_object());
  CHECK(row["mapped"] == true);
  CHECK(row["source"]["bmc"]["nodes"] == 1);
  CHECK(row["source"]["bmc"]["gpus"] == gpus.size());
  CHECK(row["source"]["cloud"]["nodes"] == expected_cloud);
  long long cloud_gpus = 0;
  for (const auto& n : nodes_of(server, admin, "source=cloud&gpu_model=" + url_encode(canonical)))
    cloud_gpus += n["hardware"]["gpu_count"].get<long long>();
  CHECK(row["source"]["cloud"]["gpus"] == cloud_gpus);
  CHECK(cloud_gpus > 0);
  CHECK(row["nodes"] == 1 + expected_cloud);
  CHECK(summary["gpu_model"][canonical] == 1 + expected_cloud);
  CHECK(!summary["gpu_model"].contains(h100["name"].get<std::string>()));
  CHECK(nodes_of(server, viewer, "gpu_model=" + url_encode(canonical)).size() ==
        static_cast<std::size_t>(1 + expected_cloud));

  // Bad input is refused with the field named; a taken alias names the model holding it.
  const std::string path = "/api/v1/gpu-models/" + url_encode("Test GPU 1");
  const json body = {{"vendor", "Acme"}, {"family", "F"}, {"model", "T1"}, {"form_factor", "PCIe"}};
  CHECK(http_send(server.port(), "PUT", path, body, server.token("operator")).status == 403);
  json bad = body;
  bad["form_factor"] = "card";
  CHECK(http_send(server.port(), "PUT", path, bad, admin).status == 422);
  bad = body;
  bad["colour"] = "red";
  CHECK(http_send(server.port(), "PUT", path, bad, admin).status == 400);
  bad = body;
  bad["memory_gib"] = -1;
  CHECK(http_send(server.port(), "PUT", path, bad, admin).status == 422);
  REQUIRE(http_send(server.port(), "PUT", path, body, admin).status == 201);
  CHECK(http_send(server.port(), "PUT", path, body, admin).status == 200);
  CHECK(http_send(server.port(), "POST", path + "/aliases", {{"alias", "a*b"}}, admin).status ==
        422);
  const auto taken = http_send(server.port(), "POST", path + "/aliases", alias, admin);
  CHECK(taken.status == 409);
  CHECK(taken.body.find(canonical) != std::string::npos);

  // Removing the alias puts the cloud nodes back under the provider's own name.
  const auto removed = http_send(
      server.port(), "DELETE",
      aliases + "?kind=instance_type&alias=" + url_encode(*flavors.begin()), nullptr, admin);
  REQUIRE(removed.status == 200);
  CHECK(removed.json()["nodes_remapped"] == expected_cloud);
  const json after = http_get(server.port(), "/api/v1/nodes/summary", viewer).json();
  CHECK(after["gpu_models"][canonical]["source"]["cloud"]["nodes"] == 0);
  CHECK(after["gpu_models"][h100["name"].get<std::string>()]["mapped"] == false);
  CHECK(http_send(server.port(), "DELETE", path, nullptr, admin).status == 200);
  CHECK(http_get(server.port(), path, viewer).status == 404);
}

}  // namespace gpu_models_test
