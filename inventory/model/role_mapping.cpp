#include "inventory/model/role_mapping.hpp"

#include <algorithm>
#include <cctype>

#include "inventory/error.hpp"
#include "inventory/model/enums.hpp"

namespace ironhold {
namespace role_mapping_detail {

// A DN as directories compare it, near enough: case folded, and no spaces around the ',' and
// '=' between its parts ("CN=GPU-Ops, OU=Groups" is "cn=gpu-ops,ou=groups").
std::string lower(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ' ') {
      const char before = out.empty() ? ',' : out.back();
      std::size_t next = i;
      while (next < s.size() && s[next] == ' ') ++next;
      const char after = next < s.size() ? s[next] : ',';
      if (before == ',' || before == '=' || after == ',' || after == '=') continue;
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace role_mapping_detail

std::vector<RoleMapping> parse_role_mappings(const nlohmann::json& list, const std::string& field,
                                             const char* value_key) {
  if (!list.is_array())
    throw invalid(field + " must be a list of {\"" + value_key + "\", \"project\", \"role\"}",
                  field);
  std::vector<RoleMapping> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = field + "[" + std::to_string(i) + "]";
    const auto& entry = list[i];
    if (!entry.is_object()) throw invalid(where + " must be an object", where);
    for (const auto& [key, value] : entry.items())
      if (key != value_key && key != "project" && key != "role")
        throw invalid(where + " has an unknown key \"" + key + "\"", where);
    RoleMapping m;
    if (!entry.contains(value_key) || !entry[value_key].is_string() ||
        entry[value_key].get<std::string>().empty())
      throw invalid(where + "." + value_key + " must be a non-empty string", where);
    m.value = entry[value_key].get<std::string>();
    if (entry.contains("project") && !entry["project"].is_null()) {
      if (!entry["project"].is_string() || !valid_project_name(entry["project"].get<std::string>()))
        throw invalid(where + ".project must be a project name, or null for every project", where);
      m.project = entry["project"].get<std::string>();
    }
    const auto role = entry.contains("role") && entry["role"].is_string()
                          ? parse_enum<Role>(entry["role"].get<std::string>())
                          : std::nullopt;
    if (!role) throw invalid(where + ".role must be viewer, operator, auditor or admin", where);
    m.role = *role;
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<Grant> grants_for(const std::vector<RoleMapping>& mappings,
                              const std::vector<std::string>& values, bool ignore_case) {
  using role_mapping_detail::lower;
  std::vector<Grant> out;
  for (const auto& m : mappings) {
    const bool held = std::any_of(values.begin(), values.end(), [&](const std::string& v) {
      return ignore_case ? lower(v) == lower(m.value) : v == m.value;
    });
    if (!held) continue;
    const Grant g{m.project, m.role};
    if (std::none_of(out.begin(), out.end(),
                     [&](const Grant& o) { return o.project == g.project && o.role == g.role; }))
      out.push_back(g);
  }
  return out;
}

}  // namespace ironhold
