#include "inventory/db/event_append.hpp"

#include "inventory/db/db_json.hpp"
#include "inventory/db/row_values.hpp"

namespace ironhold::db {

void append_event(pqxx::transaction_base& tx, const NewEvent& e) {
  tx.exec_params(
      "INSERT INTO events (node_id, node_name, kind, severity, message, details) "
      "VALUES ($1::uuid, $2, $3, $4, $5, $6::jsonb)",
      nullable(e.node_id), nullable(e.node_name), std::string(e.kind),
      std::string(to_string(e.severity)), db_text(e.message), db_json(e.details));
}

}  // namespace ironhold::db
