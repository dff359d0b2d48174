// The default fleet: GPU flavors the way operators define them in Nova (PCI passthrough aliases,
// a vGPU resource class with a trait naming the card) and six servers, some running, some shut off.
#include "sim/cloud/openstack/sim_state.hpp"

namespace ironhold::sim::cloud::openstack {

using nlohmann::json;

namespace {

constexpr const char* kImage = "5c2b1f0e-8a4d-4b7e-9f3a-2d6c8e1a4b90";  // ubuntu-22.04-cuda-12

struct ServerSeed {
  const char* id;
  const char* name;
  const char* flavor;
  bool running;
  const char* zone;
  const char* address;
};

}  // namespace

void add_default_fleet(OpenStackSimulator::State& state) {
  state.flavors = {
      {"101", "g1.h100x8", 192, 2048LL * 1024, 960,
       json{{"pci_passthrough:alias", "h100:8"}, {"hw:cpu_policy", "dedicated"}}},
      {"102", "g1.a100x8", 96, 1152LL * 1024, 960, json{{"pci_passthrough:alias", "a100:8"}}},
      {"103", "g1.a10", 16, 64LL * 1024, 200, json{{"pci_passthrough:alias", "a10:1"}}},
      {"104", "g1.l4.vgpu", 8, 32LL * 1024, 100,
       json{{"resources:VGPU", "1"}, {"trait:CUSTOM_GPU_L4", "required"}}},
  };
  const ServerSeed seeds[] = {
      {"0c6f8a52-3d1e-4f7a-9b2c-5e8d1a7f3c01", "gpu-h100-01", "101", true, "az-1", "10.20.0.11"},
      {"1d7a9b63-4e2f-4a8b-8c3d-6f9e2b8a4d02", "gpu-h100-02", "101", false, "az-1", "10.20.0.12"},
      {"2e8bac74-5f3a-4b9c-9d4e-7a0f3c9b5e03", "gpu-a100-01", "102", true, "az-2", "10.20.0.21"},
      {"3f9cbd85-6a4b-4cad-8e5f-8b1a4dac6f04", "gpu-a100-02", "102", true, "az-2", "10.20.0.22"},
      {"4a0dce96-7b5c-4dbe-9f6a-9c2b5ebd7a05", "gpu-a10-01", "103", false, "az-1", "10.20.0.31"},
      {"5b1edfa7-8c6d-4ecf-8a7b-ad3c6fce8b06", "infer-l4-01", "104", true, "az-2", "10.20.0.41"},
  };
  const auto now = std::chrono::system_clock::now();
  int minutes_ago = 600;
  for (const auto& seed : seeds) {
    SimServer s;
    s.id = seed.id;
    s.name = seed.name;
    s.flavor_id = seed.flavor;
    s.image_id = kImage;
    s.status = seed.running ? "ACTIVE" : "SHUTOFF";
    s.vm_state = seed.running ? "active" : "stopped";
    s.power_state = seed.running ? 1 : 4;
    s.zone = seed.zone;
    s.host_id = random_hex(28);
    s.created = now - std::chrono::minutes(minutes_ago);
    s.updated = s.created;
    minutes_ago -= 60;
    s.metadata = {{"team", "ml-platform"}, {"purpose", seed.running ? "training" : "spare"}};
    s.addresses = {
        {"gpu-net", json::array({{{"addr", seed.address},
                                  {"version", 4},
                                  {"OS-EXT-IPS:type", "fixed"},
                                  {"OS-EXT-IPS-MAC:mac_addr",
                                   "fa:16:3e:00:00:" + std::string(seed.address).substr(8)}}})}};
    state.servers.push_back(std::move(s));
  }
}

}  // namespace ironhold::sim::cloud::openstack
