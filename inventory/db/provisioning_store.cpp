#include "inventory/db/provisioning_store.hpp"

#include <set>

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/audit_append.hpp"
#include "inventory/db/db_json.hpp"
#include "inventory/db/event_append.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"
#include "inventory/model/mac_address.hpp"

namespace ironhold::db {
namespace {

using nlohmann::json;

constexpr const char* kSessionColumns =
    "task_id, node_id, node_name, image, array_to_string(macs, ','), state, script_fetches, "
    "rfc3339(script_fetched_at), fetched_by, rfc3339(called_back_at), message, report::text, "
    "rfc3339(created_at), rfc3339(expires_at), expires_at <= now()";

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = text.find(',', start);
    std::string part =
        text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!part.empty()) out.push_back(std::move(part));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

ProvisioningSession provisioning_session_from_row(const pqxx::row& r) {
  ProvisioningSession s;
  s.task_id = r[0].as<std::string>();
  s.node_id = r[1].as<std::string>();
  s.node_name = r[2].as<std::string>();
  s.image = r[3].as<std::string>();
  s.macs = split_commas(r[4].as<std::string>());
  s.state = r[5].as<std::string>();
  s.script_fetches = r[6].as<int>();
  s.script_fetched_at = optional_text(r[7]);
  s.fetched_by = optional_text(r[8]);
  s.called_back_at = optional_text(r[9]);
  s.message = optional_text(r[10]);
  if (!r[11].is_null()) s.report = json::parse(r[11].c_str(), nullptr, false);
  s.created_at = r[12].as<std::string>();
  s.expires_at = r[13].as<std::string>();
  s.expired = r[14].as<bool>();
  return s;
}

std::optional<ProvisioningSession> select_session(pqxx::work& tx, const std::string& task_id) {
  const auto rows = tx.exec_params(std::string("SELECT ") + kSessionColumns +
                                       " FROM provisioning_sessions WHERE task_id = $1::uuid",
                                   task_id);
  if (rows.empty()) return std::nullopt;
  return provisioning_session_from_row(rows[0]);
}

// The node's NIC MAC addresses as last inspected, canonical and without repeats.
std::vector<std::string> inspected_macs(pqxx::work& tx, const std::string& node_id) {
  const auto rows = tx.exec_params(
      "SELECT m FROM components c, jsonb_array_elements_text(c.details -> 'macs') m "
      " WHERE c.node_id = $1::uuid AND c.kind = 'nic' AND c.valid_to IS NULL "
      "   AND jsonb_typeof(c.details -> 'macs') = 'array' "
      " ORDER BY c.slot",
      node_id);
  std::vector<std::string> macs;
  std::set<std::string> seen;
  for (const auto& r : rows)
    if (auto mac = normalize_mac(r[0].c_str()); mac && seen.insert(*mac).second)
      macs.push_back(*mac);
  return macs;
}

std::string array_literal(const std::vector<std::string>& macs) {
  std::string out = "{";
  for (const auto& mac : macs) out += (out.size() > 1 ? "," : "") + mac;  // canonical: no quoting
  return out + "}";
}

Error refused_token() {
  return Error(ErrorKind::forbidden,
               "this call-back token is unknown, was used already, or its reprovisioning has "
               "ended (each iPXE script carries a new token; only the last one counts)");
}

}  // namespace

ProvisioningSession ProvisioningStore::open(const std::string& task_id, const std::string& node_id,
                                            const std::string& image,
                                            const std::optional<std::string>& mac,
                                            std::chrono::seconds lifetime) {
  return transact(db_, [&](pqxx::work& tx) {
    if (auto existing = select_session(tx, task_id)) return std::move(*existing);
    const auto node = tx.exec_params("SELECT name FROM nodes WHERE id = $1::uuid", node_id);
    if (node.empty()) throw not_found("no node " + node_id);
    const std::string name = node[0][0].as<std::string>();
    const std::vector<std::string> macs =
        mac ? std::vector<std::string>{*mac} : inspected_macs(tx, node_id);
    if (macs.empty())
      throw unprocessable("node \"" + name +
                              "\" has no NIC MAC address in its inventory, so its installer "
                              "could not be recognised: inspect the node, or give the MAC "
                              "address of the NIC it boots from (\"mac\")",
                          "mac");
    // The node lock lets one reprovision run at a time; a session left open by an earlier one
    // that ended abnormally must not answer for this node any more.
    tx.exec_params(
        "UPDATE provisioning_sessions SET state = 'closed', message = 'superseded by task ' || $2 "
        " WHERE node_id = $1::uuid AND state IN ('waiting', 'booted')",
        node_id, task_id);
    tx.exec_params(
        "INSERT INTO provisioning_sessions (task_id, node_id, node_name, macs, image, expires_at) "
        "VALUES ($1::uuid, $2::uuid, $3, $4::text[], $5, now() + make_interval(secs => $6))",
        task_id, node_id, name, array_literal(macs), image, static_cast<double>(lifetime.count()));
    return *select_session(tx, task_id);
  });
}

std::optional<ProvisioningSession> ProvisioningStore::find(const std::string& task_id) {
  return transact(db_, [&](pqxx::work& tx) { return select_session(tx, task_id); });
}

std::optional<ScriptGrant> ProvisioningStore::grant_script(const std::string& mac,
                                                           const std::string& from) {
  return transact(db_, [&](pqxx::work& tx) -> std::optional<ScriptGrant> {
    const auto rows = tx.exec_params(
        "SELECT task_id, node_id, node_name, image FROM provisioning_sessions "
        " WHERE state IN ('waiting', 'booted') AND macs @> ARRAY[$1::text] AND expires_at > now() "
        " ORDER BY created_at DESC LIMIT 1 FOR UPDATE",
        mac);
    if (rows.empty()) return std::nullopt;
    ScriptGrant grant;
    grant.task_id = rows[0][0].as<std::string>();
    grant.node_id = rows[0][1].as<std::string>();
    grant.node_name = rows[0][2].as<std::string>();
    grant.image = rows[0][3].as<std::string>();
    grant.mac = mac;
    std::array<std::uint8_t, 32> secret{};
    crypto::random_bytes(secret);
    grant.token = crypto::to_hex(secret);
    const std::string fetched_by = mac + " from " + from;
    tx.exec_params(
        "UPDATE provisioning_sessions SET state = 'booted', token_hash = decode($2, 'hex'), "
        "  script_fetches = script_fetches + 1, script_fetched_at = now(), fetched_by = $3 "
        " WHERE task_id = $1::uuid",
        grant.task_id, crypto::sha256_hex(grant.token), db_text(fetched_by));
    append_event(tx, {grant.node_id,
                      grant.node_name,
                      "provisioning",
                      Severity::info,
                      "the installer fetched its iPXE script (" + fetched_by + ")",
                      {{"task_id", grant.task_id}, {"mac", mac}, {"image", grant.image}}});
    return grant;
  });
}

ProvisioningSession ProvisioningStore::complete(const std::string& token,
                                                const CallbackReport& callback) {
  return transact(db_, [&](pqxx::work& tx) {
    const auto rows = tx.exec_params(
        "SELECT task_id, state = 'booted' AND expires_at > now() FROM provisioning_sessions "
        " WHERE token_hash = decode($1, 'hex') FOR UPDATE",
        crypto::sha256_hex(token));
    if (rows.empty() || !rows[0][1].as<bool>()) throw refused_token();
    const std::string task_id = rows[0][0].as<std::string>();
    const char* state = callback.succeeded ? "succeeded" : "failed";
    tx.exec_params(
        "UPDATE provisioning_sessions SET state = $2, called_back_at = now(), message = $3, "
        "  report = $4::jsonb WHERE task_id = $1::uuid",
        task_id, state, db_text(callback.message), db_json(callback.report));
    ProvisioningSession session = *select_session(tx, task_id);
    std::string message =
        std::string("the installer reported ") + (callback.succeeded ? "success" : "failure");
    if (!callback.message.empty()) message += ": " + callback.message;
    append_event(tx, {session.node_id,
                      session.node_name,
                      "provisioning",
                      callback.succeeded ? Severity::info : Severity::warning,
                      message,
                      {{"task_id", task_id}, {"status", state}}});
    AuditEntry entry;
    entry.actor = "installer";
    entry.action = "provisioning.callback";
    entry.project =
        optional_text(tx.exec_params1("SELECT project FROM tasks WHERE id = $1::uuid", task_id)[0]);
    entry.target_type = "node";
    entry.target_id = session.node_id;
    entry.target_name = session.node_name;
    entry.outcome = state;
    entry.details = {{"task_id", task_id},
                     {"image", session.image},
                     {"message", callback.message},
                     {"from", callback.from}};
    append_audit_entry(db_, tx, entry);
    return session;
  });
}

void ProvisioningStore::close(const std::string& task_id, const std::string& why) {
  transact(db_, [&](pqxx::work& tx) {
    tx.exec_params(
        "UPDATE provisioning_sessions SET state = 'closed', message = $2 "
        " WHERE task_id = $1::uuid AND state IN ('waiting', 'booted')",
        task_id, db_text(why));
  });
}

}  // namespace ironhold::db
