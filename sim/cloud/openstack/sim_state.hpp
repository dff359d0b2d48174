#pragma once
// The simulated cloud's state, shared by its Keystone, Nova and control routes (internal to
// sim/cloud/openstack). Every route takes State::mutex; task states end lazily: each access first
// settles servers whose transition is over.
#include <chrono>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "inventory/util/time.hpp"
#include "sim/cloud/api_server.hpp"
#include "sim/cloud/openstack/openstack_simulator.hpp"

namespace ironhold::sim::cloud::openstack {

struct SimFlavor {
  std::string id;
  std::string name;
  int vcpus = 0;
  long long ram_mib = 0;
  int disk_gb = 0;
  nlohmann::json extra_specs = nlohmann::json::object();
};

// What a server becomes when its task ends.
struct PendingEnd {
  std::chrono::steady_clock::time_point at;
  std::string status;
  int power_state = 0;
  std::string vm_state;
};

struct SimServer {
  std::string id;
  std::string name;
  std::string flavor_id;
  std::string image_id;
  std::string status = "ACTIVE";
  std::string vm_state = "active";
  int power_state = 1;  // 1 RUNNING, 4 SHUTDOWN
  std::optional<std::string> task_state;
  std::optional<PendingEnd> pending;
  std::string zone = "nova";
  std::string host_id;  // Nova's hash of the project and host
  SystemTime created;
  SystemTime updated;
  std::optional<SystemTime> terminated;
  std::optional<std::string> fault;  // the fault message an ERROR server carries
  nlohmann::json metadata = nlohmann::json::object();
  nlohmann::json addresses = nlohmann::json::object();
  bool deleted() const { return status == "DELETED"; }
};

struct IssuedToken {
  SystemTime expires_at;
};

struct Faults {
  unsigned throttle_next = 0;
  unsigned error_next = 0;
  std::chrono::milliseconds latency{0};
};

struct OpenStackSimulator::State {
  explicit State(OpenStackSimulatorOptions options);

  std::mutex mutex;
  OpenStackSimulatorOptions options;
  std::string user_id;
  std::string project_id;
  std::vector<SimFlavor> flavors;
  std::vector<SimServer> servers;
  std::map<std::string, IssuedToken> tokens;
  Faults faults;
  unsigned long long auth_requests = 0;
  unsigned long long api_requests = 0;

  ApiReply handle(const ApiRequest& request);
  // Ends the tasks whose time is up. Callers hold the mutex.
  void settle();
  const SimFlavor* flavor(const std::string& id) const;
  SimServer* server(const std::string& id);
  nlohmann::json describe() const;  // GET /_sim/instances
};

// Route groups (keystone_routes.cpp, nova_routes.cpp, control_routes.cpp); callers hold the mutex.
ApiReply identity_route(OpenStackSimulator::State& state, const ApiRequest& request,
                        std::string_view rest);
ApiReply compute_route(OpenStackSimulator::State& state, const ApiRequest& request,
                       std::string_view rest);
ApiReply control_route(OpenStackSimulator::State& state, const ApiRequest& request,
                       std::string_view rest);

// Shared reply builders.
ApiReply json_reply(unsigned status, const nlohmann::json& body);
// Nova's fault shape: {"<kind>": {"code", "message"}}.
ApiReply nova_fault(unsigned status, const std::string& kind, const std::string& message);
// Keystone's: {"error": {"code", "message", "title"}}.
ApiReply keystone_error(unsigned status, const std::string& title, const std::string& message);
// A random lower-case hex id of `bytes` bytes, and a random UUID.
std::string random_hex(std::size_t bytes);
std::string random_uuid();

// The default fleet (fleet.cpp).
void add_default_fleet(OpenStackSimulator::State& state);

}  // namespace ironhold::sim::cloud::openstack
