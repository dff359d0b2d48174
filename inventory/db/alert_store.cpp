#include "inventory/db/alert_store.hpp"

#include <openssl/crypto.h>

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/node_query_sql.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/db/savepoint.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"
#include "inventory/model/json_fields.hpp"
#include "inventory/model/node.hpp"
#include "inventory/model/node_query.hpp"

namespace ironhold::db {
namespace {

using nlohmann::json;

const char* const kAlertColumns =
    "id, fingerprint, source, severity, state, node_id::text, node_name, project, summary, "
    "details::text, rfc3339(first_seen), rfc3339(last_seen), rfc3339(resolved_at), "
    "acknowledged_by, rfc3339(acknowledged_at), occurrences, flapping";

Alert alert_from_row(const pqxx::row& r) {
  Alert a;
  a.id = r[0].as<long long>();
  a.fingerprint = r[1].as<std::string>();
  a.source = r[2].as<std::string>();
  a.severity = r[3].as<std::string>();
  a.state = r[4].as<std::string>();
  a.node_id = optional_text(r[5]);
  a.node_name = optional_text(r[6]);
  a.project = optional_text(r[7]);
  a.summary = r[8].as<std::string>();
  a.details = json::parse(r[9].c_str(), nullptr, false);
  a.first_seen = r[10].as<std::string>();
  a.last_seen = r[11].as<std::string>();
  a.resolved_at = optional_text(r[12]);
  a.acknowledged_by = optional_text(r[13]);
  a.acknowledged_at = optional_text(r[14]);
  a.occurrences = r[15].as<int>();
  a.flapping = r[16].as<bool>();
  return a;
}

const char* const kSilenceColumns =
    "id::text, project, selector::text, comment, rfc3339(starts_at), rfc3339(ends_at), "
    "created_by, rfc3339(created_at), rfc3339(expired_at)";

Silence silence_from_row(const pqxx::row& r) {
  return {r[0].as<std::string>(), r[1].as<std::string>(), json::parse(r[2].c_str(), nullptr, false),
          r[3].as<std::string>(), r[4].as<std::string>(), r[5].as<std::string>(),
          r[6].as<std::string>(), r[7].as<std::string>(), optional_text(r[8])};
}

const char* const kReceiverColumns =
    "id::text, name, url, min_severity, project, created_by, rfc3339(created_at)";

Receiver receiver_from_row(const pqxx::row& r) {
  return {r[0].as<std::string>(), r[1].as<std::string>(), r[2].as<std::string>(),
          r[3].as<std::string>(), optional_text(r[4]),    r[5].as<std::string>(),
          r[6].as<std::string>()};
}

std::string receiver_where(const std::string& id_or_name) {
  return is_uuid(id_or_name) ? "id = $1::uuid" : "name = $1";
}

}  // namespace

std::vector<Alert> AlertStore::list(const AlertQuery& q) {
  SqlParams params;
  std::string where = "TRUE";
  add_in_list(where, "state", q.states, params);
  add_in_list(where, "severity", q.severities, params);
  add_in_list(where, "source", q.sources, params);
  if (q.node_id) where += " AND node_id = " + params.add(*q.node_id) + "::uuid";
  if (q.scope) {
    if (q.scope->empty()) where += " AND FALSE";
    add_in_list(where, "project", *q.scope, params);
  }
  if (q.before_id) where += " AND id < " + params.add(std::to_string(*q.before_id)) + "::bigint";
  return transact(db_, [&](pqxx::work& tx) {
    std::vector<Alert> out;
    for (const auto& r :
         tx.exec_params(std::string("SELECT ") + kAlertColumns + " FROM alerts WHERE " + where +
                            " ORDER BY id DESC LIMIT " + std::to_string(q.limit),
                        pqxx::prepare::make_dynamic_params(params.values)))
      out.push_back(alert_from_row(r));
    return out;
  });
}

std::optional<Alert> AlertStore::get(long long id) {
  return transact(db_, [&](pqxx::work& tx) -> std::optional<Alert> {
    auto r =
        tx.exec_params(std::string("SELECT ") + kAlertColumns + " FROM alerts WHERE id = $1", id);
    if (r.empty()) return std::nullopt;
    return alert_from_row(r[0]);
  });
}

Alert AlertStore::acknowledge(long long id, const std::string& by) {
  return transact(db_, [&](pqxx::work& tx) {
    auto r = tx.exec_params(
        std::string("SELECT ") + kAlertColumns + " FROM alerts WHERE id = $1 FOR UPDATE", id);
    if (r.empty()) throw not_found("no alert " + std::to_string(id));
    Alert a = alert_from_row(r[0]);
    if (a.state == "resolved")
      throw conflict("alert " + std::to_string(id) +
                     " is resolved: there is nothing to acknowledge");
    if (a.state == "acknowledged") return a;
    return alert_from_row(tx.exec_params1(
        std::string("UPDATE alerts SET state = 'acknowledged', acknowledged_by = $2, "
                    "acknowledged_at = now(), updated_at = now() WHERE id = $1 RETURNING ") +
            kAlertColumns,
        id, by));
  });
}

Silence AlertStore::add_silence(const NewSilence& s) {
  parse_node_selector(s.selector);  // the rules of a bulk action's selector: never empty
  return transact(db_, [&](pqxx::work& tx) {
    auto r = tx.exec_params(
        std::string("INSERT INTO alert_silences (project, selector, comment, starts_at, ends_at, "
                    "created_by) VALUES ($1, $2::jsonb, $3, coalesce($4::timestamptz, now()), "
                    "$5::timestamptz, $6) RETURNING ") +
            kSilenceColumns,
        s.project, s.selector.dump(), s.comment, nullable(s.starts_at), s.ends_at, s.created_by);
    return silence_from_row(r[0]);
  });
}

std::vector<Silence> AlertStore::silences(const ProjectScope& scope, bool include_ended) {
  return transact(db_, [&](pqxx::work& tx) {
    std::vector<Silence> out;
    for (const auto& r : tx.exec_params(
             std::string("SELECT ") + kSilenceColumns +
                 " FROM alert_silences WHERE ($1::text[] IS NULL OR project = ANY($1::text[]))" +
                 (include_ended ? "" : " AND expired_at IS NULL AND ends_at > now()") +
                 " ORDER BY created_at DESC",
             nullable(scope_array(scope))))
      out.push_back(silence_from_row(r));
    return out;
  });
}

std::optional<Silence> AlertStore::silence(const std::string& id) {
  if (!is_uuid(id)) return std::nullopt;
  return transact(db_, [&](pqxx::work& tx) -> std::optional<Silence> {
    auto r = tx.exec_params(
        std::string("SELECT ") + kSilenceColumns + " FROM alert_silences WHERE id = $1::uuid", id);
    if (r.empty()) return std::nullopt;
    return silence_from_row(r[0]);
  });
}

Silence AlertStore::end_silence(const std::string& id) {
  return transact(db_, [&](pqxx::work& tx) {
    auto r = tx.exec_params(std::string("UPDATE alert_silences SET expired_at = "
                                        "coalesce(expired_at, now()) WHERE id = $1::uuid "
                                        "RETURNING ") +
                                kSilenceColumns,
                            id);
    if (r.empty()) throw not_found("no silence " + id);
    return silence_from_row(r[0]);
  });
}

Receiver AlertStore::add_receiver(const NewReceiver& n) {
  if (!valid_name(n.name))
    throw unprocessable("a receiver's name is 1 to 63 letters, digits, '.', '_' or '-'", "name");
  if (n.url.rfind("http://", 0) != 0 && n.url.rfind("https://", 0) != 0)
    throw unprocessable("\"url\" must be an http:// or https:// URL", "url");
  if (n.url.size() > 2000) throw unprocessable("\"url\" is too long", "url");
  if (n.secret.size() < 16 || n.secret.size() > 512)
    throw unprocessable("\"secret\" must be 16 to 512 characters (it signs every notification)",
                        "secret");
  if (n.min_severity != "warning" && n.min_severity != "critical")
    throw unprocessable("\"min_severity\" must be warning or critical", "min_severity");
  return transact(db_, [&](pqxx::work& tx) {
    const std::string id = tx.exec1("SELECT gen_random_uuid()::text")[0].as<std::string>();
    std::string secret = n.secret;
    const auto sealed = box_.seal(secret, id);
    OPENSSL_cleanse(secret.data(), secret.size());
    try {
      Savepoint insert(tx, "insert_receiver");
      auto r = tx.exec_params(
          std::string("INSERT INTO alert_receivers (id, name, url, key_id, sealed, min_severity, "
                      "project, created_by) VALUES ($1::uuid, $2, $3, $4, decode($5, 'hex'), $6, "
                      "$7, $8) RETURNING ") +
              kReceiverColumns,
          id, n.name, n.url, box_.key_id(), crypto::to_hex(sealed), n.min_severity,
          nullable(n.project), n.created_by);
      insert.release();
      return receiver_from_row(r[0]);
    } catch (const pqxx::unique_violation&) {
      throw conflict("a receiver named \"" + n.name + "\" already exists", "name");
    } catch (const pqxx::foreign_key_violation&) {
      throw unprocessable("no project is named \"" + n.project.value_or("") + "\"", "project");
    }
  });
}

std::vector<Receiver> AlertStore::receivers(const ProjectScope& scope) {
  return transact(db_, [&](pqxx::work& tx) {
    std::vector<Receiver> out;
    for (const auto& r :
         tx.exec_params(std::string("SELECT ") + kReceiverColumns +
                            " FROM alert_receivers WHERE deleted_at IS NULL "
                            "AND ($1::text[] IS NULL OR project = ANY($1::text[])) ORDER BY name",
                        nullable(scope_array(scope))))
      out.push_back(receiver_from_row(r));
    return out;
  });
}

std::optional<Receiver> AlertStore::receiver(const std::string& id_or_name) {
  return transact(db_, [&](pqxx::work& tx) -> std::optional<Receiver> {
    auto r = tx.exec_params(std::string("SELECT ") + kReceiverColumns +
                                " FROM alert_receivers WHERE deleted_at IS NULL AND " +
                                receiver_where(id_or_name),
                            id_or_name);
    if (r.empty()) return std::nullopt;
    return receiver_from_row(r[0]);
  });
}

Receiver AlertStore::remove_receiver(const std::string& id_or_name) {
  return transact(db_, [&](pqxx::work& tx) {
    // Kept as a row (deliveries name it); its secret goes, and nothing more is sent to it.
    auto r = tx.exec_params(std::string("UPDATE alert_receivers SET deleted_at = now(), "
                                        "sealed = '\\x'::bytea WHERE deleted_at IS NULL AND ") +
                                receiver_where(id_or_name) + " RETURNING " + kReceiverColumns,
                            id_or_name);
    if (r.empty()) throw not_found("no receiver \"" + id_or_name.substr(0, 100) + "\"");
    tx.exec_params("DELETE FROM alert_outbox WHERE receiver_id = $1::uuid AND delivered_at IS NULL",
                   r[0][0].as<std::string>());
    return receiver_from_row(r[0]);
  });
}

json to_json(const Alert& a) {
  return {{"id", a.id},
          {"fingerprint", a.fingerprint},
          {"source", a.source},
          {"severity", a.severity},
          {"state", a.state},
          {"node_id", json_or_null(a.node_id)},
          {"node_name", json_or_null(a.node_name)},
          {"project", json_or_null(a.project)},
          {"summary", a.summary},
          {"details", a.details},
          {"first_seen", a.first_seen},
          {"last_seen", a.last_seen},
          {"resolved_at", json_or_null(a.resolved_at)},
          {"acknowledged_by", json_or_null(a.acknowledged_by)},
          {"acknowledged_at", json_or_null(a.acknowledged_at)},
          {"occurrences", a.occurrences},
          {"flapping", a.flapping}};
}

json to_json(const Silence& s) {
  return {{"id", s.id},
          {"project", s.project},
          {"selector", s.selector},
          {"comment", s.comment},
          {"starts_at", s.starts_at},
          {"ends_at", s.ends_at},
          {"created_by", s.created_by},
          {"created_at", s.created_at},
          {"expired_at", json_or_null(s.expired_at)}};
}

json to_json(const Receiver& r) {
  return {{"id", r.id},
          {"name", r.name},
          {"url", r.url},
          {"min_severity", r.min_severity},
          {"project", json_or_null(r.project)},
          {"created_by", r.created_by},
          {"created_at", r.created_at}};
}

}  // namespace ironhold::db
