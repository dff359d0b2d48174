// `ironhold demo` as a process: its simulated fleet fills the inventory, and a restart after a
// kill -9 brings the same BMCs back (same endpoints, same certificates) without enrolling twice.
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "inventory/db/embedded_cluster.hpp"
#include "inventory/util/process.hpp"
#include "tests/app/ironhold_process.hpp"
#include "tests/support/server/child_process.hpp"
#include "tests/support/server/http_client.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace demo_process_test {

using namespace ironhold::test;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

IronholdProcess start_demo(const fs::path& data_dir, const fs::path& log_file) {
  return start_ironhold({"demo", "--data-dir", data_dir.string(), "--listen", "127.0.0.1:0",
                         "--shutdown-grace", "2000", "--poll-status-interval", "5"},
                        log_file);
}

// The nodes of one source: "bmc" (the owned servers) or "cloud" (the simulated clouds' instances).
json all_nodes(unsigned short port, const std::string& token, const std::string& source = "bmc") {
  const auto res = http_get(port, "/api/v1/nodes?limit=1000&source=" + source, token);
  REQUIRE(res.status == 200);
  return res.json()["items"];
}

// GPUs of the project's GPU-server mockup, counted from its files.
// The GPU processors of the project's GPU-server mockup, read from its files: every System's
// Processors members whose ProcessorType is GPU.
std::vector<json> mockup_gpus() {
  const fs::path root = fs::path(IRONHOLD_SOURCE_DIR) / "mockups" / "hgx-gpu-server";
  auto read = [&](const std::string& url) {
    std::ifstream in(root / url.substr(std::string("/redfish/v1/").size()) / "index.json");
    return json::parse(in);
  };
  std::ifstream systems_file(root / "Systems" / "index.json");
  const json systems = json::parse(systems_file);
  std::vector<json> gpus;
  for (const auto& system : systems["Members"]) {
    const json document = read(system["@odata.id"]);
    if (!document.contains("Processors")) continue;
    const json processors = read(document["Processors"]["@odata.id"]);
    for (const auto& m : processors["Members"]) {
      json processor = read(m["@odata.id"]);
      if (processor.value("ProcessorType", "") == "GPU") gpus.push_back(std::move(processor));
    }
  }
  return gpus;
}

int mockup_gpu_count() {
  return static_cast<int>(mockup_gpus().size());
}

std::string mockup_gpu_model() {
  return mockup_gpus().at(0).at("Model");
}

}  // namespace

TEST_CASE("the demo's simulated fleet fills the inventory and survives a kill -9", "[app][demo]") {
  char dir_template[] = "/tmp/ih-demo-XXXXXX";
  REQUIRE(::mkdtemp(dir_template));
  const fs::path home = dir_template;
  const fs::path data = home / "data";
  std::map<std::string, std::pair<std::string, std::string>> first_run;  // name -> id, endpoint
  std::string token;
  {
    auto demo = start_demo(data, home / "demo1.log");
    auto r = ironhold::util::run_process(
        IRONHOLD_BINARY,
        {"token", "create", "--data-dir", data.string(), "--role", "admin", "--name", "demo-test"});
    REQUIRE(r.ok());
    token = r.out.substr(0, 46);
    // Within a few minutes on a slow shared machine: every BMC answered its inspection.
    json nodes;
    const auto until = std::chrono::steady_clock::now() + 180s;
    int inspected = 0;
    while (std::chrono::steady_clock::now() < until) {
      nodes = all_nodes(demo.port, token);
      inspected = 0;
      for (const auto& n : nodes) inspected += !n["last_inspected"].is_null();
      if (inspected >= 55) break;
      std::this_thread::sleep_for(1s);
    }
    INFO(demo.process->stderr_text().substr(0, 4000));
    REQUIRE(nodes.size() == 56);
    CHECK(inspected == 55);  // one BMC is dead on purpose
    int unreachable = 0, unhealthy = 0, gpu_servers = 0, ipmi_servers = 0;
    const int gpus = mockup_gpu_count();
    for (const auto& n : nodes) {
      first_run[n["name"]] = {n["id"], n["endpoint"]};
      unreachable += n["reachable"] == false;
      unhealthy += n["health"] == "warning" || n["health"] == "critical";
      gpu_servers += n["hardware"]["gpu_count"] == gpus;
      // The IPMI-only rack: identity from FRU data, power from the chassis.
      if (n["driver"] == "ipmi")
        ipmi_servers +=
            n["serial"].is_string() && n["power_state"] != "unknown" && n["reachable"] == true;
    }
    CHECK(ipmi_servers == 8);
    CHECK(unreachable == 1);
    CHECK(unhealthy >= 3);
    CHECK(gpu_servers == 39);
    // Next to them, in the same list: the instances of one account in each simulated cloud, all
    // GPU instances.
    json cloud;
    std::set<std::string> providers;
    while (std::chrono::steady_clock::now() < until + 60s && providers.size() < 3) {
      cloud = all_nodes(demo.port, token, "cloud");
      providers.clear();
      for (const auto& n : cloud) providers.insert(n["driver"].get<std::string>());
      if (providers.size() < 3) std::this_thread::sleep_for(1s);
    }
    CHECK(providers == std::set<std::string>{"bcc", "ec2", "openstack"});
    CHECK(cloud.size() >= 15);
    std::set<std::string> h100_models;  // what the H100 nodes, owned and rented, are counted as
    int owned_h100 = 0, rented_h100 = 0;
    for (const auto& n : cloud) {
      first_run[n["name"].get<std::string>()] = {n["id"].get<std::string>(), std::string()};
      CHECK(n["hardware"]["gpu_count"].get<int>() > 0);
      CHECK(n["cloud_account_id"].is_string());
      if (n["hardware"]["gpu_model_raw"].get<std::string>().find("H100") != std::string::npos) {
        ++rented_h100;
        h100_models.insert(n["hardware"]["gpu_model"].get<std::string>());
      }
    }
    for (const auto& n : nodes)
      if (n["hardware"]["gpu_model_raw"] == mockup_gpu_model()) {
        ++owned_h100;
        h100_models.insert(n["hardware"]["gpu_model"].get<std::string>());
      }
    // One GPU catalogue: the owned HGX servers and the rented H100 instances are one row of the
    // summary, split by source.
    CHECK(owned_h100 == gpu_servers);
    CHECK(rented_h100 >= 2);
    REQUIRE(h100_models.size() == 1);
    const json summary = http_get(demo.port, "/api/v1/nodes/summary", token).json();
    const json& h100 = summary["gpu_models"][*h100_models.begin()];
    INFO(summary.dump(2));
    CHECK(h100["mapped"] == true);
    CHECK(h100["source"]["bmc"]["nodes"] == owned_h100);
    CHECK(h100["source"]["cloud"]["nodes"] == rented_h100);
    for (const auto& [name, row] : summary["gpu_models"].items())
      if (name != *h100_models.begin()) CHECK(name.find("H100") == std::string::npos);
    demo.process->signal(SIGKILL);
    REQUIRE(demo.process->wait(30s) == -SIGKILL);
  }
  {
    auto demo = start_demo(data, home / "demo2.log");
    INFO(demo.process->stderr_text().substr(0, 4000));
    json nodes = all_nodes(demo.port, token);
    REQUIRE(nodes.size() == 56);
    for (const auto& n : nodes) {
      CHECK(first_run[n["name"]].first == n["id"]);
      CHECK(first_run[n["name"]].second == n["endpoint"]);
    }
    // The clouds come back with the same instances: their nodes keep their ids.
    for (const auto& n : all_nodes(demo.port, token, "cloud"))
      CHECK(first_run[n["name"].get<std::string>()].first == n["id"]);
    // The same certificates: polls go on without a pin mismatch.
    std::this_thread::sleep_for(12s);
    nodes = all_nodes(demo.port, token);
    for (const auto& n : nodes) CHECK(n["last_error"] != "tls_pin_mismatch");
    demo.process->signal(SIGTERM);
    REQUIRE(demo.process->wait(60s) == 0);
  }
  fs::path cluster_dir;
  {
    auto cluster = ironhold::db::EmbeddedCluster::start({data});
    cluster_dir = cluster->cluster_dir();
    cluster->stop();
  }
  std::error_code ec;
  if (cluster_dir.string().rfind(home.string(), 0) != 0)
    fs::remove_all(cluster_dir.parent_path(), ec);
  fs::remove_all(home, ec);
}

}  // namespace demo_process_test
