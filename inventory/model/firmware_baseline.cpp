#include "inventory/model/firmware_baseline.hpp"

#include "inventory/error.hpp"
#include "inventory/model/json_fields.hpp"

namespace ironhold {

using nlohmann::json;

std::map<std::string, std::string> parse_baseline_components(const json& body) {
  if (!body.is_object()) throw invalid("the body must be a JSON object");
  reject_unknown_keys(body, {"components"}, "", ErrorKind::invalid);
  const auto it = body.find("components");
  if (it == body.end() || it->is_null()) throw invalid("\"components\" is required", "components");
  if (!it->is_object())
    throw wrong_type("components", "an object of component names and versions", *it);
  if (it->empty())
    throw unprocessable("\"components\" is empty: name at least one component and its version",
                        "components");
  std::map<std::string, std::string> out;
  for (const auto& [component, version] : it->items()) {
    const std::string field = "components." + component;
    if (component.empty() || component.size() > 200)
      throw unprocessable("component names must have 1 to 200 characters", "components");
    if (!version.is_string()) throw wrong_type(field, "a version string", version);
    const std::string text = version.get<std::string>();
    if (text.empty() || text.size() > 200)
      throw unprocessable("\"" + field + "\" must have 1 to 200 characters", field);
    out[component] = text;
  }
  return out;
}

json to_json(const FirmwareBaseline& b) {
  return {{"model", b.model},
          {"components", b.components},
          {"updated_by", b.updated_by ? json(*b.updated_by) : json(nullptr)},
          {"updated_at", b.updated_at}};
}

json to_json(const ComplianceIssue& i) {
  return {{"node_id", i.node_id},
          {"node_name", i.node_name},
          {"model", i.model},
          {"component", i.component},
          {"expected", i.expected},
          {"actual", i.actual ? json(*i.actual) : json(nullptr)},
          {"status", i.actual ? "outdated" : "missing"}};
}

}  // namespace ironhold
