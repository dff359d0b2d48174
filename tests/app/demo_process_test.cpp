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
int mockup_gpu_count() {
  const fs::path root = fs::path(IRONHOLD_SOURCE_DIR) / "mockups" / "hgx-gpu-server";
  std::ifstream systems_file(root / "Systems" / "index.json");
  const json systems = json::parse(systems_file);
  const std::string system = systems["Members"][0]["@odata.id"];
  auto read = [&](const std::string& url) {
    std::ifstream in(root / url.substr(std::string("/redfish/v1/").size()) / "index.json");
    return json::parse(in);
  };
  int gpus = 0;
  const json processors = read(read(system)["Processors"]["@odata.id"]);
  for (const auto& m : processors["Members"])
    gpus += read(m["@odata.id"]).value("ProcessorType", "") == "GPU";
  return gpus;
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
    for (const auto& n : cloud) {
      first_run[n["name"].get<std::string>()] = {n["id"].get<std::string>(), std::string()};
      CHECK(n["hardware"]["gpu_count"].get<int>() > 0);
      CHECK(n["cloud_account_id"].is_string());
    }
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
