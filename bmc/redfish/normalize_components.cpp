// Components and the hardware summary. Counting follows issue 3 exactly: CPUs and GPUs are the
// System's Processors members (wherever they live: public-cxl links a GPU under a Chassis), not
// every Processor the service has; absent slots are neither components nor counted.
#include <set>

#include "bmc/redfish/json_read.hpp"
#include "bmc/redfish/normalize_gpu.hpp"
#include "bmc/redfish/normalize_links.hpp"
#include "bmc/redfish/normalize_parts.hpp"
#include "bmc/redfish/normalizer.hpp"

namespace ironhold::bmc::redfish {

namespace {

using nlohmann::json;

// A component before its slot is decided: `id` is the slot when unique within its kind, else the
// path-derived name (so two "GPU" Ids under two chassis stay apart, and stay put over time).
struct Candidate {
  Component component;
  std::string id;
  std::string path;  // the resource it came from; empty for array elements
  std::string relative;
};

class Collector {
 public:
  explicit Collector(const ResourceGraph& graph) : graph_(graph) {}

  Candidate& add(ComponentKind kind, const json& document, const std::string& id,
                 const std::string& path, const std::string& relative) {
    Candidate candidate;
    Component& c = candidate.component;
    c.kind = kind;
    c.name = read_string(&document, "Name").value_or(id);
    c.model = read_string(&document, "Model");
    c.manufacturer = read_string(&document, "Manufacturer");
    c.serial = read_string(&document, "SerialNumber");
    c.part_number = read_string(&document, "PartNumber");
    c.firmware_version = read_string(&document, "FirmwareVersion");
    if (const json* status = read_object(&document, "Status")) c.status = health_of(*status);
    candidate.id = id;
    candidate.path = path;
    candidate.relative = relative;
    candidates_.push_back(std::move(candidate));
    return candidates_.back();
  }

  // Each member document of a collection linked from `owner` as `property`.
  template <class Visit>
  void each_member(const std::string& owner, std::string_view property_name, Visit visit) const {
    const json* document = graph_.find(owner);
    if (!document) return;
    std::string collection = link_of(*document, property_name);
    if (collection.empty()) return;
    for (const auto& path : graph_.members(collection))
      if (const json* member = graph_.find(path)) visit(*member, path);
  }

  // The collection `owner` links as `property` was read and has no members.
  bool lists_nothing(const std::string& owner, std::string_view property_name) const {
    const json* document = graph_.find(owner);
    if (!document) return false;
    std::string collection = link_of(*document, property_name);
    return !collection.empty() && graph_.find(collection) && graph_.members(collection).empty();
  }

  void unlisted(ComponentKind kind) { unlisted_.push_back(kind); }

  ComponentsResult finish(HardwareSummary summary) {
    std::map<std::pair<ComponentKind, std::string>, int> uses;
    for (const auto& c : candidates_) ++uses[{c.component.kind, c.id}];
    ComponentsResult result;
    std::set<std::pair<ComponentKind, std::string>> taken;
    for (auto& c : candidates_) {
      bool unique = uses[{c.component.kind, c.id}] == 1 && !c.id.empty();
      c.component.slot = unique ? c.id : c.relative;
      // The same resource linked twice (or a malformed service) must not give two components.
      if (!taken.insert({c.component.kind, c.component.slot}).second) continue;
      if (!c.path.empty()) result.slot_by_path.emplace(c.path, c.component.slot);
      result.components.push_back(std::move(c.component));
    }
    result.summary = std::move(summary);
    result.unlisted_kinds = std::move(unlisted_);
    return result;
  }

  const ResourceGraph& graph() const { return graph_; }

 private:
  const ResourceGraph& graph_;
  std::vector<Candidate> candidates_;
  std::vector<ComponentKind> unlisted_;
};

void put(json& details, const char* key, const std::optional<double>& value) {
  if (value) details[key] = *value;
}
void put(json& details, const char* key, const std::optional<std::string>& value) {
  if (value) details[key] = *value;
}

// A GPU's own memory: MemorySummary when given, else the non-cache ProcessorMemory entries.
std::optional<double> processor_memory_mib(const json& processor) {
  if (auto total = read_number(read_object(&processor, "MemorySummary"), "TotalMemorySizeMiB"))
    return total;
  const json* memories = read_array(&processor, "ProcessorMemory");
  if (!memories) return std::nullopt;
  std::optional<double> sum;
  for (const auto& memory : *memories) {
    if (read_string(&memory, "MemoryType") == "Cache") continue;
    if (auto mib = read_number(&memory, "CapacityMiB")) sum = sum.value_or(0) + *mib;
  }
  return sum;
}

void add_processors(Collector& collector, const std::string& system, HardwareSummary& summary) {
  collector.each_member(system, "Processors", [&](const json& processor, const std::string& path) {
    if (is_absent(processor)) return;
    std::optional<std::string> type = read_string(&processor, "ProcessorType");
    ComponentKind kind = type == "CPU"   ? ComponentKind::cpu
                         : type == "GPU" ? ComponentKind::gpu
                                         : ComponentKind::other;
    Candidate& c =
        collector.add(kind, processor, resource_id(processor, path), path, relative_path(path));
    json& details = c.component.details;
    put(details, "cores", read_number(&processor, "TotalCores"));
    put(details, "threads", read_number(&processor, "TotalThreads"));
    if (kind != ComponentKind::cpu) {
      if (auto mib = processor_memory_mib(processor)) details["memory_gib"] = *mib / 1024.0;
    }
    if (kind == ComponentKind::gpu) {
      // Named: items() of a temporary would outlive it.
      const nlohmann::json health = gpu_health_details(collector.graph(), path);
      for (const auto& [key, value] : health.items()) details[key] = value;
    }
    if (kind == ComponentKind::other) details["processor_type"] = type.value_or("unknown");
    if (!c.component.firmware_version)  // FPGAs carry theirs in the FPGA object
      c.component.firmware_version =
          read_string(read_object(&processor, "FPGA"), "FirmwareVersion");
    if (kind == ComponentKind::cpu) {
      ++summary.cpu_count;
      if (!summary.cpu_model) summary.cpu_model = c.component.model;
    } else if (kind == ComponentKind::gpu) {
      ++summary.gpu_count;
      if (!summary.gpu_model) summary.gpu_model = c.component.model;
    }
  });
}

// The System's ProcessorSummary stands in for the count and model of the CPUs it did not list.
void note_unlisted_processors(Collector& collector, const std::string& system, bool gpus_there_too,
                              HardwareSummary& summary) {
  collector.unlisted(ComponentKind::cpu);
  collector.unlisted(ComponentKind::other);
  if (gpus_there_too) collector.unlisted(ComponentKind::gpu);
  const json* processors = read_object(collector.graph().find(system), "ProcessorSummary");
  if (auto count = read_number(processors, "Count"); count && *count > 0)
    summary.cpu_count = static_cast<int>(*count);
  summary.cpu_model = read_string(processors, "Model");
}

void add_memory(Collector& collector, const std::string& system, HardwareSummary& summary) {
  std::optional<double> modules_mib;
  collector.each_member(system, "Memory", [&](const json& module, const std::string& path) {
    if (is_absent(module)) return;
    Candidate& c = collector.add(ComponentKind::memory, module, resource_id(module, path), path,
                                 relative_path(path));
    std::optional<double> mib = read_number(&module, "CapacityMiB");
    put(c.component.details, "capacity_mib", mib);
    put(c.component.details, "type", read_string(&module, "MemoryDeviceType"));
    if (mib) modules_mib = modules_mib.value_or(0) + *mib;
  });
  const json* system_document = collector.graph().find(system);
  summary.memory_gib =
      read_number(read_object(system_document, "MemorySummary"), "TotalSystemMemoryGiB");
  if (!summary.memory_gib && modules_mib) summary.memory_gib = *modules_mib / 1024.0;
}

void count_drive(Candidate& c, const json& drive, HardwareSummary& summary) {
  std::optional<double> bytes = read_number(&drive, "CapacityBytes");
  put(c.component.details, "capacity_bytes", bytes);
  put(c.component.details, "media", read_string(&drive, "MediaType"));
  ++summary.drive_count;
  if (bytes) summary.drive_capacity_gb = summary.drive_capacity_gb.value_or(0) + *bytes / 1e9;
}

// Storage -> Drives; SimpleStorage is the older view of the same disks, used only when Storage
// yields none (counting both would count each disk twice).
void add_drives(Collector& collector, const std::string& system, HardwareSummary& summary) {
  const ResourceGraph& graph = collector.graph();
  int found = 0;
  std::set<std::string> seen;
  collector.each_member(system, "Storage", [&](const json& storage, const std::string&) {
    for (const auto& path : read_links(&storage, "Drives")) {
      const json* drive = graph.find(path);
      if (!drive || is_absent(*drive) || !seen.insert(path).second) continue;
      Candidate& c = collector.add(ComponentKind::drive, *drive, resource_id(*drive, path), path,
                                   relative_path(path));
      count_drive(c, *drive, summary);
      ++found;
    }
  });
  if (found > 0) return;
  collector.each_member(
      system, "SimpleStorage", [&](const json& controller, const std::string& path) {
        const json* devices = read_array(&controller, "Devices");
        if (!devices) return;
        for (std::size_t i = 0; i < devices->size(); ++i) {
          const json& device = (*devices)[i];
          if (!device.is_object() || is_absent(device)) continue;
          std::string name = relative_path(path) + "/Devices/" + std::to_string(i);
          Candidate& c = collector.add(ComponentKind::drive, device, "", "", name);
          count_drive(c, device, summary);
        }
      });
}

void add_nics(Collector& collector, const std::string& system) {
  collector.each_member(
      system, "EthernetInterfaces", [&](const json& port, const std::string& path) {
        // VLANs and bonds are views of a physical port, not hardware.
        if (is_absent(port) || read_string(&port, "EthernetInterfaceType") == "Virtual") return;
        Candidate& c = collector.add(ComponentKind::nic, port, resource_id(port, path), path,
                                     relative_path(path));
        auto mac = read_string(&port, "PermanentMACAddress");
        if (!mac) mac = read_string(&port, "MACAddress");
        c.component.details["macs"] = mac ? json::array({*mac}) : json::array();
        put(c.component.details, "speed_mbps", read_number(&port, "SpeedMbps"));
        put(c.component.details, "link_status", read_string(&port, "LinkStatus"));
      });
}

// Elements of an old-style array (Power.PowerSupplies, Thermal.Fans) as components.
void add_array_elements(Collector& collector, ComponentKind kind, const std::string& owner,
                        std::string_view array_name) {
  const json* document = collector.graph().find(owner);
  const json* elements = read_array(document, array_name);
  if (!elements) return;
  for (std::size_t i = 0; i < elements->size(); ++i) {
    const json& element = (*elements)[i];
    if (!element.is_object() || is_absent(element)) continue;
    std::string name = relative_path(owner) + "/" + std::string(array_name) + "/" +
                       read_string(&element, "MemberId").value_or(std::to_string(i));
    Candidate& c = collector.add(kind, element, "", "", name);
    if (kind == ComponentKind::psu)
      put(c.component.details, "capacity_watts", read_number(&element, "PowerCapacityWatts"));
  }
}

void add_chassis_parts(Collector& collector, const std::string& system) {
  const ResourceGraph& graph = collector.graph();
  for (const auto& chassis : chassis_of(graph, system)) {
    const json* document = graph.find(chassis);
    std::string power = link_of(*document, "PowerSubsystem");
    if (!power.empty() && graph.find(power)) {
      collector.each_member(power, "PowerSupplies", [&](const json& psu, const std::string& path) {
        if (is_absent(psu)) return;
        Candidate& c = collector.add(ComponentKind::psu, psu, resource_id(psu, path), path,
                                     relative_path(path));
        put(c.component.details, "capacity_watts", read_number(&psu, "PowerCapacityWatts"));
      });
    } else {
      add_array_elements(collector, ComponentKind::psu, link_of(*document, "Power"),
                         "PowerSupplies");
    }
    std::string thermal = link_of(*document, "ThermalSubsystem");
    if (!thermal.empty() && graph.find(thermal)) {
      collector.each_member(thermal, "Fans", [&](const json& fan, const std::string& path) {
        if (is_absent(fan)) return;
        collector.add(ComponentKind::fan, fan, resource_id(fan, path), path, relative_path(path));
      });
    } else {
      add_array_elements(collector, ComponentKind::fan, link_of(*document, "Thermal"), "Fans");
    }
  }
}

}  // namespace

ComponentsResult normalize_components(const ResourceGraph& graph, const std::string& system_path,
                                      const std::vector<std::string>& baseboards) {
  Collector collector(graph);
  HardwareSummary summary;
  if (!graph.find(system_path)) return collector.finish(summary);
  add_processors(collector, system_path, summary);
  // The HBM of a baseboard's Memory belongs to its GPUs (their memory_gib), not to the host.
  for (const auto& board : baseboards) add_processors(collector, board, summary);
  // A baseboard that lists no GPU has lost them (that must alert); a host without processors or
  // memory cannot be running, so its empty collection means "not known yet".
  if (collector.lists_nothing(system_path, "Processors"))
    note_unlisted_processors(collector, system_path, baseboards.empty(), summary);
  add_memory(collector, system_path, summary);
  if (collector.lists_nothing(system_path, "Memory")) collector.unlisted(ComponentKind::memory);
  add_drives(collector, system_path, summary);
  add_nics(collector, system_path);
  add_chassis_parts(collector, system_path);
  return collector.finish(summary);
}

}  // namespace ironhold::bmc::redfish
