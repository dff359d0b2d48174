#include "inventory/db/bios_store.hpp"

#include <set>

#include "inventory/db/db_json.hpp"
#include "inventory/db/poll_record.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"

namespace ironhold::db {
// Named, not anonymous: in a unity build baseline_store.cpp's helpers share the unit.
namespace bios_rows {

using nlohmann::json;

json parsed(const pqxx::field& f) {
  if (f.is_null()) return nullptr;
  return json::parse(f.c_str(), nullptr, false);
}

constexpr const char* kBaselineColumns = "model, attributes::text, updated_by, rfc3339(updated_at)";

BiosBaseline baseline_from_row(const pqxx::row& r) {
  BiosBaseline b;
  b.model = r[0].as<std::string>();
  b.attributes = parsed(r[1]);
  if (!b.attributes.is_object()) b.attributes = json::object();
  b.updated_by = optional_text(r[2]);
  b.updated_at = r[3].as<std::string>();
  return b;
}

Error no_baseline(const std::string& model) {
  return not_found("no BIOS baseline for model \"" + model + "\"");
}

}  // namespace bios_rows

std::optional<json> BiosStore::settings(const std::string& node_id,
                                        const std::optional<std::string>& as_of) {
  return transact(db_, [&](pqxx::work& tx) -> std::optional<json> {
    const auto rows = tx.exec_params(
        "SELECT registry, attributes::text, boot_order::text, apply_times::text, settable, "
        "       rfc3339(valid_from), rfc3339(valid_to) FROM bios_records "
        " WHERE node_id = $1::uuid AND ($2::timestamptz IS NULL AND valid_to IS NULL OR "
        "       valid_from <= $2::timestamptz AND (valid_to IS NULL OR valid_to > "
        "$2::timestamptz)) "
        " ORDER BY valid_from DESC, id DESC LIMIT 1",
        node_id, nullable(as_of));
    if (rows.empty()) return std::nullopt;
    const auto& r = rows[0];
    return json{{"registry", json_or_null(optional_text(r[0]))},
                {"attributes", bios_rows::parsed(r[1])},
                {"boot_order", bios_rows::parsed(r[2])},
                {"apply_times", bios_rows::parsed(r[3])},
                {"settable", r[4].as<bool>()},
                {"since", r[5].as<std::string>()},
                {"until", json_or_null(optional_text(r[6]))}};
  });
}

json BiosStore::history(const std::string& node_id) {
  return transact(db_, [&](pqxx::work& tx) {
    json versions = json::array();
    json previous_attributes, previous_order;
    // Oldest first, so that each version is compared with the one before it.
    for (const auto& r :
         tx.exec_params("SELECT registry, attributes::text, boot_order::text, rfc3339(valid_from), "
                        "       rfc3339(valid_to) FROM bios_records WHERE node_id = $1::uuid "
                        " ORDER BY valid_from, id",
                        node_id)) {
      json attributes = bios_rows::parsed(r[1]);
      json order = bios_rows::parsed(r[2]);
      json version = {{"since", r[3].as<std::string>()},
                      {"until", json_or_null(optional_text(r[4]))},
                      {"registry", json_or_null(optional_text(r[0]))},
                      {"attributes_count", attributes.is_object() ? attributes.size() : 0},
                      {"boot_order", order},
                      {"changes", nullptr}};
      if (previous_attributes.is_object() && attributes.is_object())
        version["changes"] = bios_changes(previous_attributes, attributes);
      if (!previous_order.is_null()) version["boot_order_changed"] = previous_order != order;
      previous_attributes = std::move(attributes);
      previous_order = std::move(order);
      versions.push_back(std::move(version));
    }
    std::reverse(versions.begin(), versions.end());
    return versions;
  });
}

BiosBaseline BiosStore::put_baseline(const std::string& model, const json& attributes,
                                     const std::string& actor) {
  if (model.empty() || model.size() > 200)
    throw unprocessable("a model name has 1 to 200 characters", "model");
  return transact(db_, [&](pqxx::work& tx) {
    const auto rows = tx.exec_params(
        std::string("INSERT INTO bios_baselines (model, attributes, updated_by) "
                    "VALUES ($1, $2::jsonb, $3) "
                    "ON CONFLICT (model) DO UPDATE SET attributes = excluded.attributes, "
                    "  updated_by = excluded.updated_by, updated_at = now() RETURNING ") +
            bios_rows::kBaselineColumns,
        model, db_json(attributes), actor);
    return bios_rows::baseline_from_row(rows[0]);
  });
}

std::vector<BiosBaseline> BiosStore::baselines() {
  return transact(db_, [&](pqxx::work& tx) {
    std::vector<BiosBaseline> out;
    for (const auto& r : tx.exec(std::string("SELECT ") + bios_rows::kBaselineColumns +
                                 " FROM bios_baselines ORDER BY model COLLATE \"C\""))
      out.push_back(bios_rows::baseline_from_row(r));
    return out;
  });
}

BiosBaseline BiosStore::baseline(const std::string& model) {
  return transact(db_, [&](pqxx::work& tx) {
    const auto rows = tx.exec_params(std::string("SELECT ") + bios_rows::kBaselineColumns +
                                         " FROM bios_baselines WHERE model = $1",
                                     model);
    if (rows.empty()) throw bios_rows::no_baseline(model);
    return bios_rows::baseline_from_row(rows[0]);
  });
}

void BiosStore::remove_baseline(const std::string& model) {
  transact(db_, [&](pqxx::work& tx) {
    if (tx.exec_params("DELETE FROM bios_baselines WHERE model = $1", model).affected_rows() == 0)
      throw bios_rows::no_baseline(model);
  });
}

BiosDriftReport BiosStore::drift(const ProjectScope& scope) {
  return transact(db_, [&](pqxx::work& tx) {
    BiosDriftReport report;
    const std::optional<std::string> scope_text = scope_array(scope);
    const char* in_scope = nullable(scope_text);
    report.nodes_checked =
        tx.exec_params(
              "SELECT count(*) FROM nodes n JOIN bios_baselines b ON b.model = n.model "
              " WHERE n.retired_at IS NULL AND ($1::text[] IS NULL OR n.project = ANY($1::text[]))",
              in_scope)[0][0]
            .as<int>();
    std::set<std::string> failing;
    // jsonb equality compares with the type: "1" is not 1, "Enabled" is not true.
    for (const auto& r : tx.exec_params(
             "SELECT n.id, n.name, n.model, a.key, a.value::text, r.attributes -> a.key, "
             "       r.id IS NULL "
             "  FROM nodes n JOIN bios_baselines b ON b.model = n.model "
             "  CROSS JOIN LATERAL jsonb_each(b.attributes) a "
             "  LEFT JOIN bios_records r ON r.node_id = n.id AND r.valid_to IS NULL "
             " WHERE n.retired_at IS NULL AND (r.attributes -> a.key) IS DISTINCT FROM a.value "
             "   AND ($1::text[] IS NULL OR n.project = ANY($1::text[])) "
             " ORDER BY n.name COLLATE \"C\", n.id, a.key COLLATE \"C\"",
             in_scope)) {
      BiosDrift d;
      d.node_id = r[0].as<std::string>();
      d.node_name = r[1].as<std::string>();
      d.model = r[2].as<std::string>();
      d.attribute = r[3].as<std::string>();
      d.expected = bios_rows::parsed(r[4]);
      if (!r[5].is_null()) d.actual = bios_rows::parsed(r[5]);
      d.no_bios = r[6].as<bool>();
      failing.insert(d.node_id);
      report.items.push_back(std::move(d));
    }
    report.nodes_compliant = report.nodes_checked - static_cast<int>(failing.size());
    return report;
  });
}

}  // namespace ironhold::db
