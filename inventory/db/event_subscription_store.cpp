#include "inventory/db/event_subscription_store.hpp"

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/db_json.hpp"
#include "inventory/db/event_append.hpp"
#include "inventory/db/node_secrets.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::db {
namespace {

using nlohmann::json;

SubscriptionJob subscription_job_from_row(const pqxx::row& r, const crypto::SecretBox& box) {
  SubscriptionJob job;
  job.target.node_id = r[0].as<std::string>();
  job.state = r[1].as<std::string>();
  job.bmc_path = optional_text(r[2]);
  job.destination_prefix = optional_text(r[3]);
  job.failures = r[4].as<int>();
  job.target.node_name = r[5].as<std::string>();
  job.driver = r[6].as<std::string>();
  std::string why;
  if (!r[7].is_null())
    if (auto endpoint = parse_endpoint(r[7].c_str(), why)) job.target.endpoint = *endpoint;
  job.target.options = json::parse(r[8].c_str(), nullptr, false);
  if (!r[9].is_null()) job.target.pinned_fingerprint = r[9].as<std::string>();
  if (!r[10].is_null()) {
    try {
      auto secrets = open_node_secrets(box, job.target.node_id, r[10].c_str());
      job.target.credentials = std::move(secrets.credentials);
    } catch (const Error& e) {
      // The BMC will refuse, and the subscription shows why it fails; the log says more.
      log::warn("cannot open a node's credentials",
                {{"node", job.target.node_name}, {"error", e.what()}});
    }
  }
  job.retired = r[11].as<bool>();
  return job;
}

// A node of the family a pushed document is about, as it is before the document.
struct FamilyNode {
  std::string id, name, system_id, health;
};

const FamilyNode& node_for(const std::vector<FamilyNode>& family, const std::string& system_id) {
  if (!system_id.empty())
    for (const auto& n : family)
      if (n.system_id == system_id) return n;
  return family.front();  // the enrolled node: its own System, or the BMC itself
}

Severity event_severity_of(Health health) {
  return health == Health::critical  ? Severity::critical
         : health == Health::warning ? Severity::warning
                                     : Severity::info;
}

json event_details(const events::PushedEvent& e, const std::string& context) {
  json details = {{"pushed", true},
                  {"event_type", e.event_type},
                  {"message_id", e.message_id},
                  {"message_args", e.message_args}};
  if (!e.event_id.empty()) details["event_id"] = e.event_id;
  if (!e.origin.empty()) details["origin"] = e.origin;
  if (!e.log_entry.empty()) details["log_entry"] = e.log_entry;
  if (!context.empty()) details["context"] = context;
  return details;
}

// The id that makes a record recognisable when it comes again: the log entry (a poll of the log
// reads the same one), else the BMC's event id with its time (a redelivery after a lost answer).
std::optional<std::string> source_of(const events::PushedEvent& e) {
  if (!e.log_entry.empty()) return e.log_entry;
  if (!e.event_id.empty())
    return "redfish-event:" + e.event_id + (e.occurred_at ? "@" + *e.occurred_at : std::string());
  return std::nullopt;
}

std::optional<std::string> time_text(const pqxx::field& f) {
  return f.is_null() ? std::nullopt : std::optional<std::string>(f.as<std::string>());
}

}  // namespace

json to_json(const EventSubscriptionView& v) {
  return {{"node_id", v.node_id},
          {"node", v.node_name},
          {"project", v.project},
          {"state", v.state},
          {"bmc_subscription", json_or_null(v.bmc_path)},
          {"destination_prefix", json_or_null(v.destination_prefix)},
          {"last_error", json_or_null(v.last_error)},
          {"failures", v.failures},
          {"subscribed_at", json_or_null(v.subscribed_at)},
          {"checked_at", json_or_null(v.checked_at)},
          {"next_check", json_or_null(v.next_check)},
          {"last_event_at", json_or_null(v.last_event_at)},
          {"events_received", v.events_received}};
}

std::vector<SubscriptionJob> EventSubscriptionStore::claim(const std::string& owner, int limit,
                                                           std::chrono::seconds lease) {
  if (limit <= 0) return {};
  return transact(db_, [&](pqxx::work& tx) {
    const auto rows = tx.exec_params(
        "WITH due AS ("
        "  SELECT node_id FROM event_subscriptions"
        "   WHERE next_check <= now() AND (lease_expires IS NULL OR lease_expires < now())"
        "   ORDER BY next_check LIMIT $2 FOR UPDATE SKIP LOCKED) "
        "UPDATE event_subscriptions s SET lease_owner = $1, "
        "       lease_expires = now() + $3::integer * interval '1 second' "
        "  FROM due, nodes n WHERE s.node_id = due.node_id AND n.id = s.node_id "
        "RETURNING s.node_id, s.state, s.bmc_path, s.destination_prefix, s.failures, n.name, "
        "          n.driver, n.endpoint, n.options::text, n.tls_fingerprint, "
        "          (SELECT encode(c.sealed, 'hex') FROM node_credentials c WHERE c.node_id = "
        "n.id), "
        "          n.retired_at IS NOT NULL",
        owner, limit, static_cast<int>(lease.count()));
    std::vector<SubscriptionJob> jobs;
    jobs.reserve(rows.size());
    for (const auto& row : rows) jobs.push_back(subscription_job_from_row(row, box_));
    return jobs;
  });
}

void EventSubscriptionStore::expect_secret(const std::string& node_id, const std::string& secret) {
  transact(db_, [&](pqxx::work& tx) {
    tx.exec_params(
        "UPDATE event_subscriptions SET pending_secret_sha256 = decode($2, 'hex') "
        " WHERE node_id = $1::uuid",
        node_id, crypto::sha256_hex(secret));
  });
}

void EventSubscriptionStore::subscribed(const std::string& node_id, const std::string& owner,
                                        const std::string& bmc_path,
                                        const std::string& destination_prefix,
                                        std::chrono::seconds next_check) {
  transact(db_, [&](pqxx::work& tx) {
    tx.exec_params(
        "UPDATE event_subscriptions SET state = 'active', secret_sha256 = pending_secret_sha256, "
        "       pending_secret_sha256 = NULL, bmc_path = $3, destination_prefix = $4, "
        "       subscribed_at = now(), checked_at = now(), failures = 0, last_error = NULL, "
        "       next_check = now() + $5::integer * interval '1 second', lease_owner = NULL, "
        "       lease_expires = NULL, updated_at = now() "
        " WHERE node_id = $1::uuid AND lease_owner = $2 AND state <> 'removing'",
        node_id, owner, db_text(bmc_path), db_text(destination_prefix),
        static_cast<int>(next_check.count()));
  });
}

void EventSubscriptionStore::checked(const std::string& node_id, const std::string& owner,
                                     std::chrono::seconds next_check) {
  transact(db_, [&](pqxx::work& tx) {
    tx.exec_params(
        "UPDATE event_subscriptions SET checked_at = now(), failures = 0, last_error = NULL, "
        "       next_check = now() + $3::integer * interval '1 second', lease_owner = NULL, "
        "       lease_expires = NULL, updated_at = now() "
        " WHERE node_id = $1::uuid AND lease_owner = $2",
        node_id, owner, static_cast<int>(next_check.count()));
  });
}

void EventSubscriptionStore::failed(const std::string& node_id, const std::string& owner,
                                    const std::string& state, const std::string& error,
                                    std::chrono::seconds next_check) {
  transact(db_, [&](pqxx::work& tx) {
    tx.exec_params(
        "UPDATE event_subscriptions SET state = coalesce(nullif($3, ''), state), "
        "       failures = failures + 1, last_error = left($4, 1000), pending_secret_sha256 = "
        "NULL, "
        "       next_check = now() + $5::integer * interval '1 second', lease_owner = NULL, "
        "       lease_expires = NULL, updated_at = now() "
        " WHERE node_id = $1::uuid AND lease_owner = $2",
        node_id, owner, state, db_text(error), static_cast<int>(next_check.count()));
  });
}

void EventSubscriptionStore::removed(const std::string& node_id, const std::string& owner) {
  transact(db_, [&](pqxx::work& tx) {
    const auto gone = tx.exec_params(
        "DELETE FROM event_subscriptions WHERE node_id = $1::uuid AND lease_owner = $2 "
        "   AND state = 'removing' RETURNING node_id",
        node_id, owner);
    if (gone.empty()) return;
    tx.exec_params(
        "DELETE FROM node_credentials c USING nodes n "
        " WHERE c.node_id = $1::uuid AND n.id = c.node_id AND n.retired_at IS NOT NULL",
        node_id);
  });
}

PushRecorded EventSubscriptionStore::record_pushed(const std::string& secret,
                                                   const events::PushedEvents& pushed) {
  const std::string hash = crypto::sha256_hex(secret);
  return transact(db_, [&](pqxx::work& tx) {
    const auto found = tx.exec_params(
        "SELECT s.node_id::text FROM event_subscriptions s JOIN nodes n ON n.id = s.node_id "
        " WHERE (s.secret_sha256 = decode($1, 'hex') OR s.pending_secret_sha256 = decode($1, "
        "'hex')) AND s.state <> 'removing' AND n.retired_at IS NULL",
        hash);
    if (found.empty())
      throw not_found(
          "no event subscription of this service has this address (the node was retired, or "
          "subscribed again since)");
    const std::string parent = found[0][0].as<std::string>();
    std::vector<FamilyNode> family;
    for (const auto& r :
         tx.exec_params("SELECT id::text, name, coalesce(system_id, ''), health FROM nodes "
                        " WHERE (id = $1::uuid OR parent_id = $1::uuid) AND retired_at IS NULL "
                        " ORDER BY parent_id NULLS FIRST, name",
                        parent))
      family.push_back({r[0].as<std::string>(), r[1].as<std::string>(), r[2].as<std::string>(),
                        r[3].as<std::string>()});
    PushRecorded out;
    out.node_id = parent;
    out.node_name = family.front().name;
    for (const auto& e : pushed.events) {
      FamilyNode node = node_for(family, e.system_id);
      if (e.health) {
        // The System's health as the BMC says it now: at once, confirmed by the status poll
        // brought forward below.
        const std::string health(to_string(*e.health));
        if (health == node.health) continue;
        tx.exec_params("UPDATE nodes SET health = $2, updated_at = now() WHERE id = $1::uuid",
                       node.id, health);
        json details = event_details(e, pushed.context);
        details["from"] = node.health;
        details["to"] = health;
        append_event(
            tx, {node.id, node.name, "health_change", event_severity_of(*e.health),
                 "health changed from " + node.health + " to " + health + " (pushed by the BMC)",
                 std::move(details)});
        for (auto& n : family)
          if (n.id == node.id) n.health = health;
        ++out.health_changes;
        ++out.events;
        continue;
      }
      const std::optional<std::string> source = source_of(e);
      const auto inserted = tx.exec_params(
          "INSERT INTO events (node_id, node_name, kind, severity, message, details, source_id, "
          "                    occurred_at) "
          "SELECT $1::uuid, $2, $3, $4, $5, $6::jsonb, $7, coalesce($8::timestamptz, now()) "
          " WHERE $7::text IS NULL OR NOT EXISTS "
          "       (SELECT 1 FROM events WHERE node_id = $1::uuid AND source_id = $7) "
          "ON CONFLICT (node_id, kind, source_id) WHERE source_id IS NOT NULL DO NOTHING "
          "RETURNING id",
          node.id, node.name, e.log_entry.empty() ? "redfish_event" : "sel",
          std::string(to_string(e.severity)), db_text(e.message),
          db_json(event_details(e, pushed.context)), nullable(source), nullable(e.occurred_at));
      if (inserted.empty())
        ++out.duplicates;
      else
        ++out.events;
    }
    tx.exec_params(
        "UPDATE event_subscriptions SET last_event_at = now(), "
        "       events_received = events_received + $2 WHERE node_id = $1::uuid",
        parent, static_cast<long long>(pushed.events.size()));
    // The status poll confirms what the BMC said, soon; not more than once per few seconds
    // however many events a BMC sends.
    tx.exec_params(
        "UPDATE poll_schedule SET next_due = now() "
        " WHERE node_id = $1::uuid AND kind = 'status' AND next_due > now() "
        "   AND (last_started IS NULL OR last_started < now() - interval '5 seconds')",
        parent);
    return out;
  });
}

std::optional<EventSubscriptionView> EventSubscriptionStore::find(const std::string& node_id) {
  return transact(db_, [&](pqxx::work& tx) -> std::optional<EventSubscriptionView> {
    const auto rows = tx.exec_params(
        "SELECT s.node_id::text, n.name, n.project, s.state, s.bmc_path, s.destination_prefix, "
        "       s.last_error, "
        "       rfc3339(s.subscribed_at), "
        "       rfc3339(s.checked_at), "
        "       rfc3339(s.last_event_at), "
        "       rfc3339(s.next_check), "
        "       s.events_received, s.failures "
        "  FROM event_subscriptions s JOIN nodes n ON n.id = s.node_id WHERE s.node_id = $1::uuid",
        node_id);
    if (rows.empty()) return std::nullopt;
    const auto& r = rows[0];
    EventSubscriptionView v;
    v.node_id = r[0].as<std::string>();
    v.node_name = r[1].as<std::string>();
    v.project = r[2].as<std::string>();
    v.state = r[3].as<std::string>();
    v.bmc_path = optional_text(r[4]);
    v.destination_prefix = optional_text(r[5]);
    v.last_error = optional_text(r[6]);
    v.subscribed_at = time_text(r[7]);
    v.checked_at = time_text(r[8]);
    v.last_event_at = time_text(r[9]);
    v.next_check = time_text(r[10]);
    v.events_received = r[11].as<long long>();
    v.failures = r[12].as<int>();
    return v;
  });
}

}  // namespace ironhold::db
