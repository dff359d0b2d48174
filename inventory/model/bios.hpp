#pragma once
// A server's BIOS settings as its BMC reports them (Redfish Bios.Attributes), what a task asks to
// change, and the per-model BIOS baseline the fleet is compared with. Attribute values are JSON
// scalars, kept with their type: "Enabled" and true are different settings to a BIOS.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ironhold {

struct BiosSettings {
  std::optional<std::string> registry;  // AttributeRegistry ("BiosAttributeRegistry.v1_0_3")
  nlohmann::json attributes = nlohmann::json::object();  // name → string, number, bool or null
  // @Redfish.Settings.SupportedApplyTimes; empty when the BMC does not say (OnReset applies).
  std::vector<std::string> apply_times;
  // Whether the BMC names a settings object where changes are written (@Redfish.Settings).
  bool settable = false;
  // The System's Boot.BootOrder (boot option references), where it has one.
  std::vector<std::string> boot_order;
};

// What a BIOS task writes: attributes, the boot order, or both; and when the BMC applies them.
struct BiosChange {
  nlohmann::json attributes = nlohmann::json::object();
  std::optional<std::vector<std::string>> boot_order;
  std::string apply_time = "OnReset";  // "OnReset" or "Immediate"
};

// The attributes a BIOS task or baseline names: an object of 1..1000 attribute names (1 to 100
// characters, letters, digits, '_', '.', '-') to scalar values. Invalid (400) for wrong types,
// unprocessable (422) for empty or malformed names. `field` names it in errors.
nlohmann::json parse_bios_attributes(const nlohmann::json& value, const std::string& field);

// Why `requested` cannot be written to a BIOS that reports `current`: attributes it does not
// have, or values of another JSON type than the current ones. Empty when it can.
std::vector<std::string> bios_change_problems(const nlohmann::json& current,
                                              const nlohmann::json& requested);

// The attributes of `requested` whose value differs from `current` (absent ones included).
nlohmann::json bios_differences(const nlohmann::json& current, const nlohmann::json& requested);

struct BiosBaseline {
  std::string model;
  nlohmann::json attributes = nlohmann::json::object();
  std::optional<std::string> updated_by;
  std::string updated_at;
};

struct BiosDrift {
  std::string node_id, node_name, model, attribute;
  nlohmann::json expected;
  // The node's value; absent when the attribute is missing from its BIOS, or its BIOS has not
  // been read (no_bios).
  std::optional<nlohmann::json> actual;
  bool no_bios = false;
};

struct BiosDriftReport {
  int nodes_checked = 0;         // nodes in service whose model has a BIOS baseline
  int nodes_compliant = 0;       // of those, with every baseline attribute at its value
  std::vector<BiosDrift> items;  // by node name, then attribute
};

nlohmann::json to_json(const BiosSettings& bios);
nlohmann::json to_json(const BiosBaseline& baseline);
// {node_id, node_name, model, attribute, expected, actual, status: "drifted" | "missing" |
// "unread"}
nlohmann::json to_json(const BiosDrift& drift);
std::string drift_status(const BiosDrift& drift);

}  // namespace ironhold
