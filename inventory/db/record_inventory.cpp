// A full inspection: identity and hardware summary on the node, components and firmware as
// history (a change closes the current row and opens another), sensors and logs, and the further
// Systems behind the same BMC enrolled or retired as they appear and disappear.
#include <set>

#include "inventory/db/db_json.hpp"
#include "inventory/db/node_rows.hpp"
#include "inventory/db/poll_record.hpp"

namespace ironhold::db {
namespace {

const char* opt(const std::optional<std::string>& v) {
  return v ? v->c_str() : nullptr;
}

// What makes a component "another one" rather than the same one with a new status.
struct ComponentIdentity {
  std::optional<std::string> model, manufacturer, serial, part_number, firmware;
  bool operator==(const ComponentIdentity&) const = default;
};

std::optional<std::string> text_or_null(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  return f.as<std::string>();
}

ComponentIdentity identity_of(const Component& c) {
  return {c.model, c.manufacturer, c.serial, c.part_number, c.firmware_version};
}

nlohmann::json component_json(const ComponentIdentity& c) {
  auto field = [](const std::optional<std::string>& v) { return v ? nlohmann::json(*v) : nullptr; };
  return {{"model", field(c.model)},
          {"manufacturer", field(c.manufacturer)},
          {"serial", field(c.serial)},
          {"part_number", field(c.part_number)},
          {"firmware_version", field(c.firmware)}};
}

void insert_component(pqxx::transaction_base& tx, const PolledNode& node, const Component& c) {
  tx.exec_params(
      "INSERT INTO components (node_id, node_name, kind, slot, name, model, manufacturer, serial, "
      "  part_number, firmware, status, details) "
      "VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb)",
      node.id, node.name, std::string(to_string(c.kind)), db_text(c.slot), db_text(c.name),
      opt(c.model), opt(c.manufacturer), opt(c.serial), opt(c.part_number), opt(c.firmware_version),
      std::string(to_string(c.status)), db_json(c.details));
}

std::string describe(const Component& c) {
  return std::string(to_string(c.kind)) + " " + c.slot + (c.model ? " (" + *c.model + ")" : "");
}

void record_components(pqxx::transaction_base& tx, const PolledNode& node, bool announce,
                       const std::vector<Component>& components,
                       const std::set<std::string>& unlisted_kinds) {
  using Key = std::pair<std::string, std::string>;  // kind, slot
  std::map<Key, ComponentIdentity> current;
  for (const auto& r : tx.exec_params(
           "SELECT kind, slot, model, manufacturer, serial, part_number, firmware FROM components "
           " WHERE node_id = $1::uuid AND valid_to IS NULL",
           node.id))
    current[{r[0].as<std::string>(), r[1].as<std::string>()}] = {
        text_or_null(r[2]), text_or_null(r[3]), text_or_null(r[4]), text_or_null(r[5]),
        text_or_null(r[6])};

  std::set<Key> seen;
  for (const auto& c : components) {
    const Key key{std::string(to_string(c.kind)), db_text(c.slot)};
    if (!seen.insert(key).second) continue;  // a driver bug must not abort the inspection
    const auto it = current.find(key);
    if (it == current.end()) {
      insert_component(tx, node, c);
      if (announce)
        add_event(
            tx, node, "component_added", Severity::info, describe(c) + " appeared",
            {{"kind", key.first}, {"slot", key.second}, {"after", component_json(identity_of(c))}});
    } else if (!(it->second == identity_of(c))) {
      tx.exec_params(
          "UPDATE components SET valid_to = now() WHERE node_id = $1::uuid AND kind = $2 AND slot "
          "= $3 "
          "AND valid_to IS NULL",
          node.id, key.first, key.second);
      insert_component(tx, node, c);
      add_event(tx, node, "component_changed", Severity::info, describe(c) + " changed",
                {{"kind", key.first},
                 {"slot", key.second},
                 {"before", component_json(it->second)},
                 {"after", component_json(identity_of(c))}});
    } else {
      tx.exec_params(
          "UPDATE components SET name = $4, status = $5, details = $6::jsonb, updated_at = now() "
          " WHERE node_id = $1::uuid AND kind = $2 AND slot = $3 AND valid_to IS NULL",
          node.id, key.first, key.second, db_text(c.name), std::string(to_string(c.status)),
          db_json(c.details));
    }
  }
  for (const auto& [key, identity] : current) {
    if (seen.count(key) || unlisted_kinds.count(key.first)) continue;
    tx.exec_params(
        "UPDATE components SET valid_to = now() WHERE node_id = $1::uuid AND kind = $2 AND slot = "
        "$3 "
        "AND valid_to IS NULL",
        node.id, key.first, key.second);
    add_event(tx, node, "component_removed", Severity::warning,
              key.first + " " + key.second + " is no longer reported",
              {{"kind", key.first}, {"slot", key.second}, {"before", component_json(identity)}});
  }
}

void record_firmware(pqxx::transaction_base& tx, const PolledNode& node, bool announce,
                     const std::vector<FirmwareItem>& firmware) {
  std::map<std::string, std::string> current;  // component -> version
  for (const auto& r : tx.exec_params("SELECT component, version FROM firmware_records WHERE "
                                      "node_id = $1::uuid AND valid_to IS NULL",
                                      node.id))
    current[r[0].as<std::string>()] = r[1].as<std::string>();

  std::set<std::string> seen;
  for (const auto& f : firmware) {
    const std::string component = db_text(f.component);
    if (component.empty() || !seen.insert(component).second) continue;
    const auto it = current.find(component);
    const std::string version = db_text(f.version);
    if (it != current.end() && it->second == version) {
      tx.exec_params(
          "UPDATE firmware_records SET name = $3, updateable = $4, related_component = $5 "
          " WHERE node_id = $1::uuid AND component = $2 AND valid_to IS NULL",
          node.id, component, db_text(f.name), f.updateable, opt(f.related_component));
      continue;
    }
    if (it != current.end()) {
      tx.exec_params(
          "UPDATE firmware_records SET valid_to = now() WHERE node_id = $1::uuid AND component = "
          "$2 "
          "AND valid_to IS NULL",
          node.id, component);
      add_event(tx, node, "firmware_changed", Severity::info,
                component + " firmware changed from " + it->second + " to " + version,
                {{"component", component}, {"from", it->second}, {"to", version}});
    } else if (announce) {
      add_event(tx, node, "firmware_added", Severity::info,
                component + " firmware " + version + " appeared",
                {{"component", component}, {"to", version}});
    }
    tx.exec_params(
        "INSERT INTO firmware_records (node_id, node_name, component, version, name, updateable, "
        "  related_component) VALUES ($1::uuid, $2, $3, $4, $5, $6, $7)",
        node.id, node.name, component, version, db_text(f.name), f.updateable,
        opt(f.related_component));
  }
  for (const auto& [component, version] : current) {
    if (seen.count(component)) continue;
    tx.exec_params(
        "UPDATE firmware_records SET valid_to = now() WHERE node_id = $1::uuid AND component = $2 "
        "AND valid_to IS NULL",
        node.id, component);
  }
}

nlohmann::json identity_json(const SystemIdentity& id,
                             const std::optional<std::string>& bmc_firmware) {
  auto field = [](const std::optional<std::string>& v) { return v ? nlohmann::json(*v) : nullptr; };
  return {{"sku", field(id.sku)},
          {"part_number", field(id.part_number)},
          {"uuid", field(id.uuid)},
          {"bios_version", field(id.bios_version)},
          {"bmc_firmware", field(bmc_firmware)}};
}

// Node names follow the API's rules ([A-Za-z0-9][A-Za-z0-9._-]{0,62}); a System Id may not.
std::string child_name(const std::string& parent, const std::string& system_id) {
  std::string suffix;
  for (char c : system_id)
    suffix +=
        (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '-';
  std::string name = parent + "-" + suffix;
  if (name.size() > 63) name.resize(63);
  return name;
}

// Enrolls the Systems beyond the first that have no node yet, and retires the nodes of Systems
// that are gone. Returns the family as it is afterwards.
void reconcile_children(pqxx::transaction_base& tx, PolledFamily& family,
                        const std::vector<SystemInventory>& systems) {
  std::set<std::string> present;
  for (std::size_t i = 1; i < systems.size(); ++i) {
    const std::string& system_id = systems[i].system_id;
    if (system_id.empty() || !present.insert(system_id).second) continue;
    if (family.children.count(system_id)) continue;
    const auto r = tx.exec_params(
        "INSERT INTO nodes (name, source, driver, endpoint, options, site, rack, unit, tags, "
        "  parent_id, system_id, tls_fingerprint, reachable, last_seen, project) "
        "SELECT $2, source, driver, endpoint, options, site, rack, NULL, tags, id, $3, "
        "tls_fingerprint, "
        "       true, now(), project FROM nodes WHERE id = $1::uuid "
        "ON CONFLICT (name) WHERE retired_at IS NULL DO NOTHING RETURNING id, name",
        family.parent.id, child_name(family.parent.name, system_id), db_text(system_id));
    if (r.empty()) {
      add_event(tx, family.parent, "system_not_enrolled", Severity::warning,
                "System " + system_id + " behind this BMC was not enrolled: the name " +
                    child_name(family.parent.name, system_id) + " is taken");
      continue;
    }
    PolledNode child;
    child.id = r[0][0].as<std::string>();
    child.name = r[0][1].as<std::string>();
    child.health = "unknown";
    child.power_state = "unknown";
    child.reachable = true;
    add_event(tx, family.parent, "system_enrolled", Severity::info,
              "System " + system_id + " behind this BMC enrolled as node " + child.name,
              {{"node_id", child.id}, {"system_id", system_id}});
    family.children.emplace(system_id, std::move(child));
  }
  for (auto it = family.children.begin(); it != family.children.end();) {
    if (present.count(it->first)) {
      ++it;
      continue;
    }
    tx.exec_params(
        "UPDATE nodes SET lifecycle = 'retired', retired_at = now(), updated_at = now() WHERE id = "
        "$1::uuid",
        it->second.id);
    tx.exec_params(
        "UPDATE components SET valid_to = now() WHERE node_id = $1::uuid AND valid_to IS NULL",
        it->second.id);
    tx.exec_params(
        "UPDATE firmware_records SET valid_to = now() WHERE node_id = $1::uuid AND valid_to IS "
        "NULL",
        it->second.id);
    add_event(tx, it->second, "system_removed", Severity::warning,
              "System " + it->first + " is no longer behind the BMC; node retired");
    it = family.children.erase(it);
  }
}

// The summary with what the BMC did not list this time taken from the one recorded before (see
// SystemInventory::unlisted_kinds), and a warning event saying so.
HardwareSummary keep_unlisted(pqxx::transaction_base& tx, const PolledNode& node,
                              HardwareSummary summary, const std::set<std::string>& unlisted) {
  const auto rows = tx.exec_params("SELECT hardware FROM nodes WHERE id = $1::uuid", node.id);
  nlohmann::json before = nlohmann::json::object();
  if (!rows.empty() && !rows[0][0].is_null()) {
    before = nlohmann::json::parse(rows[0][0].c_str(), nullptr, false);
    if (!before.is_object()) before = nlohmann::json::object();
  }
  const auto count = [&before](const char* key) {
    const auto it = before.find(key);
    return it != before.end() && it->is_number_integer() ? it->get<int>() : 0;
  };
  const auto text = [&before](const char* key) -> std::optional<std::string> {
    const auto it = before.find(key);
    if (it == before.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  if (unlisted.count("cpu")) {
    if (summary.cpu_count == 0) summary.cpu_count = count("cpu_count");
    if (!summary.cpu_model) summary.cpu_model = text("cpu_model");
  }
  if (unlisted.count("gpu")) {
    summary.gpu_count = count("gpu_count");
    summary.gpu_model = text("gpu_model_raw");
    if (!summary.gpu_model) summary.gpu_model = text("gpu_model");
  }
  if (unlisted.count("memory") && !summary.memory_gib) {
    const auto it = before.find("memory_gib");
    if (it != before.end() && it->is_number()) summary.memory_gib = it->get<double>();
  }
  std::string kinds;
  for (const auto& kind : unlisted) kinds += (kinds.empty() ? "" : ", ") + kind;
  add_event(tx, node, "inventory_partial", Severity::warning,
            "the BMC listed none of this System's " + kinds +
                " (an empty collection, as a BMC that has not read the host's inventory yet "
                "answers); what was recorded before is kept",
            {{"kinds", std::vector<std::string>(unlisted.begin(), unlisted.end())}});
  return summary;
}

}  // namespace

void record_inventory(pqxx::transaction_base& tx, PolledFamily& family,
                      const InspectionReport& report) {
  reconcile_children(tx, family, report.systems);
  std::vector<SystemStatus> statuses;
  for (const auto& system : report.systems) statuses.push_back(system.status);
  record_statuses(tx, family, statuses);

  for (std::size_t i = 0; i < report.systems.size(); ++i) {
    const auto& system = report.systems[i];
    const PolledNode* node = family.for_system(i, system.system_id);
    if (!node) continue;
    const bool announce = family.inspected_before;
    const auto& id = system.identity;
    // The driver's GPU name goes in as the raw name; the nodes_canonical_gpu trigger resolves
    // gpu_model through the GPU catalogue.
    std::set<std::string> unlisted;
    for (const auto kind : system.unlisted_kinds) unlisted.emplace(to_string(kind));
    HardwareSummary summary = system.summary;
    if (!unlisted.empty()) summary = keep_unlisted(tx, *node, std::move(summary), unlisted);
    summary.gpu_model_raw = summary.gpu_model;
    tx.exec_params(
        "UPDATE nodes SET manufacturer = $2, model = $3, serial = $4, asset_tag = coalesce($5, "
        "asset_tag), "
        "       identity = $6::jsonb, hardware = $7::jsonb, system_id = coalesce(system_id, $8), "
        "       last_inspected = now(), updated_at = now() WHERE id = $1::uuid",
        node->id, opt(id.manufacturer), opt(id.model), opt(id.serial), opt(id.asset_tag),
        db_json(identity_json(id, report.manager_firmware)), db_json(to_json(summary)),
        db_text(system.system_id));
    record_components(tx, *node, announce, system.components, unlisted);
    record_firmware(tx, *node, announce, system.firmware);
    if (system.bios) record_bios(tx, *node, *system.bios);
    record_sensors(tx, *node, system.sensors, system.events, system.input_power);
  }
}

}  // namespace ironhold::db
