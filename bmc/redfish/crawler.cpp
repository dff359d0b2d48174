#include "bmc/redfish/crawler.hpp"

#include <algorithm>
#include <exception>
#include <optional>
#include <set>

#include "bmc/redfish/json_read.hpp"
#include "bmc/redfish/normalize_links.hpp"

// GCC 12 miscompiles some coroutine expressions: every co_await below awaits a call whose
// arguments are named objects (no temporaries with destructors, no capturing lambdas), and no
// co_return sits inside a try block.

namespace ironhold::bmc::redfish {

namespace {

using nlohmann::json;

// Errors that say the whole BMC is gone or must not be talked to: reading on would only repeat
// them (and, for credentials, lock the account). Anything else is about one resource.
bool stops_the_crawl(DriverErrorCode code) {
  return code == DriverErrorCode::auth_failed || code == DriverErrorCode::tls_pin_mismatch ||
         code == DriverErrorCode::tls_failed || code == DriverErrorCode::unreachable;
}

// Where a collection's next page is, as a request path (query kept, fragment, scheme and
// authority dropped); empty when there is none or it leaves the service.
std::string next_page(const json& page) {
  std::optional<std::string> link = read_string(&page, "Members@odata.nextLink");
  if (!link) link = read_string(&page, "@odata.nextLink");  // what the DMTF mockups use
  if (!link || canonical_path(*link).empty()) return {};
  std::string_view text = *link;
  text = text.substr(0, text.find('#'));
  if (auto scheme = text.find("://"); scheme != std::string_view::npos) {
    auto path = text.find('/', scheme + 3);
    text = path == std::string_view::npos ? std::string_view{} : text.substr(path);
  }
  return std::string(text);
}

// An expanded member ($expand, or what log services do on their own) carries the whole
// document; a plain link carries only @odata.id.
bool is_expanded(const json& member) {
  return member.is_object() && (member.contains("@odata.type") || member.contains("Id"));
}

class Crawl {
 public:
  Crawl(Fetcher fetch, CrawlOptions options)
      : fetch_(std::move(fetch)), options_(std::move(options)) {}

  boost::asio::awaitable<CrawlResult> run() {
    co_await read_systems();
    if (!stopped() && options_.scope != CrawlScope::status) co_await read_around_systems();
    co_return std::move(result_);
  }

 private:
  bool stopped() const { return result_.error.has_value(); }
  const std::string root_path_{service_root_path};
  ResourceGraph& graph() { return result_.graph; }

  void fail(DriverErrorCode code, std::string message) {
    if (!stopped()) result_.error = DriverError{code, std::move(message)};
  }

  // A resource the crawl cannot do without: its failure is the crawl's error, with the fetch
  // error's code (a timeout stays a timeout).
  void require(const json* document, const std::string& what) {
    if (document || stopped()) return;
    DriverErrorCode code = last_failure_ ? last_failure_->code : DriverErrorCode::bad_response;
    std::string reason = last_failure_ ? last_failure_->message : "not linked";
    fail(code, what + " could not be read: " + reason);
  }

  // One GET, counted against max_documents. Non-fatal failures become warnings.
  boost::asio::awaitable<std::optional<json>> get(const std::string& request) {
    if (stopped()) co_return std::nullopt;
    if (fetches_ >= options_.max_documents) {
      fail(DriverErrorCode::bad_response, "the service links more than " +
                                              std::to_string(options_.max_documents) +
                                              " documents; crawl cut off at " + request);
      co_return std::nullopt;
    }
    ++fetches_;
    FetchResult fetched = DriverError{DriverErrorCode::bad_response, "no answer"};
    try {
      fetched = co_await fetch_(request);
    } catch (const std::exception& error) {  // a fetcher must not throw; one that does is a bug
      fetched = DriverError{DriverErrorCode::bad_response, error.what()};
    }
    if (auto* error = std::get_if<DriverError>(&fetched)) {
      last_failure_ = *error;
      if (stops_the_crawl(error->code))
        fail(error->code, "GET " + request + ": " + error->message);
      else
        result_.warnings.push_back("GET " + request + ": " + error->message);
      co_return std::nullopt;
    }
    auto& document = std::get<json>(fetched);
    if (!document.is_object()) {
      last_failure_ = DriverError{DriverErrorCode::bad_response, "not a JSON object"};
      result_.warnings.push_back("GET " + request + ": not a JSON object");
      co_return std::nullopt;
    }
    co_return std::move(document);
  }

  // The document at a canonical path: read once per crawl, whatever number of links lead to it.
  boost::asio::awaitable<const json*> read(const std::string& path) {
    if (stopped() || path.empty()) co_return nullptr;
    if (const json* known = graph().find(path)) co_return known;
    if (!tried_.insert(path).second) co_return nullptr;
    std::optional<json> document = co_await get(path);
    if (!document) co_return nullptr;
    graph().add(path, std::move(*document));
    co_return graph().find(path);
  }

  // Records a page's members; returns how many were new. Expanded members are kept as their
  // documents (log entries already reported are dropped: they are not needed again).
  std::size_t take_members(const json& page, std::vector<std::string>& members, bool entries) {
    std::size_t added = 0;
    const json* list = read_array(&page, "Members");
    if (!list) return 0;
    for (const auto& member : *list) {
      std::string path = id_of(member);
      if (path.empty() || std::find(members.begin(), members.end(), path) != members.end())
        continue;
      members.push_back(path);
      ++added;
      bool wanted = !(entries && options_.entry_seen && options_.entry_seen(path));
      if (wanted && is_expanded(member) && !graph().find(path)) graph().add(path, member);
    }
    return added;
  }

  // A collection's members over every page. Members is the truth (its count annotation is
  // ignored); paging stops when a page adds nothing new, since static services answer every
  // $skiptoken with the same page.
  boost::asio::awaitable<std::vector<std::string>> read_collection(const std::string& path,
                                                                   bool entries = false) {
    std::vector<std::string> members;
    const json* first = co_await read(path);
    if (!first) co_return members;
    take_members(*first, members, entries);
    std::string next = next_page(*first);
    std::size_t pages = 1;
    while (!next.empty() && !stopped()) {
      if (pages >= options_.max_pages) {
        fail(DriverErrorCode::bad_response,
             path + " has more than " + std::to_string(options_.max_pages) + " pages");
        break;
      }
      ++pages;
      std::optional<json> page = co_await get(next);
      if (!page || take_members(*page, members, entries) == 0) break;
      next = next_page(*page);
    }
    graph().set_members(path, members);
    co_return members;
  }

  boost::asio::awaitable<void> read_members(const std::string& collection) {
    std::vector<std::string> members = co_await read_collection(collection);
    for (const auto& member : members) co_await read(member);
  }

  // A property of an already read document that links a collection: read it and its members.
  boost::asio::awaitable<void> read_linked_members(const std::string& owner,
                                                   std::string_view property_name) {
    const json* document = graph().find(owner);
    if (!document) co_return;
    std::string collection = link_of(*document, property_name);
    if (!collection.empty()) co_await read_members(collection);
  }

  boost::asio::awaitable<const json*> read_linked(const std::string& owner,
                                                  std::string_view property_name) {
    const json* document = graph().find(owner);
    if (!document) co_return nullptr;
    std::string target = link_of(*document, property_name);
    co_return co_await read(target);
  }

  boost::asio::awaitable<void> read_systems() {
    std::vector<std::string> systems;
    for (const auto& path : options_.system_paths)
      if (std::string canonical = canonical_path(path); !canonical.empty())
        systems.push_back(canonical);
    // The status poll of a known service goes straight to its Systems; every other crawl needs
    // the root for the Chassis, Managers and UpdateService collections.
    if (options_.scope != CrawlScope::status || systems.empty()) {
      std::string root_path(service_root_path);
      const json* root = co_await read(root_path);
      require(root, "the service root");
      if (!root) co_return;
      if (systems.empty()) {
        std::string collection = link_of(*root, "Systems");
        systems = co_await read_collection(collection);
        require(graph().find(collection), "the Systems collection");
        // A BMC still starting (or whose host agent is not up) may answer 200 with no members.
        // Taken at its word, every System behind it would be gone and its nodes retired.
        if (systems.empty() && graph().find(collection))
          fail(DriverErrorCode::bad_response,
               collection +
                   " lists no Systems (an empty Members), as a BMC that is still "
                   "starting answers; nothing was recorded");
      }
    }
    // Only for Systems known before this crawl: a root read above means there is no select.
    const bool select = !options_.system_select.empty() && !graph().find(root_path_);
    for (const auto& system : systems) {
      if (select) co_await read_selected(system);
      const json* document = co_await read(system);
      require(document, "System " + system);
      if (stopped()) co_return;
    }
    // Hosts first; GPU baseboards apart (a service of baseboards only is read as hosts).
    std::vector<std::string> hosts, boards;
    for (const auto& system : systems)
      (is_gpu_baseboard(graph().find(system), system) ? boards : hosts).push_back(system);
    if (hosts.empty()) std::swap(hosts, boards);
    if (options_.system_paths.empty()) {
      result_.baseboard_paths = std::move(boards);
    } else if (options_.scope != CrawlScope::status) {
      for (const auto& board : options_.baseboard_paths)
        if (std::string canonical = canonical_path(board); !canonical.empty()) {
          co_await read(canonical);
          if (graph().find(canonical)) result_.baseboard_paths.push_back(canonical);
        }
    } else {
      result_.baseboard_paths = options_.baseboard_paths;
    }
    result_.system_paths = std::move(hosts);
  }

  // A System through $select. A service that answers without the status properties did not
  // select (or selected wrongly): the document is dropped, so read() fetches it whole.
  boost::asio::awaitable<void> read_selected(const std::string& system) {
    std::string request = system + "?" + options_.system_select;
    std::optional<json> document = co_await get(request);
    if (!document) {
      // Refused (a 400 from a service that declares more than it does) or lost: read whole,
      // and select no more until the root is read again.
      if (!stopped()) result_.select_ignored = true;
      co_return;
    }
    if (!document->contains("PowerState") && !document->contains("Status")) {
      result_.select_ignored = true;
      co_return;
    }
    graph().add(system, std::move(*document));
  }

  boost::asio::awaitable<void> read_around_systems() {
    // Every chassis is read: only its own Links.ComputerSystems may say which System it holds.
    std::string chassis_collection = root_link(graph(), "Chassis");
    if (!chassis_collection.empty()) co_await read_members(chassis_collection);
    for (const auto& system : result_.system_paths) {
      const json* document = graph().find(system);
      for (const auto& manager : read_links(read_object(document, "Links"), "ManagedBy"))
        co_await read(manager);
    }
    // All Managers (usually one): managers_of falls back to them when a System names none, and
    // manager_firmware reports the service's first.
    std::string managers = root_link(graph(), "Managers");
    if (!managers.empty()) co_await read_members(managers);
    std::set<std::string> chassis_done;
    std::set<std::string> logs_done;
    for (const auto& system : result_.system_paths) {
      for (const auto& chassis : chassis_of(graph(), system))
        if (chassis_done.insert(chassis).second) co_await read_chassis(chassis);
      std::vector<std::string> log_owners = managers_of(graph(), system);
      log_owners.insert(log_owners.begin(), system);
      for (const auto& owner : log_owners)
        if (logs_done.insert(owner).second) co_await read_logs(owner);
      if (options_.scope == CrawlScope::inventory) co_await read_system_parts(system);
    }
    // A GPU baseboard: its GPU chassis (sensors), its own logs, and in an inspection its GPUs
    // with their metrics, and the GPUs' memory with its metrics.
    for (const auto& board : result_.baseboard_paths) {
      for (const auto& chassis : chassis_of(graph(), board))
        if (chassis_done.insert(chassis).second) co_await read_chassis(chassis);
      if (logs_done.insert(board).second) co_await read_logs(board);
      // Their health counters move: every sensor poll reads them; NVLink ports (18 a GPU) only
      // an inspection.
      co_await read_baseboard_parts(board, options_.scope == CrawlScope::inventory);
    }
    if (!result_.baseboard_paths.empty()) co_await read_nvswitches();
    if (options_.scope == CrawlScope::inventory) {
      std::string root_path(service_root_path);
      const json* update_service = co_await read_linked(root_path, "UpdateService");
      if (update_service) {
        std::string update_path = link_of(*graph().find(root_path), "UpdateService");
        co_await read_linked_members(update_path, "FirmwareInventory");
      }
    }
  }

  // Sensors, fans and power supplies. The old Thermal/Power resources are read only where the
  // new ones do not already cover them: Sensors for readings, the subsystems for fans and PSUs.
  boost::asio::awaitable<void> read_chassis(const std::string& chassis) {
    bool inventory = options_.scope == CrawlScope::inventory;
    co_await read_linked_members(chassis, "Sensors");
    const json* document = graph().find(chassis);
    std::string sensors = document ? link_of(*document, "Sensors") : std::string{};
    bool has_sensors = !sensors.empty() && !graph().members(sensors).empty();

    const json* thermal = co_await read_linked(chassis, "ThermalSubsystem");
    if (thermal) {
      std::string thermal_path = link_of(*graph().find(chassis), "ThermalSubsystem");
      co_await read_linked(thermal_path, "ThermalMetrics");
      co_await read_linked_members(thermal_path, "Fans");
    }
    const json* power = co_await read_linked(chassis, "PowerSubsystem");
    if (power && inventory) {
      std::string power_path = link_of(*graph().find(chassis), "PowerSubsystem");
      co_await read_linked_members(power_path, "PowerSupplies");
    }
    // A Sensors collection need not hold everything: AMI MegaRAC services list a few power
    // readings there and keep the temperatures in Thermal, so the old resources are read for
    // what the Sensors lack.
    std::set<std::string> types;
    for (const auto& sensor : graph().members(sensors))
      if (auto type = read_string(graph().find(sensor), "ReadingType")) types.insert(*type);
    const bool sensors_hold_thermal = has_sensors && types.count("Temperature");
    const bool sensors_hold_power = has_sensors && types.count("Voltage") && types.count("Power");
    const json* old_thermal = nullptr;
    if (!sensors_hold_thermal || (inventory && !thermal))
      old_thermal = co_await read_linked(chassis, "Thermal");
    if (!sensors_hold_power || (inventory && !power)) co_await read_linked(chassis, "Power");

    // A temperature is a GPU's when it relates to a GPU Processor: read the Processors the
    // readings name, so the sensor poll and the inspection give the same kind.
    std::vector<std::string> related;
    for (const auto& sensor : graph().members(sensors))
      for (auto& item : read_links(graph().find(sensor), "RelatedItem")) related.push_back(item);
    if (const json* temperatures = read_array(old_thermal, "Temperatures"))
      for (const auto& element : *temperatures)
        for (auto& item : read_links(&element, "RelatedItem")) related.push_back(item);
    for (const auto& item : related)
      if (item.find("/Processors/") != std::string::npos) co_await read(item);
  }

  boost::asio::awaitable<void> read_logs(const std::string& owner) {
    const json* document = graph().find(owner);
    if (!document) co_return;
    std::string services = link_of(*document, "LogServices");
    if (services.empty()) co_return;
    std::vector<std::string> members = co_await read_collection(services);
    for (const auto& service : members) {
      const json* log = co_await read(service);
      if (!log) continue;
      std::string entries_path = link_of(*log, "Entries");
      if (entries_path.empty()) continue;
      std::vector<std::string> entries = co_await read_collection(entries_path, true);
      std::size_t read_here = 0;
      for (const auto& entry : entries) {
        if (graph().find(entry)) continue;  // expanded inline
        if (options_.entry_seen && options_.entry_seen(entry)) continue;
        if (read_here++ >= options_.max_log_entries) {
          result_.warnings.push_back(entries_path + ": more than " +
                                     std::to_string(options_.max_log_entries) +
                                     " new entries; the rest are read by later polls");
          break;
        }
        co_await read(entry);
      }
    }
  }

  // Per GPU: ProcessorMetrics (PCIe errors, throttling, SRAM ECC), MemorySummary's
  // MemoryMetrics, the NVLink ports' metrics; per GPU memory: its MemoryMetrics (HBM ECC, row
  // remapping).
  boost::asio::awaitable<void> read_baseboard_parts(const std::string& board, bool with_ports) {
    co_await read_linked_members(board, "Processors");
    co_await read_linked_members(board, "Memory");
    const json* document = graph().find(board);
    const std::string processors = document ? link_of(*document, "Processors") : std::string{};
    for (const auto& gpu :
         processors.empty() ? std::vector<std::string>{} : graph().members(processors)) {
      co_await read_linked(gpu, "Metrics");
      if (const json* summary = read_object(graph().find(gpu), "MemorySummary"))
        co_await read(link_of(*summary, "Metrics"));
      const json* processor = graph().find(gpu);
      const std::string ports = processor ? link_of(*processor, "Ports") : std::string{};
      if (ports.empty() || !with_ports) continue;
      for (const auto& port : co_await read_collection(ports)) {
        co_await read(port);
        co_await read_linked(port, "Metrics");
      }
    }
    const std::string memory = document ? link_of(*document, "Memory") : std::string{};
    for (const auto& module : memory.empty() ? std::vector<std::string>{} : graph().members(memory))
      co_await read_linked(module, "Metrics");
  }

  // The NVLink Switches of the service's Fabrics and their metrics (ECC, PCIe errors), which move:
  // read by every sensor poll, as the GPUs' are. Other fabrics' switches (PCIe) are left alone.
  boost::asio::awaitable<void> read_nvswitches() {
    std::string fabrics = root_link(graph(), "Fabrics");
    if (fabrics.empty()) co_return;
    for (const auto& fabric : co_await read_collection(fabrics)) {
      const json* document = co_await read(fabric);
      if (!document || read_string(document, "FabricType").value_or("NVLink") != "NVLink") continue;
      std::string switches = link_of(*document, "Switches");
      if (switches.empty()) continue;
      for (const auto& path : co_await read_collection(switches)) {
        const json* nvswitch = co_await read(path);
        if (read_string(nvswitch, "SwitchType") == "NVLink") co_await read_linked(path, "Metrics");
      }
    }
  }

  boost::asio::awaitable<void> read_system_parts(const std::string& system) {
    co_await read_linked_members(system, "Processors");
    // A GPU's health counters, where the service has them (normalize_gpu.hpp).
    const json* host = graph().find(system);
    const std::string processors = host ? link_of(*host, "Processors") : std::string{};
    for (const auto& p :
         processors.empty() ? std::vector<std::string>{} : graph().members(processors)) {
      const json* processor = graph().find(p);
      if (read_string(processor, "ProcessorType") != "GPU") continue;
      co_await read_linked(p, "Metrics");
      if (const json* summary = read_object(graph().find(p), "MemorySummary"))
        co_await read(link_of(*summary, "Metrics"));
    }
    co_await read_linked_members(system, "Memory");
    co_await read_linked_members(system, "EthernetInterfaces");
    co_await read_linked_members(system, "SimpleStorage");
    co_await read_linked(system, "Bios");  // its attributes; the settings object only in a task
    const json* document = graph().find(system);
    std::string storage = document ? link_of(*document, "Storage") : std::string{};
    if (storage.empty()) co_return;
    std::vector<std::string> controllers = co_await read_collection(storage);
    for (const auto& controller : controllers) {
      const json* subsystem = co_await read(controller);
      if (!subsystem) continue;
      // Storage.Drives is an array of links; newer services may (also) offer a collection.
      std::vector<std::string> drives = read_links(subsystem, "Drives");
      for (const auto& drive : drives) co_await read(drive);
    }
  }

  Fetcher fetch_;
  CrawlOptions options_;
  CrawlResult result_;
  std::set<std::string, std::less<>> tried_;
  std::size_t fetches_ = 0;
  std::optional<DriverError> last_failure_;
};

}  // namespace

bool is_gpu_baseboard(const json* system, const std::string& path) {
  std::string id = read_string(system, "Id").value_or(path.substr(path.rfind('/') + 1));
  return id.rfind("HGX_Baseboard", 0) == 0;
}

bool supports_select(const ResourceGraph& graph) {
  const json* root = graph.find(std::string(service_root_path));
  return read_bool(read_object(root, "ProtocolFeaturesSupported"), "SelectQuery").value_or(false);
}

boost::asio::awaitable<CrawlResult> crawl(Fetcher fetch, CrawlOptions options) {
  Crawl state(std::move(fetch), std::move(options));
  CrawlResult result = co_await state.run();
  co_return result;
}

}  // namespace ironhold::bmc::redfish
