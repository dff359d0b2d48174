#include "inventory/model/access.hpp"

#include <algorithm>

namespace ironhold {

unsigned capabilities_of(Role role) {
  switch (role) {
    case Role::viewer:
      return cap_read;
    case Role::operator_:
      return cap_read | cap_act;
    case Role::auditor:
      return cap_read | cap_audit;
    case Role::admin:
      return cap_read | cap_act | cap_audit | cap_manage;
  }
  return 0;
}

Permissions Permissions::of(const std::vector<Grant>& grants) {
  Permissions p;
  for (const auto& g : grants) p.add(g);
  return p;
}

void Permissions::add(const Grant& grant) {
  const unsigned caps = capabilities_of(grant.role);
  if (!grant.project) {
    global_ |= caps;
    return;
  }
  projects_[*grant.project] |= caps;
}

bool Permissions::can(unsigned capability, std::string_view project) const {
  unsigned held = global_;
  if (auto it = projects_.find(project); it != projects_.end()) held |= it->second;
  return (held & capability) == capability;
}

bool Permissions::can_anywhere(unsigned capability) const {
  if (can_everywhere(capability)) return true;
  return std::any_of(projects_.begin(), projects_.end(), [&](const auto& entry) {
    return ((entry.second | global_) & capability) == capability;
  });
}

ProjectScope Permissions::scope(unsigned capability) const {
  if (can_everywhere(capability)) return std::nullopt;
  std::vector<std::string> projects;
  for (const auto& [project, caps] : projects_)
    if (((caps | global_) & capability) == capability) projects.push_back(project);
  return projects;
}

Permissions Permissions::narrowed(const std::optional<std::string>& project,
                                  const std::optional<Role>& role) const {
  const unsigned role_mask = role ? capabilities_of(*role) : ~0u;
  Permissions out;
  if (project) {
    unsigned held = global_;
    if (auto it = projects_.find(*project); it != projects_.end()) held |= it->second;
    if ((held & role_mask) != 0) out.projects_[*project] = held & role_mask;
    return out;
  }
  out.global_ = global_ & role_mask;
  for (const auto& [name, caps] : projects_)
    if (const unsigned kept = caps & role_mask; (kept & ~out.global_) != 0)
      out.projects_[name] = kept;
  return out;
}

std::vector<std::string_view> capability_names(unsigned bits) {
  std::vector<std::string_view> out;
  if (bits & cap_read) out.push_back("read");
  if (bits & cap_act) out.push_back("act");
  if (bits & cap_audit) out.push_back("audit");
  if (bits & cap_manage) out.push_back("manage");
  return out;
}

bool valid_project_name(std::string_view name) {
  if (name.empty() || name.size() > 63) return false;
  auto plain = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!plain(name.front())) return false;
  return std::all_of(name.begin(), name.end(),
                     [&](char c) { return plain(c) || c == '.' || c == '_' || c == '-'; });
}

}  // namespace ironhold
