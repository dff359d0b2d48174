#include "inventory/db/serial_console_store.hpp"

#include "inventory/db/bmc_target_columns.hpp"
#include "inventory/db/transaction.hpp"

namespace ironhold::db {

namespace {
// The most one row holds (the table's CHECK); a longer burst becomes several rows.
constexpr std::size_t kMaxChunk = 65536;
}  // namespace

std::optional<SerialConsoleTarget> SerialConsoleStore::target(const std::string& node_id) {
  return transact(db_, [&](pqxx::work& tx) -> std::optional<SerialConsoleTarget> {
    const auto rows = tx.exec_params(
        "SELECT n.id::text, n.name, n.project, n.source, n.driver, n.retired_at IS NOT NULL, "
        "       n.system_id, b.id::text, b.name, b.endpoint, b.options::text, b.tls_fingerprint, "
        "       (SELECT encode(c.sealed, 'hex') FROM node_credentials c WHERE c.node_id = b.id), "
        "       b.ssh_host_key, coalesce(b.bmc_quiet_until > now(), false) "
        "  FROM nodes n JOIN nodes b ON b.id = coalesce(n.parent_id, n.id) WHERE n.id = $1::uuid",
        node_id);
    if (rows.empty()) return std::nullopt;
    const auto& r = rows[0];
    SerialConsoleTarget t;
    t.node_id = r[0].as<std::string>();
    t.node_name = r[1].as<std::string>();
    t.project = r[2].as<std::string>();
    t.cloud = std::string_view(r[3].c_str()) == "cloud";
    t.driver = r[4].is_null() ? "" : r[4].as<std::string>();
    t.retired = r[5].as<bool>();
    if (!r[6].is_null()) t.system_id = r[6].as<std::string>();
    t.target.node_id = r[7].as<std::string>();
    t.target.node_name = r[8].as<std::string>();
    read_bmc_columns(t.target, r, 9, box_);
    if (!r[13].is_null()) t.target.pinned_ssh_host_key = r[13].as<std::string>();
    t.rotating = r[14].as<bool>();
    return t;
  });
}

bool SerialConsoleStore::pin_ssh_host_key(const std::string& bmc_node_id,
                                          const std::string& host_key) {
  return transact(db_, [&](pqxx::work& tx) {
    return tx.exec_params(
                 "UPDATE nodes SET ssh_host_key = $2 WHERE id = $1::uuid AND ssh_host_key IS NULL",
                 bmc_node_id, host_key)
               .affected_rows() == 1;
  });
}

long long SerialConsoleStore::open_session(const std::string& node_id, const std::string& project,
                                           const std::string& principal, bool writer,
                                           const std::string& protocol) {
  return transact(db_, [&](pqxx::work& tx) {
    return tx
        .exec_params1(
            "INSERT INTO serial_console_sessions (node_id, project, principal, writer, protocol) "
            "VALUES ($1::uuid, $2, $3, $4, $5) RETURNING id",
            node_id, project, principal, writer, protocol)[0]
        .as<long long>();
  });
}

void SerialConsoleStore::close_session(long long id, const std::string& end_reason,
                                       long long bytes_in, long long bytes_out) {
  transact(db_, [&](pqxx::work& tx) {
    tx.exec_params0(
        "UPDATE serial_console_sessions SET closed_at = now(), end_reason = $2, bytes_in = $3, "
        "       bytes_out = $4 WHERE id = $1 AND closed_at IS NULL",
        id, end_reason, bytes_in, bytes_out);
  });
}

std::vector<SerialConsoleSession> SerialConsoleStore::sessions(const std::string& node_id,
                                                               int limit) {
  return transact(db_, [&](pqxx::work& tx) {
    std::vector<SerialConsoleSession> out;
    for (const auto& r : tx.exec_params(
             "SELECT id, node_id::text, principal, protocol, writer, rfc3339(opened_at), "
             "       rfc3339(closed_at), extract(epoch FROM closed_at - opened_at)::float8, "
             "       end_reason, bytes_in, bytes_out "
             "  FROM serial_console_sessions WHERE node_id = $1::uuid "
             " ORDER BY opened_at DESC, id DESC LIMIT $2",
             node_id, limit)) {
      SerialConsoleSession s;
      s.id = r[0].as<long long>();
      s.node_id = r[1].as<std::string>();
      s.principal = r[2].as<std::string>();
      s.protocol = r[3].as<std::string>();
      s.writer = r[4].as<bool>();
      s.opened_at = r[5].as<std::string>();
      if (!r[6].is_null()) s.closed_at = r[6].as<std::string>();
      if (!r[7].is_null()) s.duration_seconds = r[7].as<double>();
      if (!r[8].is_null()) s.end_reason = r[8].as<std::string>();
      s.bytes_in = r[9].as<long long>();
      s.bytes_out = r[10].as<long long>();
      out.push_back(std::move(s));
    }
    return out;
  });
}

void SerialConsoleStore::append(const std::string& node_id, std::string_view bytes) {
  if (bytes.empty()) return;
  transact(db_, [&](pqxx::work& tx) {
    for (std::size_t at = 0; at < bytes.size(); at += kMaxChunk) {
      const auto part = bytes.substr(at, kMaxChunk);
      const pqxx::binarystring binary(part.data(), part.size());
      tx.exec_params0("INSERT INTO serial_console_log (node_id, data) VALUES ($1::uuid, $2)",
                      node_id, binary);
    }
  });
}

std::vector<SerialConsoleChunk> SerialConsoleStore::log(const std::string& node_id,
                                                        long long after_seq,
                                                        const std::optional<std::string>& since,
                                                        int limit) {
  return transact(db_, [&](pqxx::work& tx) {
    std::vector<SerialConsoleChunk> out;
    for (const auto& r : tx.exec_params(
             "SELECT seq, rfc3339(at), data FROM serial_console_log "
             " WHERE node_id = $1::uuid AND seq > $2 AND ($3::timestamptz IS NULL OR at >= $3) "
             " ORDER BY seq LIMIT $4",
             node_id, after_seq, since, limit)) {
      SerialConsoleChunk c;
      c.seq = r[0].as<long long>();
      c.at = r[1].as<std::string>();
      const pqxx::binarystring data(r[2]);
      c.data = data.str();
      out.push_back(std::move(c));
    }
    return out;
  });
}

}  // namespace ironhold::db
