#include "sim/cloud/bcc/bcc_fleet.hpp"

#include <algorithm>

#include "sim/cloud/bcc/bcc_errors.hpp"

namespace ironhold::sim::cloud::bcc {
namespace {

using nlohmann::json;

// Spec names in Baidu's style: family, vCPUs and memory, then the cards.
const SimFlavor kA100x8{"bcc.lgn5.c128m1024.8a100", "A100", 8, 128, 1024};
const SimFlavor kH800x8{"bcc.lgn6.c192m2048.8h800", "H800", 8, 192, 2048};
const SimFlavor kH20x8{"bcc.lgn7.c96m1024.8h20", "H20", 8, 96, 1024};
const SimFlavor kA10x1{"bcc.gn5.c28m112.1a10", "A10", 1, 28, 112};
const SimFlavor kCpuOnly{"bcc.g5.c8m32", "", 0, 8, 32};

std::vector<SimFlavor> catalogue() {
  return {kA100x8, kH800x8, kH20x8, kA10x1, kCpuOnly};
}

bool busy(const SimInstance& instance) {
  return instance.pending_status.has_value();
}

}  // namespace

BccFleet::BccFleet(std::string region, std::chrono::milliseconds transition)
    : region_(std::move(region)), transition_(transition) {}

void BccFleet::add(SimInstance instance) {
  instances_.push_back(std::move(instance));
}

void BccFleet::add_default_instances() {
  const std::string zone = "cn-" + region_ + "-";
  const auto make = [&](std::string id, std::string name, std::string status, std::string z,
                        SimFlavor flavor, int n) {
    SimInstance i;
    i.id = std::move(id);
    i.name = std::move(name);
    i.status = std::move(status);
    i.zone = zone + z;
    i.flavor = std::move(flavor);
    i.image_id = "m-UbT2204g";
    i.create_time = "2025-0" + std::to_string(n) + "-1" + std::to_string(n) + "T0" +
                    std::to_string(n) + ":30:00Z";
    i.internal_ip = "192.168.16." + std::to_string(10 + n);
    i.tags = {{"team", n <= 4 ? "training" : "inference"}, {"env", "prod"}};
    return i;
  };
  add(make("i-a100Xk01", "train-a100-01", "Running", "a", kA100x8, 1));
  add(make("i-a100Xk02", "train-a100-02", "Stopped", "d", kA100x8, 2));
  add(make("i-h800Yp03", "train-h800-01", "Running", "a", kH800x8, 3));
  SimInstance h20 = make("i-h20Zq04x", "infer-h20-01", "Running", "d", kH20x8, 4);
  h20.card_on_instance = false;
  h20.public_ip = "106.12.34.56";
  add(std::move(h20));
  SimInstance a10 = make("i-a10Wm05x", "dev-a10-01", "Stopped", "c", kA10x1, 5);
  a10.repair_status = "normal";
  add(std::move(a10));
}

void BccFleet::advance(Clock::time_point now) {
  for (auto& i : instances_) {
    if (!i.pending_status || now < i.pending_until) continue;
    i.status = *i.pending_status;
    if (i.pending_image) i.image_id = *i.pending_image;
    i.pending_status.reset();
    i.pending_image.reset();
  }
}

void BccFleet::finish_transitions() {
  for (auto& i : instances_)
    if (i.pending_status) i.pending_until = Clock::time_point::min();
  advance(Clock::now());
}

SimListPage BccFleet::list(const std::string& marker, std::size_t max_keys) const {
  SimListPage page;
  page.marker = marker;
  std::size_t first = 0;
  if (!marker.empty()) {
    const auto it = std::find_if(instances_.begin(), instances_.end(),
                                 [&](const SimInstance& i) { return i.id == marker; });
    if (it == instances_.end())
      throw BccApiError(faults::invalid_parameter("The marker " + marker + " is not valid."));
    first = static_cast<std::size_t>(it - instances_.begin());
  }
  const std::size_t end = std::min(instances_.size(), first + std::max<std::size_t>(max_keys, 1));
  for (std::size_t k = first; k < end; ++k) page.instances.push_back(&instances_[k]);
  if (end < instances_.size()) {
    page.truncated = true;
    page.next_marker = instances_[end].id;  // BCC's marker is the first id of the next page
  }
  return page;
}

SimInstance& BccFleet::find(const std::string& id) {
  for (auto& i : instances_)
    if (i.id == id) return i;
  throw BccApiError(faults::no_such_instance(id));
}

const SimInstance& BccFleet::get(const std::string& id) const {
  return const_cast<BccFleet*>(this)->find(id);
}

void BccFleet::begin(SimInstance& instance, const std::string& status, const std::string& then,
                     Clock::time_point now) {
  instance.status = status;
  instance.pending_status = then;
  instance.pending_until = now + transition_;
}

void BccFleet::start(const std::string& id, Clock::time_point now) {
  SimInstance& i = find(id);
  if (i.status != "Stopped" || busy(i))
    throw BccApiError(faults::invalid_status(id, i.status, "start"));
  begin(i, "Starting", "Running", now);
}

void BccFleet::stop(const std::string& id, bool force, Clock::time_point now) {
  SimInstance& i = find(id);
  if (i.status != "Running" || busy(i))
    throw BccApiError(faults::invalid_status(id, i.status, "stop"));
  i.last_force_stop = force;
  begin(i, "Stopping", "Stopped", now);
}

void BccFleet::reboot(const std::string& id, bool force, Clock::time_point now) {
  SimInstance& i = find(id);
  if (i.status != "Running" || busy(i))
    throw BccApiError(faults::invalid_status(id, i.status, "reboot"));
  i.last_force_stop = force;
  begin(i, "Starting", "Running", now);
}

void BccFleet::rebuild(const std::string& id, const std::string& image_id,
                       std::optional<std::string> admin_pass, std::optional<std::string> keypair_id,
                       Clock::time_point now) {
  SimInstance& i = find(id);
  if ((i.status != "Running" && i.status != "Stopped") || busy(i))
    throw BccApiError(faults::invalid_status(id, i.status, "rebuild"));
  i.last_admin_pass = std::move(admin_pass);
  i.last_keypair_id = std::move(keypair_id);
  // InstanceStatus has no "Rebuilding": the image work shows as ImageProcessing until the
  // instance runs its new image.
  begin(i, "ImageProcessing", "Running", now);
  i.pending_image = image_id;
}

void BccFleet::terminate(const std::string& id) {
  SimInstance& i = find(id);
  i.status = "Deleted";
  i.pending_status.reset();
  i.pending_image.reset();
}

json BccFleet::model_json(const SimInstance& i) {
  json tags = json::array();
  for (const auto& [k, v] : i.tags) tags.push_back({{"tagKey", k}, {"tagValue", v}});
  const bool gpu = i.flavor.gpu_count > 0;
  return {
      {"id", i.id},
      {"serialNumber", ""},
      {"name", i.name},
      {"hostname", i.name},
      {"instanceType", gpu ? "G1" : "N5"},
      {"spec", i.flavor.spec},
      {"desc", ""},
      {"status", i.status},
      {"chargeStatus", "active"},
      {"paymentTiming", "Postpaid"},
      {"createTime", i.create_time},
      {"expireTime", ""},
      {"publicIp", i.public_ip},
      {"internalIp", i.internal_ip},
      {"cpuCount", i.flavor.cpu_count},
      {"isomerismCard", ""},
      {"gpuCard", i.card_on_instance ? i.flavor.gpu_card : ""},
      {"fpgaCard", ""},
      // A string in BCC's API (the Go SDK declares it so), not a number.
      {"cardCount", i.card_on_instance && gpu ? std::to_string(i.flavor.gpu_count) : ""},
      {"memoryCapacityInGB", i.flavor.memory_gib},
      {"localDiskSizeInGB", 0},
      {"imageId", i.image_id},
      {"networkCapacityInMbps", 1000},
      {"placementPolicy", "default"},
      {"zoneName", i.zone},
      {"subnetId", "sbn-sim0001"},
      {"vpcId", "vpc-sim0001"},
      {"autoRenew", false},
      {"keypairId", i.last_keypair_id.value_or("")},
      {"keypairName", ""},
      {"dedicatedHostId", ""},
      {"tags", tags},
      {"ipv6", ""},
      {"eniQuota", 8},
      {"eriQuota", 0},
      {"rdmaType", ""},
      {"switchId", ""},
      {"hostId", ""},
      {"deploysetId", ""},
      {"rackId", ""},
      {"deletionProtection", 0},
      {"repairStatus", i.repair_status},
      {"osName", "Ubuntu"},
      {"osVersion", "22.04 LTS amd64 (64bit)"},
      {"osArch", "x86_64 (64bit)"},
  };
}

json BccFleet::flavor_spec(const std::optional<std::string>& zone) const {
  json zones = json::array();
  for (const char letter : {'a', 'c', 'd'}) {
    const std::string name = "cn-" + region_ + "-" + letter;
    if (zone && *zone != name) continue;
    json flavors = json::array();
    for (const auto& f : catalogue())
      flavors.push_back({{"cpuCount", f.cpu_count},
                         {"memoryCapacityInGB", f.memory_gib},
                         {"ephemeralDiskInGb", 0},
                         {"ephemeralDiskCount", 0},
                         {"ephemeralDiskType", ""},
                         {"gpuCardType", f.gpu_card},
                         {"gpuCardCount", f.gpu_count},
                         {"fpgaCardType", ""},
                         {"fpgaCardCount", 0},
                         {"productType", "PostPaid"},
                         {"spec", f.spec},
                         {"specId", f.spec.substr(0, f.spec.find('.', 4))}});
    zones.push_back(
        {{"zoneName", name},
         {"bccResources", {{"flavorGroups", {{{"groupId", "default"}, {"flavors", flavors}}}}}}});
  }
  return {{"zoneResources", zones}};
}

json BccFleet::raw_state() const {
  json out = json::array();
  for (const auto& i : instances_) {
    json item = model_json(i);
    item["gpuCardType"] = i.flavor.gpu_card;
    item["gpuCardCount"] = i.flavor.gpu_count;
    item["pendingStatus"] = i.pending_status ? json(*i.pending_status) : json(nullptr);
    item["lastForceStop"] = i.last_force_stop ? json(*i.last_force_stop) : json(nullptr);
    item["lastAdminPass"] = i.last_admin_pass ? json(*i.last_admin_pass) : json(nullptr);
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace ironhold::sim::cloud::bcc
