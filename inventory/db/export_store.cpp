#include "inventory/db/export_store.hpp"

#include <array>
#include <cctype>

#include "inventory/db/audit_append.hpp"
#include "inventory/db/node_query_sql.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/util/concat.hpp"

namespace ironhold::db {
namespace {

// A column as CSV text and as a JSON value, over alias `n` (a node or a node version) and, for
// firmware, `f` (a firmware record). `provider` differs: a version keeps its provider, a live node
// finds it through its account.
struct Column {
  std::string_view name;
  std::string_view text;
  std::string_view json;
};

constexpr std::array<Column, 31> kAssetColumns = {{
    {"id", "n.id::text", "to_jsonb(n.id)"},
    {"name", "n.name", "to_jsonb(n.name)"},
    {"source", "n.source", "to_jsonb(n.source)"},
    {"provider", "@provider", "to_jsonb(@provider)"},
    {"driver", "n.driver", "to_jsonb(n.driver)"},
    {"cloud_account_id", "n.cloud_account_id::text", "to_jsonb(n.cloud_account_id)"},
    {"provider_id", "n.provider_id", "to_jsonb(n.provider_id)"},
    {"site", "n.site", "to_jsonb(n.site)"},
    {"rack", "n.rack", "to_jsonb(n.rack)"},
    {"unit", "n.unit::text", "to_jsonb(n.unit)"},
    {"manufacturer", "n.manufacturer", "to_jsonb(n.manufacturer)"},
    {"model", "n.model", "to_jsonb(n.model)"},
    {"serial", "n.serial", "to_jsonb(n.serial)"},
    {"asset_tag", "n.asset_tag", "to_jsonb(n.asset_tag)"},
    {"uuid", "n.identity ->> 'uuid'", "n.identity -> 'uuid'"},
    {"cpu_count", "n.hardware ->> 'cpu_count'", "n.hardware -> 'cpu_count'"},
    {"cpu_model", "n.hardware ->> 'cpu_model'", "n.hardware -> 'cpu_model'"},
    {"gpu_count", "n.hardware ->> 'gpu_count'", "n.hardware -> 'gpu_count'"},
    {"gpu_model", "n.hardware ->> 'gpu_model'", "n.hardware -> 'gpu_model'"},
    {"gpu_model_raw", "n.hardware ->> 'gpu_model_raw'", "n.hardware -> 'gpu_model_raw'"},
    {"memory_gib", "n.hardware ->> 'memory_gib'", "n.hardware -> 'memory_gib'"},
    {"drive_count", "n.hardware ->> 'drive_count'", "n.hardware -> 'drive_count'"},
    {"lifecycle", "n.lifecycle", "to_jsonb(n.lifecycle)"},
    {"maintenance", "n.maintenance::text", "to_jsonb(n.maintenance)"},
    {"health", "n.health", "to_jsonb(n.health)"},
    {"power_state", "n.power_state", "to_jsonb(n.power_state)"},
    {"reachable", "n.reachable::text", "to_jsonb(n.reachable)"},
    {"first_seen", "rfc3339(n.created_at)", "to_jsonb(rfc3339(n.created_at))"},
    {"last_seen", "rfc3339(n.last_seen)", "to_jsonb(rfc3339(n.last_seen))"},
    {"retired_at", "rfc3339(n.retired_at)", "to_jsonb(rfc3339(n.retired_at))"},
    {"tags", "n.tags::text", "n.tags"},
}};

constexpr std::array<Column, 6> kFirmwareColumns = {{
    {"node_id", "n.id::text", "to_jsonb(n.id)"},
    {"node_name", "n.name", "to_jsonb(n.name)"},
    {"source", "n.source", "to_jsonb(n.source)"},
    {"component", "f.component", "to_jsonb(f.component)"},
    {"version", "f.version", "to_jsonb(f.version)"},
    {"since", "rfc3339(f.valid_from)", "to_jsonb(rfc3339(f.valid_from))"},
}};

template <std::size_t N>
std::span<const std::string_view> names_of(const std::array<Column, N>& columns) {
  static const auto names = [&] {
    std::array<std::string_view, N> out{};
    for (std::size_t i = 0; i < N; ++i) out[i] = columns[i].name;
    return out;
  }();
  return names;
}

std::span<const Column> columns_of(ExportKind kind) {
  if (kind == ExportKind::assets) return kAssetColumns;
  return kFirmwareColumns;
}

std::string replace_all(std::string text, std::string_view what, std::string_view with) {
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size()))
    text.replace(at, what.size(), with);
  return text;
}

std::string select_list(const ExportRequest& r) {
  const std::string provider = r.as_of ? "n.provider"
                                       : "(SELECT a.provider FROM cloud_accounts a "
                                         "WHERE a.id = n.cloud_account_id)";
  std::string out;
  if (r.json_rows) {
    out = "jsonb_build_object(";
    bool first = true;
    for (const Column& c : columns_of(r.kind)) {
      if (!first) out += ", ";
      first = false;
      out +=
          util::concat("'", c.name, "', ", replace_all(std::string(c.json), "@provider", provider));
    }
    out += ")::text";
    return out;
  }
  for (const Column& c : columns_of(r.kind)) {
    if (!out.empty()) out += ", ";
    out += replace_all(std::string(c.text), "@provider", provider);
  }
  return out;
}

// The nodes (or node versions valid at the time) the request selects, as alias n; and, for a
// table with a validity interval of its own (alias f), the condition that a row was current then.
struct NodeSource {
  std::string table;
  std::string where;
  std::string valid_f;
};

NodeSource node_source(const ExportRequest& r, SqlParams& params) {
  if (!r.as_of) return {"nodes n", node_where(r.filter, params), "f.valid_to IS NULL"};
  const std::string at = params.add(*r.as_of) + "::timestamptz";
  auto valid = [&at](const char* alias) {
    return std::string(alias) + ".valid_from <= " + at + " AND (" + alias +
           ".valid_to IS NULL OR " + alias + ".valid_to > " + at + ")";
  };
  return {"node_versions n", valid("n") + " AND " + node_where(r.filter, params), valid("f")};
}

std::string export_query(const ExportRequest& r, SqlParams& params) {
  const std::string select = util::concat("SELECT ", select_list(r));
  const NodeSource nodes = node_source(r, params);
  if (r.kind == ExportKind::assets)
    return select + " FROM " + nodes.table + " WHERE " + nodes.where +
           " ORDER BY n.name COLLATE \"C\", n.id";
  return select + " FROM firmware_records f JOIN " + nodes.table + " ON n.id = f.node_id WHERE " +
         nodes.where + " AND " + nodes.valid_f +
         " ORDER BY n.name COLLATE \"C\", n.id, f.component";
}

// DECLARE takes no bound parameters: each $n of the query becomes its value as a quoted literal,
// in one pass over the query's own text (never over a value already put in).
std::string with_literals(const std::string& query, const std::vector<std::string>& values,
                          pqxx::work& tx) {
  std::string out;
  out.reserve(query.size() + 64 * values.size());
  for (std::size_t i = 0; i < query.size(); ++i) {
    if (query[i] != '$' || i + 1 >= query.size() ||
        !std::isdigit(static_cast<unsigned char>(query[i + 1]))) {
      out += query[i];
      continue;
    }
    std::size_t end = i + 1, number = 0;
    while (end < query.size() && std::isdigit(static_cast<unsigned char>(query[end])))
      number = number * 10 + static_cast<std::size_t>(query[end++] - '0');
    if (number == 0 || number > values.size())
      throw Error(ErrorKind::internal, "export query refers to a missing parameter");
    out += tx.quote(values[number - 1]);
    i = end - 1;
  }
  return out;
}

}  // namespace

std::string_view to_string(ExportKind kind) {
  return kind == ExportKind::assets ? "assets" : "firmware";
}

std::span<const std::string_view> export_columns(ExportKind kind) {
  if (kind == ExportKind::assets) return names_of(kAssetColumns);
  return names_of(kFirmwareColumns);
}

struct ExportCursor::Impl {
  explicit Impl(Database& db) : lease(db) {}
  Lease lease;
  std::unique_ptr<pqxx::work> tx;
  bool open = false;
};

ExportCursor::ExportCursor(Database& exports, const ExportRequest& request)
    : impl_(std::make_unique<Impl>(exports)) {
  SqlParams params;
  const std::string query = export_query(request, params);
  try {
    impl_->tx = std::make_unique<pqxx::work>(*impl_->lease);
    // One snapshot for the whole export, however long the client takes to read it.
    impl_->tx->exec0("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    impl_->tx->exec0("DECLARE export_rows NO SCROLL CURSOR FOR " +
                     with_literals(query, params.values, *impl_->tx));
    impl_->open = true;
  } catch (const pqxx::broken_connection& e) {
    impl_->lease.discard();
    rethrow_database_error(e);
  } catch (const pqxx::sql_error& e) {
    rethrow_database_error(e);
  }
}

ExportCursor::~ExportCursor() {
  try {
    if (impl_->tx) impl_->tx->abort();
  } catch (...) {
    impl_->lease.discard();
  }
}

std::vector<ExportCursor::Row> ExportCursor::fetch(int count) {
  std::vector<Row> out;
  try {
    const auto rows = impl_->tx->exec("FETCH " + std::to_string(count) + " FROM export_rows");
    out.reserve(rows.size());
    for (const auto& r : rows) {
      Row row;
      row.reserve(r.size());
      for (const auto& field : r) row.push_back(optional_text(field));
      out.push_back(std::move(row));
    }
  } catch (const pqxx::broken_connection& e) {
    impl_->lease.discard();
    rethrow_database_error(e);
  } catch (const pqxx::sql_error& e) {
    rethrow_database_error(e);
  }
  return out;
}

namespace {

constexpr const char* kManifestColumns =
    "id::text, kind, format, parameters::text, requested_by, requested_by_id, "
    "rfc3339(requested_at), state, rfc3339(completed_at), rows, sha256, audit_head_seq, "
    "audit_head_mac, array_to_json(projects)::text";

ExportManifest manifest_from(const pqxx::row& r) {
  ExportManifest m;
  m.id = r[0].as<std::string>();
  m.kind = r[1].as<std::string>();
  m.format = r[2].as<std::string>();
  m.parameters = nlohmann::json::parse(r[3].c_str(), nullptr, false);
  m.requested_by = r[4].as<std::string>();
  m.requested_by_id = optional_text(r[5]);
  m.requested_at = r[6].as<std::string>();
  m.state = r[7].as<std::string>();
  m.completed_at = optional_text(r[8]);
  if (!r[9].is_null()) m.rows = r[9].as<long long>();
  m.sha256 = optional_text(r[10]);
  m.audit_head = ChainHead{r[11].as<long long>(), r[12].as<std::string>(), m.requested_at};
  if (!r[13].is_null()) {
    const auto projects = nlohmann::json::parse(r[13].c_str(), nullptr, false);
    m.projects.emplace();
    if (projects.is_array())
      for (const auto& p : projects)
        if (p.is_string()) m.projects->push_back(p.get<std::string>());
  }
  return m;
}

}  // namespace

ExportManifest ExportManifestStore::begin(const ExportManifest& m,
                                          const std::optional<std::string>& request_id) {
  return transact(db_, [&](pqxx::work& tx) {
    const std::string id = tx.exec1("SELECT gen_random_uuid()::text")[0].as<std::string>();
    AuditEntry entry;
    entry.actor = m.requested_by;
    entry.actor_id = m.requested_by_id;
    entry.action = "export." + m.kind;
    entry.target_type = "export";
    entry.target_id = id;
    entry.outcome = "started";
    entry.request_id = request_id;
    entry.details = {{"format", m.format}, {"parameters", m.parameters}};
    if (m.projects) {
      entry.details["projects"] = *m.projects;
      // An export of one project is that project's auditors' record too.
      if (m.projects->size() == 1) entry.project = m.projects->front();
    }
    const ChainHead head = append_audit_entry(db_, tx, entry);
    const auto row = tx.exec_params1(
        "INSERT INTO export_manifests (id, kind, format, parameters, requested_by, "
        "requested_by_id, audit_head_seq, audit_head_mac, projects) "
        "VALUES ($1::uuid, $2, $3, $4::jsonb, $5, $6, $7, $8, $9::text[]) RETURNING " +
            std::string(kManifestColumns),
        id, m.kind, m.format, m.parameters.dump(), m.requested_by, nullable(m.requested_by_id),
        head.seq, head.mac_hex, nullable(scope_array(m.projects)));
    return manifest_from(row);
  });
}

void ExportManifestStore::complete(const std::string& id, long long rows,
                                   const std::string& sha256) {
  transact(db_, [&](pqxx::work& tx) {
    tx.exec_params0(
        "UPDATE export_manifests SET state = 'complete', completed_at = now(), rows = $2, "
        "sha256 = $3 WHERE id = $1::uuid AND state = 'running'",
        id, rows, sha256);
  });
}

void ExportManifestStore::fail(const std::string& id, const std::string& why) {
  transact(db_, [&](pqxx::work& tx) {
    tx.exec_params0(
        "UPDATE export_manifests SET state = 'failed', completed_at = now(), failure = $2 "
        "WHERE id = $1::uuid AND state = 'running'",
        id, why);
  });
}

std::optional<ExportManifest> ExportManifestStore::get(const std::string& id) {
  return transact(db_, [&](pqxx::work& tx) -> std::optional<ExportManifest> {
    const auto rows = tx.exec_params(
        std::string("SELECT ") + kManifestColumns + " FROM export_manifests WHERE id::text = $1",
        id);
    if (rows.empty()) return std::nullopt;
    return manifest_from(rows[0]);
  });
}

nlohmann::json to_json(const ExportManifest& m) {
  auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  return {{"id", m.id},
          {"kind", m.kind},
          {"format", m.format},
          {"parameters", m.parameters},
          {"requested_by", m.requested_by},
          {"requested_at", m.requested_at},
          {"state", m.state},
          {"completed_at", opt(m.completed_at)},
          {"rows", opt(m.rows)},
          {"sha256", opt(m.sha256)},
          {"projects", opt(m.projects)},
          {"audit_head", {{"seq", m.audit_head.seq}, {"mac", m.audit_head.mac_hex}}}};
}

}  // namespace ironhold::db
