#include "inventory/db/task_rows.hpp"

#include <openssl/crypto.h>

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/db_json.hpp"
#include "inventory/db/node_rows.hpp"
#include "inventory/util/concat.hpp"

namespace ironhold::db {
namespace {

nlohmann::json json_or(const pqxx::field& f, nlohmann::json fallback) {
  if (f.is_null()) return fallback;
  auto doc = nlohmann::json::parse(f.c_str(), nullptr, false);
  return doc.is_discarded() ? fallback : doc;
}

}  // namespace

// Inserts one task (its write-only parameters sealed under its own id) and returns its id.
std::string insert_task(pqxx::work& tx, const crypto::SecretBox& box, const NewTask& request,
                        const std::string& node_id, const std::string& node_name,
                        const std::optional<std::string>& bulk_id) {
  const auto row = tx.exec_params1(
      "INSERT INTO tasks (kind, node_id, node_name, parameters, requested_by, bulk_id, automatic) "
      "VALUES ($1, $2::uuid, $3, $4::jsonb, $5, $6::uuid, $7) RETURNING id",
      std::string(to_string(request.kind)), node_id, node_name,
      db_json(request.parameters.parameters), request.requested_by, nullable(bulk_id),
      request.automatic);
  const std::string id = row[0].as<std::string>();
  if (!request.parameters.secrets.empty()) {
    std::string payload = request.parameters.secrets.dump();  // sealed, not jsonb: kept exact
    const auto sealed = box.seal(payload, id);
    OPENSSL_cleanse(payload.data(), payload.size());
    tx.exec_params(
        "UPDATE tasks SET sealed_secrets = decode($2, 'hex'), secrets_key_id = $3 "
        "WHERE id = $1::uuid",
        id, crypto::to_hex(sealed), box.key_id());
  }
  return id;
}

const std::string& task_by_id_sql() {
  static const std::string sql =
      util::concat("SELECT ", task_columns, " FROM tasks t WHERE t.id = $1::uuid");
  return sql;
}

Task task_from_row(const pqxx::row& r) {
  Task t;
  t.id = r[0].as<std::string>();
  t.kind = parse_enum<TaskKind>(r[1].c_str()).value_or(TaskKind::power);
  t.node_id = optional_text(r[2]);
  t.node_name = optional_text(r[3]);
  t.project = optional_text(r[19]);
  t.parameters = json_or(r[4], nlohmann::json::object());
  t.state = parse_enum<TaskState>(r[5].c_str()).value_or(TaskState::failed);
  t.steps = steps_from_json(json_or(r[6], nlohmann::json::array()));
  t.attempts = r[7].as<int>();
  t.result = json_or(r[8], nullptr);
  t.error = optional_text(r[9]);
  t.requested_by = optional_text(r[10]);
  t.bulk_id = optional_text(r[11]);
  t.automatic = r[12].as<bool>();
  t.cancel_requested = r[13].as<bool>();
  t.cancelled_by = optional_text(r[14]);
  t.created_at = optional_text(r[15]);
  t.started_at = optional_text(r[16]);
  t.finished_at = optional_text(r[17]);
  t.updated_at = optional_text(r[18]);
  return t;
}

}  // namespace ironhold::db
