#include "inventory/db/baseline_store.hpp"

#include <set>

#include "inventory/db/row_values.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"

namespace ironhold::db {
namespace {

using nlohmann::json;

constexpr const char* kBaselineColumns = "model, components::text, updated_by, rfc3339(updated_at)";

FirmwareBaseline baseline_from_row(const pqxx::row& r) {
  FirmwareBaseline b;
  b.model = r[0].as<std::string>();
  const json components = json::parse(r[1].c_str(), nullptr, false);
  if (components.is_object())
    for (const auto& [component, version] : components.items())
      if (version.is_string()) b.components[component] = version.get<std::string>();
  b.updated_by = optional_text(r[2]);
  b.updated_at = r[3].as<std::string>();
  return b;
}

Error no_baseline(const std::string& model) {
  return not_found("no firmware baseline for model \"" + model + "\"");
}

}  // namespace

FirmwareBaseline BaselineStore::put(const std::string& model,
                                    const std::map<std::string, std::string>& components,
                                    const std::string& actor) {
  if (model.empty() || model.size() > 200)
    throw unprocessable("a model name has 1 to 200 characters", "model");
  return transact(db_, [&](pqxx::work& tx) {
    const auto rows = tx.exec_params(
        std::string("INSERT INTO firmware_baselines (model, components, updated_by) "
                    "VALUES ($1, $2::jsonb, $3) "
                    "ON CONFLICT (model) DO UPDATE SET components = excluded.components, "
                    "  updated_by = excluded.updated_by, updated_at = now() RETURNING ") +
            kBaselineColumns,
        model, json(components).dump(), actor);
    return baseline_from_row(rows[0]);
  });
}

std::vector<FirmwareBaseline> BaselineStore::list() {
  return transact(db_, [&](pqxx::work& tx) {
    std::vector<FirmwareBaseline> out;
    for (const auto& r : tx.exec(std::string("SELECT ") + kBaselineColumns +
                                 " FROM firmware_baselines ORDER BY model COLLATE \"C\""))
      out.push_back(baseline_from_row(r));
    return out;
  });
}

FirmwareBaseline BaselineStore::get(const std::string& model) {
  return transact(db_, [&](pqxx::work& tx) {
    const auto rows = tx.exec_params(
        std::string("SELECT ") + kBaselineColumns + " FROM firmware_baselines WHERE model = $1",
        model);
    if (rows.empty()) throw no_baseline(model);
    return baseline_from_row(rows[0]);
  });
}

void BaselineStore::remove(const std::string& model) {
  transact(db_, [&](pqxx::work& tx) {
    if (tx.exec_params("DELETE FROM firmware_baselines WHERE model = $1", model).affected_rows() ==
        0)
      throw no_baseline(model);
  });
}

ComplianceReport BaselineStore::compliance(const ProjectScope& scope) {
  return transact(db_, [&](pqxx::work& tx) {
    ComplianceReport report;
    const std::optional<std::string> scope_text = scope_array(scope);
    const char* in_scope = nullable(scope_text);
    const auto counted = tx.exec_params(
        "SELECT count(*) FROM nodes n JOIN firmware_baselines b ON b.model = n.model "
        " WHERE n.retired_at IS NULL AND ($1::text[] IS NULL OR n.project = ANY($1::text[]))",
        in_scope);
    report.nodes_checked = counted[0][0].as<int>();
    std::set<std::string> failing;
    for (const auto& r : tx.exec_params(
             "SELECT n.id, n.name, n.model, c.key, c.value, f.version "
             "  FROM nodes n JOIN firmware_baselines b ON b.model = n.model "
             "  CROSS JOIN LATERAL jsonb_each_text(b.components) c "
             "  LEFT JOIN firmware_records f ON f.node_id = n.id AND f.component = c.key "
             "                              AND f.valid_to IS NULL "
             " WHERE n.retired_at IS NULL AND f.version IS DISTINCT FROM c.value "
             "   AND ($1::text[] IS NULL OR n.project = ANY($1::text[])) "
             " ORDER BY n.name COLLATE \"C\", n.id, c.key COLLATE \"C\"",
             in_scope)) {
      ComplianceIssue issue;
      issue.node_id = r[0].as<std::string>();
      issue.node_name = r[1].as<std::string>();
      issue.model = r[2].as<std::string>();
      issue.component = r[3].as<std::string>();
      issue.expected = r[4].as<std::string>();
      issue.actual = optional_text(r[5]);
      failing.insert(issue.node_id);
      report.issues.push_back(std::move(issue));
    }
    report.nodes_compliant = report.nodes_checked - static_cast<int>(failing.size());
    return report;
  });
}

}  // namespace ironhold::db
