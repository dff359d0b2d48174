#include "inventory/db/project_store.hpp"

#include "inventory/db/row_values.hpp"
#include "inventory/db/savepoint.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"
#include "inventory/model/access.hpp"

namespace ironhold::db {
namespace {

const std::string project_columns =
    "p.name, p.description, p.created_by, rfc3339(p.created_at), "
    "(SELECT count(*) FROM nodes n WHERE n.project = p.name), "
    "(SELECT count(*) FROM cloud_accounts a WHERE a.project = p.name AND a.deleted_at IS NULL), "
    "p.bmc_password_max_age_days";

ProjectInfo project_from_row(const pqxx::row& r) {
  ProjectInfo p;
  p.name = r[0].as<std::string>();
  p.description = r[1].as<std::string>();
  p.created_by = optional_text(r[2]);
  p.created_at = optional_text(r[3]);
  p.nodes = r[4].as<long long>();
  p.cloud_accounts = r[5].as<long long>();
  if (!r[6].is_null()) p.bmc_password_max_age_days = r[6].as<int>();
  return p;
}

}  // namespace

ProjectInfo ProjectStore::add(const std::string& name, const std::string& description,
                              const std::string& created_by) {
  if (!valid_project_name(name))
    throw unprocessable(
        "a project name is 1 to 63 lower-case letters, digits, '.', '_' or '-', starting with a "
        "letter or digit",
        "name");
  if (description.size() > 1000)
    throw unprocessable("a description may have at most 1000 characters", "description");
  return transact(db_, [&](pqxx::work& tx) {
    try {
      Savepoint insert(tx, "insert_project");
      tx.exec_params("INSERT INTO projects (name, description, created_by) VALUES ($1, $2, $3)",
                     name, description, created_by);
      insert.release();
    } catch (const pqxx::unique_violation&) {
      throw conflict("a project named \"" + name + "\" already exists", "name");
    }
    auto r =
        tx.exec_params("SELECT " + project_columns + " FROM projects p WHERE p.name = $1", name);
    return project_from_row(r[0]);
  });
}

ProjectInfo ProjectStore::set_password_max_age(std::string_view name, std::optional<int> days) {
  if (days && (*days < 1 || *days > 3650))
    throw unprocessable("\"bmc_password_max_age_days\" must be 1 to 3650 (or null: never)",
                        "bmc_password_max_age_days");
  return transact(db_, [&](pqxx::work& tx) {
    const auto r = tx.exec_params(
        "UPDATE projects SET bmc_password_max_age_days = $2 WHERE name = $1 RETURNING name",
        std::string(name), days);
    if (r.empty())
      throw not_found("no project is named \"" + std::string(name).substr(0, 100) + "\"");
    return project_from_row(tx.exec_params(
        "SELECT " + project_columns + " FROM projects p WHERE p.name = $1", std::string(name))[0]);
  });
}

std::optional<ProjectInfo> ProjectStore::get(std::string_view name) {
  return transact(db_, [&](pqxx::work& tx) -> std::optional<ProjectInfo> {
    auto r = tx.exec_params("SELECT " + project_columns + " FROM projects p WHERE p.name = $1",
                            std::string(name));
    if (r.empty()) return std::nullopt;
    return project_from_row(r[0]);
  });
}

std::vector<ProjectInfo> ProjectStore::list(const std::optional<std::vector<std::string>>& names) {
  return transact(db_, [&](pqxx::work& tx) {
    std::vector<ProjectInfo> out;
    auto r = names ? tx.exec_params(
                         "SELECT " + project_columns +
                             " FROM projects p WHERE p.name = ANY($1::text[]) ORDER BY p.name",
                         text_array(*names))
                   : tx.exec("SELECT " + project_columns + " FROM projects p ORDER BY p.name");
    for (const auto& row : r) out.push_back(project_from_row(row));
    return out;
  });
}

ProjectInfo ProjectStore::remove(std::string_view name) {
  return transact(db_, [&](pqxx::work& tx) {
    auto r = tx.exec_params("SELECT " + project_columns + " FROM projects p WHERE p.name = $1",
                            std::string(name));
    if (r.empty())
      throw not_found("no project is named \"" + std::string(name.substr(0, 100)) + "\"");
    ProjectInfo p = project_from_row(r[0]);
    if (p.name == "default") throw conflict("the default project cannot be removed");
    // History that names the project (tasks, events, versions, runs, rollouts) keeps it: a
    // project that ever held anything stays as the name those records refer to. Its own audit
    // entries (its creation, grants in it) do not: they record nothing it held.
    const bool referenced = !tx.exec_params(
                                   "SELECT 1 WHERE EXISTS (SELECT 1 FROM nodes WHERE project = $1) "
                                   "OR EXISTS (SELECT 1 FROM cloud_accounts WHERE project = $1) "
                                   "OR EXISTS (SELECT 1 FROM node_versions WHERE project = $1) "
                                   "OR EXISTS (SELECT 1 FROM tasks WHERE project = $1) "
                                   "OR EXISTS (SELECT 1 FROM events WHERE project = $1) "
                                   "OR EXISTS (SELECT 1 FROM discovery_runs WHERE project = $1) "
                                   "OR EXISTS (SELECT 1 FROM firmware_rollouts WHERE project = $1)",
                                   p.name)
                                 .empty();
    if (referenced)
      throw conflict("project " + p.name +
                     " holds nodes, accounts or their history; it stays as what those records "
                     "name");
    // Its grants and tokens go with it (cascades): they mean nothing without it.
    tx.exec_params("DELETE FROM projects WHERE name = $1", p.name);
    return p;
  });
}

}  // namespace ironhold::db
