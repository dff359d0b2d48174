#pragma once
// The simulated BCC account's instances and what the v2 API does to them: listing by
// marker/maxKeys, detail, start/stop/reboot/rebuild moving through BCC's transitional statuses,
// release. Not thread-safe: the simulator holds its lock around every call. Time is passed in, so
// transitions complete when a request looks after their deadline (no timers).
#include <chrono>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ironhold::sim::cloud::bcc {

using Clock = std::chrono::steady_clock;

struct SimFlavor {
  std::string spec;
  std::string gpu_card;  // flavorSpec's gpuCardType
  int gpu_count = 0;
  int cpu_count = 0;
  int memory_gib = 0;
};

struct SimInstance {
  std::string id;
  std::string name;
  std::string status;  // BCC's InstanceStatus
  std::string zone;
  SimFlavor flavor;
  // Newer GPU specs come without gpuCard/cardCount on the instance: clients must join the spec
  // to flavorSpec (as PROVIDERS.md describes).
  bool card_on_instance = true;
  std::string image_id;
  std::string create_time;
  std::string internal_ip;
  std::string public_ip;
  std::string repair_status = "normal";
  std::vector<std::pair<std::string, std::string>> tags;
  // What the last actions carried, for tests to read back.
  std::optional<bool> last_force_stop;
  std::optional<std::string> last_admin_pass;  // decrypted
  std::optional<std::string> last_keypair_id;
  // A transition in flight: the status it ends in and when.
  std::optional<std::string> pending_status;
  Clock::time_point pending_until{};
  std::optional<std::string> pending_image;
};

struct SimListPage {
  std::vector<const SimInstance*> instances;
  std::string marker;
  bool truncated = false;
  std::string next_marker;
};

class BccFleet {
 public:
  BccFleet(std::string region, std::chrono::milliseconds transition);

  // Two 8×A100, two 8×H-class (H800, H20), one 1×A10; running and stopped.
  void add_default_instances();
  void add(SimInstance instance);

  // Completes the transitions whose deadline has passed.
  void advance(Clock::time_point now);
  // Completes every transition now (tests and the control API: no waiting on the clock).
  void finish_transitions();

  // Throw BccApiError for unknown ids, bad markers and wrong states.
  SimListPage list(const std::string& marker, std::size_t max_keys) const;
  const SimInstance& get(const std::string& id) const;
  void start(const std::string& id, Clock::time_point now);
  void stop(const std::string& id, bool force, Clock::time_point now);
  void reboot(const std::string& id, bool force, Clock::time_point now);
  void rebuild(const std::string& id, const std::string& image_id,
               std::optional<std::string> admin_pass, std::optional<std::string> keypair_id,
               Clock::time_point now);
  // Released: BCC shows it as Deleted.
  void terminate(const std::string& id);

  // The InstanceModel JSON (Go SDK key names; cardCount as a string).
  static nlohmann::json model_json(const SimInstance& instance);
  // flavorSpec's answer, optionally for one zone.
  nlohmann::json flavor_spec(const std::optional<std::string>& zone) const;
  // Everything, for the control API.
  nlohmann::json raw_state() const;

  const std::string& region() const { return region_; }

 private:
  SimInstance& find(const std::string& id);
  void begin(SimInstance& instance, const std::string& status, const std::string& then,
             Clock::time_point now);

  std::string region_;
  std::chrono::milliseconds transition_;
  std::vector<SimInstance> instances_;  // in creation order, the listing order
};

}  // namespace ironhold::sim::cloud::bcc
