#include "inventory/model/bios.hpp"

#include "inventory/error.hpp"

namespace ironhold {

using nlohmann::json;

namespace {

bool valid_attribute_name(const std::string& name) {
  if (name.empty() || name.size() > 100) return false;
  for (const char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-')
      return false;
  return true;
}

std::string json_kind(const json& v) {
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_null()) return "null";
  return "a " + std::string(v.type_name());
}

bool same_kind(const json& a, const json& b) {
  if (a.is_number() && b.is_number()) return true;
  return a.type() == b.type();
}

}  // namespace

json parse_bios_attributes(const json& value, const std::string& field) {
  if (!value.is_object())
    throw invalid("\"" + field + "\" must be an object of BIOS attributes and values", field);
  if (value.empty())
    throw unprocessable("\"" + field + "\" is empty: name at least one BIOS attribute", field);
  if (value.size() > 1000)
    throw unprocessable("\"" + field + "\" names more than 1000 attributes", field);
  for (const auto& [name, setting] : value.items()) {
    if (!valid_attribute_name(name))
      throw unprocessable("\"" + name +
                              "\" is not a BIOS attribute name (1 to 100 letters, digits, '_', "
                              "'.' or '-')",
                          field);
    if (!setting.is_string() && !setting.is_number() && !setting.is_boolean())
      throw invalid("\"" + field + "." + name + "\" must be a string, a number or a boolean, not " +
                        json_kind(setting),
                    field + "." + name);
    if (setting.is_string() && setting.get_ref<const std::string&>().size() > 1000)
      throw unprocessable("\"" + field + "." + name + "\" is longer than 1000 characters",
                          field + "." + name);
  }
  return value;
}

std::vector<std::string> bios_change_problems(const json& current, const json& requested) {
  std::vector<std::string> problems;
  for (const auto& [name, setting] : requested.items()) {
    const auto it = current.find(name);
    if (it == current.end()) {
      problems.push_back("the BIOS has no attribute \"" + name + "\"");
      continue;
    }
    if (!it->is_null() && !same_kind(*it, setting))
      problems.push_back("\"" + name + "\" is " + json_kind(*it) + " on this BIOS (" + it->dump() +
                         "), not " + json_kind(setting));
  }
  return problems;
}

json bios_differences(const json& current, const json& requested) {
  json out = json::object();
  for (const auto& [name, setting] : requested.items()) {
    const auto it = current.find(name);
    if (it == current.end() || *it != setting) out[name] = setting;
  }
  return out;
}

json to_json(const BiosSettings& b) {
  return {{"registry", b.registry ? json(*b.registry) : json(nullptr)},
          {"attributes", b.attributes},
          {"apply_times", b.apply_times},
          {"settable", b.settable},
          {"boot_order", b.boot_order}};
}

json to_json(const BiosBaseline& b) {
  return {{"model", b.model},
          {"attributes", b.attributes},
          {"updated_by", b.updated_by ? json(*b.updated_by) : json(nullptr)},
          {"updated_at", b.updated_at}};
}

std::string drift_status(const BiosDrift& d) {
  if (d.no_bios) return "unread";
  return d.actual ? "drifted" : "missing";
}

json to_json(const BiosDrift& d) {
  return {{"node_id", d.node_id},     {"node_name", d.node_name},
          {"model", d.model},         {"attribute", d.attribute},
          {"expected", d.expected},   {"actual", d.actual ? *d.actual : json(nullptr)},
          {"status", drift_status(d)}};
}

}  // namespace ironhold
