#pragma once
// A firmware baseline: for one server model, the version each firmware component should run; and
// the compliance of the fleet against the baselines.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ironhold {

struct FirmwareBaseline {
  std::string model;
  std::map<std::string, std::string> components;  // component → version
  std::optional<std::string> updated_by;
  std::string updated_at;
};

struct ComplianceIssue {
  std::string node_id, node_name, model, component, expected;
  std::optional<std::string> actual;  // none: the node reports no such component
};

struct ComplianceReport {
  int nodes_checked = 0;                // nodes in service whose model has a baseline
  int nodes_compliant = 0;              // of those, with every component at its baseline
  std::vector<ComplianceIssue> issues;  // by node name, then component
};

// The body of PUT /firmware/baselines/{model}: {"components": {"BMC": "1.2.3", ...}}. Invalid
// (400) for wrong types or unknown fields, unprocessable (422) for no components, or a component
// or version that is empty or longer than 200 characters.
std::map<std::string, std::string> parse_baseline_components(const nlohmann::json& body);

nlohmann::json to_json(const FirmwareBaseline& baseline);
// {node_id, node_name, model, component, expected, actual, status: "outdated" | "missing"}
nlohmann::json to_json(const ComplianceIssue& issue);

}  // namespace ironhold
