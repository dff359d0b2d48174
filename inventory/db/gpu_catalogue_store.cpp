#include "inventory/db/gpu_catalogue_store.hpp"

#include "inventory/db/row_values.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"

namespace ironhold::db {
namespace {

using nlohmann::json;

// Columns 0-7 of a model, 8 its aliases as JSON, 9-10 its node and GPU counts. $1 is the scope.
constexpr const char* kSelectModels =
    "SELECT m.name, m.vendor, m.family, m.model, m.memory_gib::float8, m.form_factor, "
    "       m.updated_by, rfc3339(m.updated_at), "
    "       coalesce((SELECT jsonb_agg(jsonb_build_object('kind', a.kind, 'alias', a.alias) "
    "                          ORDER BY a.kind, a.alias COLLATE \"C\") "
    "                   FROM gpu_model_aliases a WHERE a.model = m.name), '[]')::text, "
    "       coalesce(c.nodes, 0), coalesce(c.gpus, 0) "
    "  FROM gpu_models m LEFT JOIN ( "
    "    SELECT n.hardware ->> 'gpu_model' AS name, count(*) AS nodes, "
    "           sum(CASE WHEN jsonb_typeof(n.hardware -> 'gpu_count') = 'number' "
    "                    THEN (n.hardware ->> 'gpu_count')::numeric ELSE 0 END)::bigint AS gpus "
    "      FROM nodes n WHERE n.retired_at IS NULL "
    "       AND ($1::text[] IS NULL OR n.project = ANY($1::text[])) GROUP BY 1) c "
    "    ON c.name = m.name ";

GpuModel model_from_row(const pqxx::row& r) {
  GpuModel m;
  m.name = r[0].as<std::string>();
  m.vendor = r[1].as<std::string>();
  m.family = r[2].as<std::string>();
  m.model = r[3].as<std::string>();
  if (!r[4].is_null()) m.memory_gib = r[4].as<double>();
  m.form_factor = r[5].as<std::string>();
  m.updated_by = optional_text(r[6]);
  m.updated_at = r[7].as<std::string>();
  for (const auto& a : json::parse(r[8].c_str()))
    m.aliases.push_back({a.at("kind").get<std::string>(), a.at("alias").get<std::string>()});
  m.nodes = r[9].as<long long>();
  m.gpus = r[10].as<long long>();
  return m;
}

Error no_model(const std::string& name) {
  return not_found("no GPU model \"" + name + "\" in the catalogue (GET /api/v1/gpu-models)");
}

GpuModel read_model(pqxx::transaction_base& tx, const std::string& name,
                    const ProjectScope& scope) {
  const auto scope_text = scope_array(scope);
  const auto rows =
      tx.exec_params(std::string(kSelectModels) + " WHERE m.name = $2", nullable(scope_text), name);
  if (rows.empty()) throw no_model(name);
  return model_from_row(rows[0]);
}

// Resolves the hardware summary of every node in service again; retired nodes keep the record
// they were retired with. The nodes_canonical_gpu trigger does the resolving.
long long remap_nodes(pqxx::transaction_base& tx) {
  return tx
      .exec(
          "UPDATE nodes SET hardware = canonical_gpu_hardware(hardware, source, model) "
          " WHERE retired_at IS NULL AND hardware ->> 'gpu_model_raw' IS NOT NULL "
          "   AND canonical_gpu_hardware(hardware, source, model) IS DISTINCT FROM hardware")
      .affected_rows();
}

// Refuses an alias that already maps to another model, naming it.
void check_alias_free(pqxx::transaction_base& tx, const std::string& name, const GpuAlias& alias) {
  const auto held = tx.exec_params(
      "SELECT model FROM gpu_model_aliases WHERE kind = $1 AND alias_key = gpu_alias_key($2) "
      "   AND model <> $3",
      alias.kind, alias.alias, name);
  if (!held.empty())
    throw conflict("the " + alias.kind + " alias \"" + alias.alias + "\" already maps to \"" +
                       held[0][0].as<std::string>() +
                       "\"; remove it there first (DELETE /api/v1/gpu-models/{name}/aliases)",
                   "alias");
}

void insert_alias(pqxx::transaction_base& tx, const std::string& name, const GpuAlias& alias,
                  const std::string& actor) {
  check_alias_free(tx, name, alias);
  tx.exec_params(
      "INSERT INTO gpu_model_aliases (kind, alias, model, created_by) VALUES ($1, $2, $3, $4) "
      "ON CONFLICT (kind, alias_key) DO NOTHING",
      alias.kind, alias.alias, name, actor);
}

}  // namespace

std::vector<GpuModel> GpuCatalogueStore::list(const ProjectScope& scope) {
  return transact(db_, [&](pqxx::work& tx) {
    const auto scope_text = scope_array(scope);
    std::vector<GpuModel> out;
    for (const auto& r : tx.exec_params(
             std::string(kSelectModels) + " ORDER BY m.vendor COLLATE \"C\", m.name COLLATE \"C\"",
             nullable(scope_text)))
      out.push_back(model_from_row(r));
    return out;
  });
}

GpuModel GpuCatalogueStore::get(const std::string& name, const ProjectScope& scope) {
  return transact(db_, [&](pqxx::work& tx) { return read_model(tx, name, scope); });
}

GpuCatalogueChange GpuCatalogueStore::put(const std::string& path_name, const GpuModelSpec& spec,
                                          const std::string& actor) {
  return transact(db_, [&](pqxx::work& tx) {
    GpuCatalogueChange change;
    const char* memory = nullptr;
    const std::string memory_text = spec.memory_gib ? std::to_string(*spec.memory_gib) : "";
    if (spec.memory_gib) memory = memory_text.c_str();
    if (spec.name != path_name) {
      if (!tx.exec_params("SELECT 1 FROM gpu_models WHERE name = $1", spec.name).empty())
        throw conflict("a GPU model named \"" + spec.name + "\" already exists", "name");
      const auto renamed = tx.exec_params(
          "UPDATE gpu_models SET name = $2, vendor = $3, family = $4, model = $5, "
          "  memory_gib = $6::numeric, form_factor = $7, updated_by = $8, updated_at = now() "
          " WHERE name = $1",
          path_name, spec.name, spec.vendor, spec.family, spec.model, memory, spec.form_factor,
          actor);
      if (renamed.affected_rows() == 0) throw no_model(path_name);
    } else {
      const auto rows = tx.exec_params(
          "INSERT INTO gpu_models (name, vendor, family, model, memory_gib, form_factor, "
          "  updated_by) VALUES ($1, $2, $3, $4, $5::numeric, $6, $7) "
          "ON CONFLICT (name) DO UPDATE SET vendor = excluded.vendor, family = excluded.family, "
          "  model = excluded.model, memory_gib = excluded.memory_gib, "
          "  form_factor = excluded.form_factor, updated_by = excluded.updated_by, "
          "  updated_at = now() RETURNING (xmax = 0)",
          spec.name, spec.vendor, spec.family, spec.model, memory, spec.form_factor, actor);
      change.created = rows[0][0].as<bool>();
    }
    if (spec.aliases) {
      tx.exec_params("DELETE FROM gpu_model_aliases WHERE model = $1", spec.name);
      for (const auto& alias : *spec.aliases) insert_alias(tx, spec.name, alias, actor);
    }
    change.nodes_remapped = remap_nodes(tx);
    change.model = read_model(tx, spec.name, std::nullopt);
    return change;
  });
}

GpuCatalogueChange GpuCatalogueStore::remove(const std::string& name) {
  return transact(db_, [&](pqxx::work& tx) {
    GpuCatalogueChange change;
    change.model = read_model(tx, name, std::nullopt);
    tx.exec_params("DELETE FROM gpu_models WHERE name = $1", name);
    change.nodes_remapped = remap_nodes(tx);
    return change;
  });
}

GpuCatalogueChange GpuCatalogueStore::add_alias(const std::string& name, const GpuAlias& alias,
                                                const std::string& actor) {
  return transact(db_, [&](pqxx::work& tx) {
    GpuCatalogueChange change;
    read_model(tx, name, std::nullopt);
    insert_alias(tx, name, alias, actor);
    change.nodes_remapped = remap_nodes(tx);
    change.model = read_model(tx, name, std::nullopt);
    return change;
  });
}

GpuCatalogueChange GpuCatalogueStore::remove_alias(const std::string& name, const GpuAlias& alias) {
  return transact(db_, [&](pqxx::work& tx) {
    GpuCatalogueChange change;
    read_model(tx, name, std::nullopt);
    if (tx.exec_params("DELETE FROM gpu_model_aliases WHERE model = $1 AND kind = $2 "
                       "   AND alias_key = gpu_alias_key($3)",
                       name, alias.kind, alias.alias)
            .affected_rows() == 0)
      throw not_found("GPU model \"" + name + "\" has no " + alias.kind + " alias \"" +
                      alias.alias + "\"");
    change.nodes_remapped = remap_nodes(tx);
    change.model = read_model(tx, name, std::nullopt);
    return change;
  });
}

std::vector<UnmappedGpu> GpuCatalogueStore::unmapped() {
  return transact(db_, [&](pqxx::work& tx) {
    std::vector<UnmappedGpu> out;
    const auto rows = tx.exec(
        "WITH seen AS ( "
        "  SELECT n.id, n.name, n.source, n.driver, n.model, n.hardware ->> 'gpu_model_raw' AS raw "
        "    FROM nodes n WHERE n.retired_at IS NULL AND n.hardware ->> 'gpu_model_raw' IS NOT "
        "NULL "
        "  UNION "
        "  SELECT n.id, n.name, n.source, n.driver, n.model, c.model "
        "    FROM components c JOIN nodes n ON n.id = c.node_id "
        "   WHERE c.kind = 'gpu' AND c.valid_to IS NULL AND c.model IS NOT NULL "
        "     AND n.retired_at IS NULL) "
        "SELECT raw, count(DISTINCT id), count(DISTINCT id) FILTER (WHERE source = 'bmc'), "
        "       count(DISTINCT id) FILTER (WHERE source = 'cloud'), "
        "       to_jsonb(array_agg(DISTINCT driver ORDER BY driver))::text, "
        "       coalesce(to_jsonb(array_agg(DISTINCT model ORDER BY model) "
        "                FILTER (WHERE source = 'cloud' AND model IS NOT NULL)), '[]')::text, "
        "       to_jsonb((array_agg(DISTINCT name ORDER BY name))[1:3])::text "
        "  FROM seen WHERE resolve_gpu_model(raw, source, model) IS NULL "
        " GROUP BY raw ORDER BY 2 DESC, raw COLLATE \"C\"");
    for (const auto& r : rows) {
      UnmappedGpu u;
      u.name = r[0].as<std::string>();
      u.nodes = r[1].as<long long>();
      u.bmc_nodes = r[2].as<long long>();
      u.cloud_nodes = r[3].as<long long>();
      u.drivers = json::parse(r[4].c_str()).get<std::vector<std::string>>();
      u.instance_types = json::parse(r[5].c_str()).get<std::vector<std::string>>();
      u.example_nodes = json::parse(r[6].c_str()).get<std::vector<std::string>>();
      out.push_back(std::move(u));
    }
    return out;
  });
}

}  // namespace ironhold::db
