// The BIOS settings an inspection read: one row per version of the node's whole configuration.
// A version that differs from the current one closes it and opens another, with an event naming
// what changed; the first one read is the baseline of that history and announces nothing.
#include "inventory/db/db_json.hpp"
#include "inventory/db/poll_record.hpp"

namespace ironhold::db {

using nlohmann::json;

namespace bios_record {

constexpr std::size_t kChangesInEvent = 50;  // the event's details stay small on a BIOS reset

std::string value_text(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace bios_record

json bios_changes(const json& before, const json& after) {
  json changes = json::array();
  for (const auto& [name, value] : after.items()) {
    const auto it = before.find(name);
    if (it == before.end())
      changes.push_back({{"attribute", name}, {"from", nullptr}, {"to", value}});
    else if (*it != value)
      changes.push_back({{"attribute", name}, {"from", *it}, {"to", value}});
  }
  for (const auto& [name, value] : before.items())
    if (!after.contains(name))
      changes.push_back({{"attribute", name}, {"from", value}, {"to", nullptr}});
  return changes;
}

void record_bios(pqxx::transaction_base& tx, const PolledNode& node, const BiosSettings& bios) {
  using namespace bios_record;
  const json boot_order = bios.boot_order;
  const json apply_times = bios.apply_times;
  const auto current = tx.exec_params(
      "SELECT attributes::text, boot_order::text, registry FROM bios_records "
      " WHERE node_id = $1::uuid AND valid_to IS NULL",
      node.id);
  if (!current.empty()) {
    const json before = json::parse(current[0][0].c_str(), nullptr, false);
    const json before_order = json::parse(current[0][1].c_str(), nullptr, false);
    if (before == bios.attributes && before_order == boot_order) {
      // The same configuration: only what describes the BMC's interface may have moved.
      tx.exec_params(
          "UPDATE bios_records SET registry = $2, apply_times = $3::jsonb, settable = $4 "
          " WHERE node_id = $1::uuid AND valid_to IS NULL",
          node.id, bios.registry ? bios.registry->c_str() : nullptr, db_json(apply_times),
          bios.settable);
      return;
    }
    tx.exec_params(
        "UPDATE bios_records SET valid_to = now() WHERE node_id = $1::uuid AND valid_to IS NULL",
        node.id);
    const json changes =
        bios_changes(before.is_object() ? before : json::object(), bios.attributes);
    std::string message;
    for (std::size_t i = 0; i < changes.size() && i < 5; ++i)
      message += (i ? ", " : "") + changes[i]["attribute"].get<std::string>() + " " +
                 value_text(changes[i]["from"]) + " → " + value_text(changes[i]["to"]);
    if (changes.size() > 5) message += " and " + std::to_string(changes.size() - 5) + " more";
    if (changes.empty()) message = "the boot order";
    json shown = json::array();
    for (std::size_t i = 0; i < changes.size() && i < kChangesInEvent; ++i)
      shown.push_back(changes[i]);
    json details = {{"changes", shown}, {"count", changes.size()}};
    if (before_order != boot_order)
      details["boot_order"] = {{"from", before_order}, {"to", boot_order}};
    add_event(tx, node, "bios_changed", Severity::info, "BIOS settings changed: " + message,
              details);
  }
  tx.exec_params(
      "INSERT INTO bios_records (node_id, node_name, registry, attributes, boot_order, "
      "  apply_times, settable) VALUES ($1::uuid, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb, $7)",
      node.id, node.name, bios.registry ? bios.registry->c_str() : nullptr,
      db_json(bios.attributes), db_json(boot_order), db_json(apply_times), bios.settable);
}

}  // namespace ironhold::db
