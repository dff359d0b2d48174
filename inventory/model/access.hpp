#pragma once
// Who may do what where. A role is a set of capabilities; a principal (a user, or a service token)
// holds roles in projects, or in every project. Every check on a project-bound resource asks
// "may this principal do X in the resource's project"; every list asks "in which projects may it
// do X" and filters on that in SQL.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/model/enums.hpp"

namespace ironhold {

// Capabilities, as bits: viewer reads; operator reads and acts (power, boot, tasks, enrolment);
// auditor reads, reads the audit trail and exports; admin does all of that and manages.
enum Capability : unsigned { cap_read = 1, cap_act = 2, cap_audit = 4, cap_manage = 8 };
unsigned capabilities_of(Role role);

struct Grant {
  std::optional<std::string> project;  // nullopt: every project
  Role role = Role::viewer;
};

// The projects a query may return rows of; nullopt: every project.
using ProjectScope = std::optional<std::vector<std::string>>;

class Permissions {
 public:
  Permissions() = default;
  static Permissions of(const std::vector<Grant>& grants);

  void add(const Grant& grant);
  bool can(unsigned capability, std::string_view project) const;
  // In every project (global routes: users, tokens of others, the firmware catalog, the
  // whole audit chain).
  bool can_everywhere(unsigned capability) const { return (global_ & capability) == capability; }
  // In at least one project (a list route answers with what it may show).
  bool can_anywhere(unsigned capability) const;
  ProjectScope scope(unsigned capability) const;
  // Only what both allow: a token narrowed to one project and/or one role.
  Permissions narrowed(const std::optional<std::string>& project,
                       const std::optional<Role>& role) const;
  bool empty() const { return global_ == 0 && projects_.empty(); }
  // The grants these permissions amount to, for whoami: (project or nullopt, capability bits).
  const std::map<std::string, unsigned, std::less<>>& per_project() const { return projects_; }
  unsigned everywhere() const { return global_; }

 private:
  unsigned global_ = 0;
  std::map<std::string, unsigned, std::less<>> projects_;  // beyond what global_ gives
};

// The capability names ("read", "act", "audit", "manage") set in `bits`.
std::vector<std::string_view> capability_names(unsigned bits);

struct Principal {
  std::string name;  // the user's name, or the service token's
  std::optional<std::string> user_id;
  std::optional<std::string> token_id;    // absent for a console session signed in by password
  std::optional<std::string> token_name;  // the token acted with, if any
  Permissions permissions;
};

// Project names: lower-case letters, digits, '.', '_', '-'; 1 to 63 characters.
bool valid_project_name(std::string_view name);

}  // namespace ironhold
