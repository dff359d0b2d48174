// Firmware: the UpdateService's FirmwareInventory, plus the Manager's FirmwareVersion (as "BMC")
// and the System's BiosVersion (as "BIOS") when no inventory item already covers them. An item
// covers the BMC when its Id is "BMC", its RelatedItem names the Manager, or its Version equals
// the Manager's; it covers the BIOS when its Id is "BIOS", its Version equals BiosVersion, or
// it relates to the System and its Id or Name mentions BIOS. FirmwareInventory is service-wide:
// with several Systems, an item whose RelatedItem links only other Systems' resources is left
// to those Systems.
#include <algorithm>
#include <cctype>

#include "bmc/redfish/json_read.hpp"
#include "bmc/redfish/normalize_links.hpp"
#include "bmc/redfish/normalize_parts.hpp"

namespace ironhold::bmc::redfish {

namespace {

using nlohmann::json;

bool contains_nocase(std::string_view text, std::string_view word) {
  auto lower = [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  auto it = std::search(text.begin(), text.end(), word.begin(), word.end(),
                        [&](char a, char b) { return lower(a) == lower(b); });
  return it != text.end();
}

bool equals_nocase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && contains_nocase(a, b);
}

bool under(const std::string& path, const std::string& prefix) {
  return path == prefix ||
         (path.starts_with(prefix) && path.size() > prefix.size() && path[prefix.size()] == '/');
}

struct Item {
  FirmwareItem firmware;
  std::vector<std::string> related;
};

std::vector<std::string> other_systems(const ResourceGraph& graph, const std::string& system) {
  std::string collection = root_link(graph, "Systems");
  std::vector<std::string> others;
  if (collection.empty()) return others;
  for (const auto& path : graph.members(collection))
    if (path != system) others.push_back(path);
  return others;
}

bool belongs_elsewhere(const std::vector<std::string>& related, const std::string& system,
                       const std::vector<std::string>& others) {
  if (related.empty() || others.empty()) return false;
  for (const auto& path : related) {
    if (under(path, system)) return false;
    bool other = std::any_of(others.begin(), others.end(),
                             [&path](const std::string& o) { return under(path, o); });
    if (!other) return false;
  }
  return true;
}

std::vector<Item> inventory_items(const ResourceGraph& graph, const std::string& system,
                                  const ComponentsResult& components) {
  std::vector<Item> items;
  std::string update_service = root_link(graph, "UpdateService");
  const json* service = update_service.empty() ? nullptr : graph.find(update_service);
  std::string collection = service ? link_of(*service, "FirmwareInventory") : std::string{};
  if (collection.empty()) return items;
  std::vector<std::string> others = other_systems(graph, system);
  for (const auto& path : graph.members(collection)) {
    const json* document = graph.find(path);
    if (!document) continue;
    std::optional<std::string> version = read_string(document, "Version");
    if (!version) continue;  // an item without a version says nothing about firmware
    Item item;
    item.related = read_links(document, "RelatedItem");
    if (belongs_elsewhere(item.related, system, others)) continue;
    FirmwareItem& f = item.firmware;
    f.component = resource_id(*document, path);
    f.name = read_string(document, "Name").value_or(f.component);
    f.version = *version;
    f.updateable = read_bool(document, "Updateable").value_or(false);
    for (const auto& related : item.related) {
      auto slot = components.slot_by_path.find(related);
      if (slot != components.slot_by_path.end()) {
        f.related_component = slot->second;
        break;
      }
    }
    items.push_back(std::move(item));
  }
  return items;
}

}  // namespace

std::vector<FirmwareItem> normalize_firmware(const ResourceGraph& graph,
                                             const std::string& system_path,
                                             const ComponentsResult& components) {
  std::vector<Item> items = inventory_items(graph, system_path, components);
  std::vector<FirmwareItem> firmware;
  for (const auto& item : items) firmware.push_back(item.firmware);
  const json* system = graph.find(system_path);
  if (!system) return firmware;

  for (const auto& manager_path : managers_of(graph, system_path)) {
    const json* manager = graph.find(manager_path);
    std::optional<std::string> version = read_string(manager, "FirmwareVersion");
    if (!version) continue;
    bool covered = std::any_of(items.begin(), items.end(), [&](const Item& item) {
      return equals_nocase(item.firmware.component, "BMC") || item.firmware.version == *version ||
             std::find(item.related.begin(), item.related.end(), manager_path) !=
                 item.related.end();
    });
    if (!covered)
      firmware.push_back(
          {"BMC", read_string(manager, "Name").value_or("BMC"), *version, false, {}});
    break;  // the System's first manager with a version is its BMC
  }

  if (std::optional<std::string> bios = read_string(system, "BiosVersion")) {
    bool covered = std::any_of(items.begin(), items.end(), [&](const Item& item) {
      bool relates =
          std::find(item.related.begin(), item.related.end(), system_path) != item.related.end();
      return equals_nocase(item.firmware.component, "BIOS") || item.firmware.version == *bios ||
             (relates && (contains_nocase(item.firmware.component, "BIOS") ||
                          contains_nocase(item.firmware.name, "BIOS")));
    });
    if (!covered) firmware.push_back({"BIOS", "BIOS", *bios, false, {}});
  }
  return firmware;
}

}  // namespace ironhold::bmc::redfish
