#pragma once
// Projects (tenants, migration 0015): what nodes, cloud accounts, rollouts and discovery runs
// belong to, and what roles are granted in.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/db/database.hpp"

namespace ironhold::db {

struct ProjectInfo {
  std::string name;
  std::string description;
  std::optional<std::string> created_by, created_at;
  long long nodes = 0, cloud_accounts = 0;
  // The rotation policy: BMC passwords older than this many days are rotated (none: never).
  std::optional<int> bmc_password_max_age_days;
};

class ProjectStore {
 public:
  explicit ProjectStore(Database& db) : db_(db) {}

  // Throws unprocessable for a bad name, conflict when it exists.
  ProjectInfo add(const std::string& name, const std::string& description,
                  const std::string& created_by);
  std::optional<ProjectInfo> get(std::string_view name);
  // Every project, or only `names` (a principal's scope).
  std::vector<ProjectInfo> list(const std::optional<std::vector<std::string>>& names = {});
  // Throws not_found, or conflict while anything (nodes, accounts, history, grants, tokens) still
  // refers to it: a project's records are evidence and are not dropped with it.
  ProjectInfo remove(std::string_view name);
  // Sets (or with nullopt clears) the project's BMC password rotation policy; not_found.
  ProjectInfo set_password_max_age(std::string_view name, std::optional<int> days);

 private:
  Database& db_;
};

}  // namespace ironhold::db
