#include "inventory/db/node_store.hpp"

#include <openssl/crypto.h>

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/node_query_sql.hpp"
#include "inventory/db/node_rows.hpp"
#include "inventory/db/node_secrets.hpp"
#include "inventory/db/prepared.hpp"
#include "inventory/db/savepoint.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"

namespace ironhold::db {
namespace {

using nlohmann::json;

Error duplicate_name(const std::string& name) {
  return conflict("a node named \"" + name +
                      "\" already exists; choose another name or retire "
                      "that node first",
                  "name");
}

Error unknown_project(const std::string& project) {
  return unprocessable("no project is named \"" + project + "\" (ironhold project list)",
                       "project");
}

// The node an id or name refers to (the newest of that name), locked when for_update.
const HotStatement& find_node_statement(bool by_id, bool for_update) {
  const auto make = [](const char* name, std::string where, const char* lock) {
    return HotStatement{name, std::string("SELECT ") + node_columns + " FROM nodes n WHERE " +
                                  std::move(where) + lock};
  };
  static const std::string by_name =
      "n.name = $1 ORDER BY n.retired_at IS NOT NULL, n.retired_at DESC LIMIT 1";
  static const HotStatement statements[2][2] = {
      {make("node_by_name", by_name, ""), make("node_by_name_locked", by_name, " FOR UPDATE OF n")},
      {make("node_by_id", "n.id = $1::uuid", ""),
       make("node_by_id_locked", "n.id = $1::uuid", " FOR UPDATE OF n")}};
  return statements[by_id][for_update];
}

// Locks and returns the node an id or name refers to.
Node find_node(pqxx::transaction_base& tx, std::string_view id_or_name, bool for_update,
               bool prepared) {
  const pqxx::result r = exec_hot(
      tx, prepared, find_node_statement(is_uuid(id_or_name), for_update), std::string(id_or_name));
  if (r.empty())
    throw not_found("no node has the id or name \"" + std::string(id_or_name.substr(0, 100)) +
                    "\"");
  return node_from_row(r[0]);
}

// The node of an instance its cloud account still lists would come back at the next sync: the
// provider decides when an instance ends (terminate it there, or delete the account).
void refuse_live_cloud_node(pqxx::work& tx, const Node& node, const char* what) {
  if (!node.cloud_account_id) return;
  const auto r =
      tx.exec_params("SELECT name FROM cloud_accounts WHERE id = $1::uuid AND deleted_at IS NULL",
                     *node.cloud_account_id);
  if (r.empty()) return;
  throw conflict("node " + node.name + " is instance " + node.provider_id.value_or("?") +
                 " of cloud account " + r[0][0].as<std::string>() + " and cannot be " + what +
                 " here: it is retired when the provider terminates the instance or the account "
                 "is deleted");
}

std::string sealed_payload(const NodeSecrets& s) {
  json doc = json::object();
  if (s.credentials) {
    doc["username"] = s.credentials->username;
    doc["password"] = s.credentials->password;
  }
  if (s.kg) doc["kg"] = *s.kg;
  return doc.dump();
}

void write_secrets(pqxx::work& tx, const crypto::SecretBox& box, const std::string& node_id,
                   const NodeSecrets& secrets) {
  if (!secrets.credentials && !secrets.kg) {
    tx.exec_params("DELETE FROM node_credentials WHERE node_id = $1::uuid", node_id);
    return;
  }
  std::string payload = sealed_payload(secrets);
  const auto sealed = box.seal(payload, node_id);
  OPENSSL_cleanse(payload.data(), payload.size());
  tx.exec_params(
      "INSERT INTO node_credentials (node_id, key_id, sealed) VALUES ($1::uuid, $2, decode($3, "
      "'hex')) "
      "ON CONFLICT (node_id) DO UPDATE SET key_id = EXCLUDED.key_id, sealed = EXCLUDED.sealed, "
      "updated_at = now()",
      node_id, box.key_id(), crypto::to_hex(sealed));
}

NodeSecrets read_secrets(pqxx::work& tx, const crypto::SecretBox& box, const std::string& node_id) {
  auto r = tx.exec_params(
      "SELECT encode(sealed, 'hex') FROM node_credentials WHERE node_id = $1::uuid", node_id);
  if (r.empty()) return {};
  return open_node_secrets(box, node_id, r[0][0].c_str());
}

std::string location_unit(const NodeSpec& spec) {
  return spec.location.unit ? std::to_string(*spec.location.unit) : std::string();
}

}  // namespace

NodeSecrets read_node_secrets(pqxx::work& tx, const crypto::SecretBox& box,
                              const std::string& node_id) {
  return read_secrets(tx, box, node_id);
}

void write_node_secrets(pqxx::work& tx, const crypto::SecretBox& box, const std::string& node_id,
                        const NodeSecrets& secrets) {
  write_secrets(tx, box, node_id, secrets);
}

Node NodeStore::create(const NodeSpec& spec) {
  return transact(db_, [&](pqxx::work& tx) {
    const auto unit = location_unit(spec);
    const std::string endpoint = spec.endpoint.to_string();
    pqxx::result r;
    try {
      Savepoint insert(tx, "insert_node");
      r = tx.exec_params(
          "INSERT INTO nodes (name, source, driver, endpoint, options, site, rack, unit, tags, "
          "maintenance, maintenance_reason, project) VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, "
          "nullif($8, '')::integer, $9::jsonb, $10::boolean, $11, $12) RETURNING id",
          spec.name, std::string(to_string(spec.source)), spec.driver, endpoint,
          spec.options.dump(), nullable(spec.location.site), nullable(spec.location.rack), unit,
          spec.tags.dump(), spec.maintenance ? "true" : "false", nullable(spec.maintenance_reason),
          spec.project);
      insert.release();
    } catch (const pqxx::unique_violation&) {
      throw duplicate_name(spec.name);
    } catch (const pqxx::foreign_key_violation&) {
      throw unknown_project(spec.project);
    }
    const std::string id = r[0][0].as<std::string>();
    if (spec.credentials || spec.kg) write_secrets(tx, box_, id, {spec.credentials, spec.kg});
    return find_node(tx, id, false, prepared());
  });
}

Node NodeStore::get(std::string_view id_or_name) {
  return autocommit(db_, [&](pqxx::transaction_base& tx) {
    return find_node(tx, id_or_name, false, prepared());
  });
}

std::optional<Node> NodeStore::find_by_endpoint(const std::string& endpoint) {
  return transact(db_, [&](pqxx::work& tx) -> std::optional<Node> {
    auto r = tx.exec_params(std::string("SELECT ") + node_columns +
                                " FROM nodes n WHERE n.endpoint = $1 AND n.retired_at IS NULL "
                                "ORDER BY n.created_at, n.id LIMIT 1",
                            endpoint);
    if (r.empty()) return std::nullopt;
    return node_from_row(r[0]);
  });
}

namespace {

// Runs the page's query and hands each row of the page to `take`; returns the next page's cursor
// (from the one row read past the page), if there is one.
template <class Take>
std::optional<std::string> read_page(Database& db, const NodeQuery& query, Take&& take) {
  SqlParams params;
  std::string where = node_where(query.filter, params);
  const SortSql sort = sort_sql(query.sort.field);
  if (query.after) {
    const char* op = query.sort.descending ? "<" : ">";
    where += " AND (" + sort.expression + ", n.id) " + op + " (" + params.add(query.after->first) +
             sort.key_cast + ", " + params.add(query.after->second) + "::uuid)";
  }
  const char* direction = query.sort.descending ? " DESC" : "";
  const std::string sql = std::string("SELECT ") + node_columns + ", " + sort.key_output +
                          " FROM nodes n WHERE " + where + " ORDER BY " + sort.expression +
                          direction + ", n.id" + direction + " LIMIT " +
                          std::to_string(query.limit + 1);
  return autocommit(db, [&](pqxx::transaction_base& tx) -> std::optional<std::string> {
    auto rows = tx.exec_params(sql, pqxx::prepare::make_dynamic_params(params.values));
    const auto count = std::min<std::size_t>(rows.size(), static_cast<std::size_t>(query.limit));
    take.start(count);
    for (std::size_t i = 0; i < count; ++i) take(rows[i]);
    if (rows.size() <= count) return std::nullopt;
    const auto& last = rows[count - 1];
    return encode_cursor(query, last[node_column_count].as<std::string>(),
                         last[0].as<std::string>());
  });
}

}  // namespace

NodePage NodeStore::list(const NodeQuery& query) {
  struct Take {
    NodePage& page;
    void start(std::size_t count) {
      page.items.clear();
      page.items.reserve(count);
    }
    void operator()(const pqxx::row& row) { page.items.push_back(node_from_row(row)); }
  };
  NodePage page;
  page.next = read_page(db_, query, Take{page});
  return page;
}

NodePageText NodeStore::list_text(const NodeQuery& query) {
  struct Take {
    NodePageText& page;
    void start(std::size_t count) {
      page.items.clear();
      page.items.reserve(1280 * count);  // a node is about 1.2 KB of JSON
      page.count = count;
    }
    void operator()(const pqxx::row& row) {
      if (!page.items.empty()) page.items += ',';
      append_row_json(page.items, row);
    }
  };
  NodePageText page;
  page.next = read_page(db_, query, Take{page});
  return page;
}

json NodeStore::summary(const NodeFilter& filter) {
  SqlParams params;
  const std::string where = node_where(filter, params);
  // The GPU model is the hardware summary's (the first GPU's); a node without one (no GPUs, or
  // not inspected yet) is counted under no model. gpu_count is a number when the poller or the
  // cloud sync wrote it; anything else counts as none.
  const std::string sql =
      "SELECT GROUPING(n.health), GROUPING(n.power_state), GROUPING(n.source), GROUPING(n.driver), "
      "GROUPING(n.lifecycle), GROUPING(gpu.model), n.health, n.power_state, n.source, n.driver, "
      "n.lifecycle, gpu.model, count(*), coalesce(sum(gpu.count), 0)::bigint "
      "FROM nodes n CROSS JOIN LATERAL (SELECT n.hardware ->> 'gpu_model' AS model, "
      "  CASE WHEN jsonb_typeof(n.hardware -> 'gpu_count') = 'number' "
      "    THEN (n.hardware ->> 'gpu_count')::numeric ELSE 0 END AS count) gpu WHERE " +
      where +
      " GROUP BY GROUPING SETS ((n.health), (n.power_state), (n.source), (n.driver), "
      "(n.lifecycle), (gpu.model), ())";
  json out = {{"total", 0}};
  auto zeroes = [](std::span<const std::string_view> names) {
    json j = json::object();
    for (auto n : names) j[std::string(n)] = 0;
    return j;
  };
  out["health"] = zeroes(enum_names<Health>());
  out["power_state"] = zeroes(enum_names<PowerState>());
  out["source"] = zeroes(enum_names<Source>());
  out["driver"] = json::object();
  out["lifecycle"] = zeroes(enum_names<Lifecycle>());
  if (!filter.includes_retired()) out["lifecycle"].erase("retired");
  // Nodes per GPU model, and the GPUs they hold.
  out["gpu_model"] = json::object();
  out["gpus"] = json::object();
  static constexpr int kDimensions = 6;
  static constexpr const char* dimensions[kDimensions] = {"health", "power_state", "source",
                                                          "driver", "lifecycle",   "gpu_model"};
  transact(db_, [&](pqxx::work& tx) {
    for (const auto& row : tx.exec_params(sql, pqxx::prepare::make_dynamic_params(params.values))) {
      const auto count = row[2 * kDimensions].as<long long>();
      bool grouped = false;
      for (int d = 0; d < kDimensions; ++d) {
        if (row[d].as<int>() != 0) continue;
        grouped = true;
        const auto& key = row[kDimensions + d];
        if (key.is_null()) continue;  // the nodes without a GPU model
        out[dimensions[d]][key.as<std::string>()] = count;
        if (d == kDimensions - 1)
          out["gpus"][key.as<std::string>()] = row[2 * kDimensions + 1].as<long long>();
      }
      if (!grouped) out["total"] = count;
    }
    // Per canonical GPU model, owned and rented side by side, with what the catalogue says of it
    // (a model the catalogue does not know, a raw name, has "mapped": false).
    out["gpu_models"] = json::object();
    const auto models = tx.exec_params(
        "SELECT gpu.model, n.source, count(*), coalesce(sum(gpu.count), 0)::bigint, "
        "       m.name IS NOT NULL, m.vendor, m.family, m.model, m.memory_gib::float8, "
        "       m.form_factor "
        "  FROM nodes n CROSS JOIN LATERAL (SELECT n.hardware ->> 'gpu_model' AS model, "
        "    CASE WHEN jsonb_typeof(n.hardware -> 'gpu_count') = 'number' "
        "      THEN (n.hardware ->> 'gpu_count')::numeric ELSE 0 END AS count) gpu "
        "  LEFT JOIN gpu_models m ON m.name = gpu.model "
        " WHERE gpu.model IS NOT NULL AND " +
            where + " GROUP BY gpu.model, n.source, m.name",
        pqxx::prepare::make_dynamic_params(params.values));
    for (const auto& row : models) {
      json& entry = out["gpu_models"][row[0].as<std::string>()];
      if (entry.is_null()) {
        const bool mapped = row[4].as<bool>();
        const auto text = [&](int i) { return row[i].is_null() ? json() : json(row[i].c_str()); };
        entry = {{"nodes", 0},
                 {"gpus", 0},
                 {"mapped", mapped},
                 {"vendor", text(5)},
                 {"family", text(6)},
                 {"model", text(7)},
                 {"memory_gib", row[8].is_null() ? json() : json(row[8].as<double>())},
                 {"form_factor", text(9)},
                 {"source", json::object()}};
        for (auto source : enum_names<Source>())
          entry["source"][std::string(source)] = {{"nodes", 0}, {"gpus", 0}};
      }
      const auto nodes = row[2].as<long long>();
      const auto gpus = row[3].as<long long>();
      entry["nodes"] = entry["nodes"].get<long long>() + nodes;
      entry["gpus"] = entry["gpus"].get<long long>() + gpus;
      entry["source"][row[1].as<std::string>()] = {{"nodes", nodes}, {"gpus", gpus}};
    }
  });
  return out;
}

Node NodeStore::update(std::string_view id_or_name, const json& patch) {
  return transact(db_, [&](pqxx::work& tx) {
    const Node current = find_node(tx, id_or_name, true, prepared());
    if (current.retired_at)
      throw conflict("node \"" + current.name + "\" is retired and can no longer be changed");
    if (current.source == Source::cloud) {
      const CloudNodePatch change = apply_cloud_node_patch(current, patch);
      try {
        Savepoint update(tx, "update_cloud_node");
        tx.exec_params(
            "UPDATE nodes SET name = $2, tags = $3::jsonb, maintenance = $4::boolean, "
            "  maintenance_reason = $5, updated_at = now() WHERE id = $1::uuid",
            current.id, change.name, change.tags.dump(), change.maintenance ? "true" : "false",
            nullable(change.maintenance_reason));
        update.release();
      } catch (const pqxx::unique_violation&) {
        throw duplicate_name(change.name);
      }
      return find_node(tx, current.id, false, prepared());
    }
    NodeSecrets secrets = read_secrets(tx, box_, current.id);
    bool credentials_changed = false;
    json rest = patch;
    std::optional<json> gpus_expected;
    if (rest.is_object() && rest.contains("gpus_expected")) {
      gpus_expected = rest["gpus_expected"];
      rest.erase("gpus_expected");
    }
    const NodeSpec spec = apply_node_patch(current, secrets.kg, rest, credentials_changed);
    try {
      Savepoint update(tx, "update_node");
      tx.exec_params(
          "UPDATE nodes SET name = $2, driver = $3, endpoint = $4, options = $5::jsonb, site = $6, "
          "rack = $7, unit = nullif($8, '')::integer, tags = $9::jsonb, maintenance = "
          "$10::boolean, "
          "maintenance_reason = $11, project = $12, updated_at = now() WHERE id = $1::uuid",
          current.id, spec.name, spec.driver, spec.endpoint.to_string(), spec.options.dump(),
          nullable(spec.location.site), nullable(spec.location.rack), location_unit(spec),
          spec.tags.dump(), spec.maintenance ? "true" : "false", nullable(spec.maintenance_reason),
          spec.project);
      update.release();
    } catch (const pqxx::unique_violation&) {
      throw duplicate_name(spec.name);
    } catch (const pqxx::foreign_key_violation&) {
      throw unknown_project(spec.project);
    }
    if (credentials_changed || spec.kg != secrets.kg) {
      if (credentials_changed) secrets.credentials = spec.credentials;
      secrets.kg = spec.kg;
      write_secrets(tx, box_, current.id, secrets);
    }
    if (gpus_expected) {
      // null: the count the last inspection saw (none yet: learned from the next that finds GPUs).
      const std::optional<int> count = parse_gpus_expected(*gpus_expected);
      tx.exec_params(
          "UPDATE nodes SET gpus_expected = COALESCE($2::integer, CASE WHEN "
          "jsonb_typeof(hardware -> 'gpu_count') = 'number' AND (hardware ->> "
          "'gpu_count')::numeric "
          "> 0 THEN (hardware ->> 'gpu_count')::numeric::integer END) WHERE id = $1::uuid",
          current.id,
          nullable(count ? std::optional<std::string>(std::to_string(*count)) : std::nullopt));
    }
    const std::string endpoint = spec.endpoint.to_string();
    if (endpoint != current.endpoint.value_or("")) {
      // Another BMC: its certificate and SSH host key are pinned afresh at the first contact.
      tx.exec_params(
          "UPDATE nodes SET tls_fingerprint = NULL, ssh_host_key = NULL WHERE id = $1::uuid",
          current.id);
    }
    if (credentials_changed || endpoint != current.endpoint.value_or("") ||
        spec.options != current.options) {
      // Whatever kept it backed off (auth_failed, unreachable) may be fixed now: poll again now.
      tx.exec_params(
          "UPDATE poll_schedule SET next_due = now(), failures = 0 WHERE node_id = $1::uuid",
          current.id);
    }
    return find_node(tx, current.id, false, prepared());
  });
}

Node NodeStore::retire(std::string_view id_or_name) {
  return transact(db_, [&](pqxx::work& tx) {
    const Node current = find_node(tx, id_or_name, true, prepared());
    if (current.retired_at) return current;  // retiring twice is not an error
    refuse_live_cloud_node(tx, current, "retired");
    tx.exec_params(
        "UPDATE nodes SET lifecycle = 'retired', retired_at = now(), updated_at = now() "
        "WHERE id = $1::uuid",
        current.id);
    // Kept while this service's event subscription is still on the BMC: the subscriber removes it
    // with them, then lets them go (migration 0018).
    tx.exec_params(
        "DELETE FROM node_credentials WHERE node_id = $1::uuid AND NOT EXISTS "
        "(SELECT 1 FROM event_subscriptions s WHERE s.node_id = $1::uuid AND s.state = 'removing')",
        current.id);
    // What it was made of and ran stays as history, closed now; the Systems behind its BMC go too.
    tx.exec_params(
        "UPDATE components SET valid_to = now() WHERE valid_to IS NULL AND node_id IN "
        "(SELECT id FROM nodes WHERE id = $1::uuid OR parent_id = $1::uuid)",
        current.id);
    tx.exec_params(
        "UPDATE firmware_records SET valid_to = now() WHERE valid_to IS NULL AND node_id IN "
        "(SELECT id FROM nodes WHERE id = $1::uuid OR parent_id = $1::uuid)",
        current.id);
    tx.exec_params(
        "UPDATE nodes SET lifecycle = 'retired', retired_at = now(), updated_at = now() "
        "WHERE parent_id = $1::uuid AND retired_at IS NULL",
        current.id);
    return find_node(tx, current.id, false, prepared());
  });
}

Node NodeStore::purge(std::string_view id_or_name) {
  return transact(db_, [&](pqxx::work& tx) {
    const Node current = find_node(tx, id_or_name, true, prepared());
    if (!current.retired_at) refuse_live_cloud_node(tx, current, "purged");
    tx.exec_params("DELETE FROM nodes WHERE id = $1::uuid", current.id);
    return current;
  });
}

NodeSecrets NodeStore::secrets(const std::string& node_id) {
  return transact(db_, [&](pqxx::work& tx) { return read_secrets(tx, box_, node_id); });
}

}  // namespace ironhold::db
