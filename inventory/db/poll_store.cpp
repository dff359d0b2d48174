#include "inventory/db/poll_store.hpp"

#include <algorithm>

#include "inventory/db/bmc_target_columns.hpp"
#include "inventory/db/node_rows.hpp"
#include "inventory/db/poll_record.hpp"
#include "inventory/db/prepared.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/db/savepoint.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"
#include "inventory/util/concat.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::db {
namespace {

constexpr std::string_view poll_kind_names[] = {"status", "sensors", "inventory"};

PollKind poll_kind(std::string_view text) {
  return enum_from_names<PollKind>(poll_kind_names, text).value_or(PollKind::status);
}

PollJob job_from_row(const pqxx::row& r, const crypto::SecretBox& box) {
  PollJob job;
  job.target.node_id = r[0].as<std::string>();
  job.kind = poll_kind(r[1].c_str());
  job.failures = r[2].as<int>();
  job.target.node_name = r[3].as<std::string>();
  job.driver = r[4].as<std::string>();
  read_bmc_columns(job.target, r, 5, box);
  if (!r[9].is_null())
    job.last_duration = std::chrono::milliseconds(static_cast<long long>(r[9].as<double>()));
  return job;
}

}  // namespace

std::string_view to_string(PollKind kind) {
  return poll_kind_names[static_cast<int>(kind)];
}

const DriverOutcome& PollResult::outcome() const {
  return std::visit([](const auto& r) -> const DriverOutcome& { return r; }, report);
}

namespace {

// Claims of one tier of due polls: those of working BMCs (no failure since the last success) or
// of failing ones, each tier read from its own partial index on next_due (migration 0021).
//
// The claimed rows are updated by their ctid, taken from the locking CTE, and the node's columns
// come from that CTE too: the statement is prepared, and PostgreSQL's generic plan for it (used
// after the fifth run) cannot know that LIMIT $3 keeps the claim small. Joined on node_id (and
// nodes joined again), that plan hashed the whole poll schedule and the whole nodes table at every
// claim (measured with 5,000 nodes: 4.2 ms a claim, against 1.5 ms now, whatever the fleet's size).
std::string claim_statement(std::string_view tier) {
  return util::concat(
      "WITH due AS ("
      "  SELECT s.ctid AS row_id, s.node_id, s.kind, n.name, n.driver, n.endpoint, n.options,"
      "         n.tls_fingerprint"
      "    FROM poll_schedule s JOIN nodes n ON n.id = s.node_id"
      "   WHERE s.next_due <= now() AND (s.lease_expires IS NULL OR s.lease_expires < now())"
      "     AND ",
      tier,
      "     AND n.driver = ANY($2::text[]) AND n.retired_at IS NULL"
      "     AND (n.bmc_quiet_until IS NULL OR n.bmc_quiet_until < now())"
      "   ORDER BY s.next_due LIMIT $3 FOR UPDATE OF s SKIP LOCKED), "
      "claimed AS ("
      "  UPDATE poll_schedule s SET lease_owner = $1, "
      "         lease_expires = now() + $4::integer * interval '1 second', last_started = now() "
      "   WHERE s.ctid = ANY (ARRAY(SELECT row_id FROM due)) "
      "  RETURNING s.node_id, s.kind, s.failures, s.last_duration_ms) "
      "SELECT c.node_id, c.kind, c.failures, d.name, d.driver, d.endpoint, d.options::text, "
      "       d.tls_fingerprint, "
      "       (SELECT encode(k.sealed, 'hex') FROM node_credentials k"
      "         WHERE k.node_id = d.node_id), "
      "       c.last_duration_ms "
      "  FROM claimed c JOIN due d ON d.node_id = c.node_id AND d.kind = c.kind");
}

}  // namespace

std::vector<PollJob> PollStore::claim(const std::string& owner,
                                      std::span<const std::string> drivers, int limit,
                                      std::chrono::seconds lease, std::optional<int> failing_limit,
                                      std::optional<int> inventory_limit) {
  if (drivers.empty() || limit <= 0) return {};
  // Due polls of failing BMCs wait behind those of working ones. When a whole sweep falls due at
  // once (instances starting, taking over a dead one's work, every node made due), a fifth of the
  // fleet gone silent or broken would otherwise take slots, handshakes and CPU from the rest in
  // proportion; they run once nothing else is due, or as soon as the poller has room to spare.
  static const HotStatement working{"poll_claim_working", claim_statement("s.failures = 0")};
  static const HotStatement failing{"poll_claim_failing", claim_statement("s.failures > 0")};
  // With inspections capped, each tier's inventory polls come after its other due polls.
  static const HotStatement working_other{
      "poll_claim_working_other", claim_statement("s.failures = 0 AND s.kind <> 'inventory'")};
  static const HotStatement working_inventory{
      "poll_claim_working_inventory", claim_statement("s.failures = 0 AND s.kind = 'inventory'")};
  static const HotStatement failing_other{
      "poll_claim_failing_other", claim_statement("s.failures > 0 AND s.kind <> 'inventory'")};
  static const HotStatement failing_inventory{
      "poll_claim_failing_inventory", claim_statement("s.failures > 0 AND s.kind = 'inventory'")};
  const bool prepared = db_.options().prepared_statements;
  return transact(db_, [&](pqxx::work& tx) {
    const auto drivers_array = text_array(drivers);
    const int lease_seconds = static_cast<int>(lease.count());
    std::vector<PollJob> jobs;
    std::vector<std::string> inspected;
    // Takes up to `most` polls (and no more than the limit leaves) with one statement.
    const auto take = [&](const HotStatement& statement, int most) {
      most = std::min(most, limit - static_cast<int>(jobs.size()));
      if (most <= 0) return 0;
      const auto rows =
          exec_hot(tx, prepared, statement, owner, drivers_array, most, lease_seconds);
      for (const auto& row : rows) {
        jobs.push_back(job_from_row(row, box_));
        if (jobs.back().kind == PollKind::inventory)
          inspected.push_back(jobs.back().target.node_id);
      }
      return static_cast<int>(rows.size());
    };
    const int failing_most = failing_limit.value_or(limit);
    if (!inventory_limit) {
      take(working, limit);
      take(failing, failing_most);
    } else {
      take(working_other, limit);
      take(working_inventory, *inventory_limit - static_cast<int>(inspected.size()));
      const int failing_taken = take(failing_other, failing_most);
      take(failing_inventory, std::min(failing_most - failing_taken,
                                       *inventory_limit - static_cast<int>(inspected.size())));
    }
    // A node's first inspection under way: enrolled → inspecting (the lifecycle says so). The
    // nodes are found by id; `lifecycle || ''` keeps PostgreSQL from reading them through the
    // lifecycle index instead (poll_record.cpp, record_inspection_lifecycle, says why).
    if (!inspected.empty())
      tx.exec_params(
          "UPDATE nodes SET lifecycle = 'inspecting', updated_at = now() "
          " WHERE (id = ANY($1::uuid[]) OR parent_id = ANY($1::uuid[])) "
          "   AND lifecycle || '' = 'enrolled'",
          text_array(inspected));
    return jobs;
  });
}

std::vector<PollKey> PollStore::renew(const std::string& owner, std::span<const PollKey> keys,
                                      std::chrono::seconds lease) {
  if (keys.empty()) return {};
  std::vector<std::string> nodes, kinds;
  nodes.reserve(keys.size());
  kinds.reserve(keys.size());
  for (const auto& key : keys) {
    nodes.push_back(key.node_id);
    kinds.emplace_back(to_string(key.kind));
  }
  return transact(db_, [&](pqxx::work& tx) {
    std::vector<PollKey> renewed;
    for (const auto& r : tx.exec_params(
             "UPDATE poll_schedule s SET lease_expires = now() + $4::integer * interval '1 second' "
             "  FROM unnest($2::uuid[], $3::text[]) AS k(node_id, kind) "
             " WHERE s.node_id = k.node_id AND s.kind = k.kind AND s.lease_owner = $1 "
             "RETURNING s.node_id::text, s.kind",
             owner, text_array(nodes), text_array(kinds), static_cast<int>(lease.count())))
      renewed.push_back({r[0].as<std::string>(), poll_kind(r[1].c_str())});
    return renewed;
  });
}

namespace {

// Hands back the leases of a recorded batch and schedules each poll's next run, in one statement.
void release_leases(pqxx::transaction_base& tx, std::span<const PollResult* const> results,
                    const std::string& owner, bool prepared) {
  std::vector<std::string> nodes, kinds;
  std::string durations = "{", next_ins = "{", oks = "{";
  nodes.reserve(results.size());
  kinds.reserve(results.size());
  for (const PollResult* result : results) {
    if (!nodes.empty()) {
      durations += ',';
      next_ins += ',';
      oks += ',';
    }
    nodes.push_back(result->node_id);
    kinds.emplace_back(to_string(result->kind));
    durations += std::to_string(result->duration.count());
    next_ins += std::to_string(result->next_in.count());
    oks += result->outcome().ok() ? 't' : 'f';
  }
  static const HotStatement release{
      "poll_release",
      "UPDATE poll_schedule s SET lease_owner = NULL, lease_expires = NULL, last_finished = now(), "
      "       last_duration_ms = r.duration_ms, "
      "       next_due = now() + r.next_in_ms * interval '1 millisecond', "
      "       failures = CASE WHEN r.ok THEN 0 ELSE s.failures + 1 END "
      "  FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::bigint[], $5::boolean[]) "
      "       AS r(node_id, kind, duration_ms, next_in_ms, ok) "
      " WHERE s.node_id = r.node_id AND s.kind = r.kind "
      "   AND (s.lease_owner = $6 OR s.lease_owner IS NULL)"};
  exec_hot(tx, prepared, release, text_array(nodes), text_array(kinds), durations + '}',
           next_ins + '}', oks + '}', owner);
}

}  // namespace

void PollStore::record(std::span<const PollResult> results, const std::string& owner) {
  if (results.empty()) return;
  // In node order: instances record batches at the same time, and a node's status and sensor
  // polls may be another instance's each, so two batches can touch the same node rows. Locked in
  // one order, they wait for each other instead of deadlocking.
  std::vector<const PollResult*> ordered;
  ordered.reserve(results.size());
  for (const auto& result : results) ordered.push_back(&result);
  std::stable_sort(ordered.begin(), ordered.end(), [](const PollResult* a, const PollResult* b) {
    return a->node_id < b->node_id;
  });
  const bool prepared = db_.options().prepared_statements;

  // The whole batch in one transaction. A savepoint per result would cost PostgreSQL a
  // subtransaction each (and past 64 of them in one transaction, every other session's snapshot
  // checks overflow into pg_subtrans); a result is rarely refused, so that is the fallback below.
  try {
    transact(db_, [&](pqxx::work& tx) {
      std::vector<std::string> refresh_due;
      for (const PollResult* each : ordered) record_poll_result(tx, *each, prepared, refresh_due);
      refresh_last_seen(tx, refresh_due, prepared);
      release_leases(tx, ordered, owner, prepared);
    });
    return;
  } catch (const std::exception& e) {
    log::warn("a batch of poll results was refused, recording them one by one",
              {{"results", ordered.size()}, {"error", e.what()}});
  }

  // One by one: a result that fails (a malformed value from a BMC, a constraint) loses itself
  // only, and is logged.
  transact(db_, [&](pqxx::work& tx) {
    std::vector<std::string> refresh_due;
    for (const PollResult* each : ordered) {
      const PollResult& result = *each;
      try {
        Savepoint one(tx, "poll_result");
        record_poll_result(tx, result, prepared, refresh_due);
        one.release();
      } catch (const pqxx::deadlock_detected&) {
        throw;  // the whole batch again (transact retries it): not one result lost
      } catch (const pqxx::serialization_failure&) {
        throw;
      } catch (const std::exception& e) {
        log::error(
            "could not record a poll result",
            {{"node_id", result.node_id}, {"poll", to_string(result.kind)}, {"error", e.what()}});
      }
    }
    refresh_last_seen(tx, refresh_due, prepared);
    // The leases go whatever happened to the results, so no poll is stuck until its lease expires.
    release_leases(tx, ordered, owner, prepared);
  });
}

void PollStore::request_inspection(const std::string& node_id) {
  transact(db_, [&](pqxx::work& tx) {
    const auto r = tx.exec_params(
        "UPDATE poll_schedule SET next_due = now() WHERE node_id = $1::uuid AND kind = 'inventory'",
        node_id);
    if (r.affected_rows() == 0)
      throw conflict(
          "this node is not polled by itself (it is retired, a cloud instance, or a "
          "System read through its parent's BMC): inspect the parent instead");
  });
}

std::optional<std::string> PollStore::clear_pins(const std::string& node_id, bool tls) {
  return transact(db_, [&](pqxx::work& tx) -> std::optional<std::string> {
    const auto previous = tx.exec_params(
        "SELECT ssh_host_key FROM nodes WHERE id = $1::uuid AND ssh_host_key IS NOT NULL", node_id);
    tx.exec_params(
        "UPDATE nodes SET ssh_host_key = NULL WHERE id = $1::uuid OR parent_id = $1::uuid",
        node_id);
    if (!tls) {
      if (previous.empty()) return std::nullopt;
      return previous[0][0].as<std::string>();
    }
    tx.exec_params(
        "UPDATE nodes SET tls_fingerprint = NULL, "
        "       last_error = CASE WHEN last_error = 'tls_pin_mismatch' THEN NULL ELSE last_error "
        "END, "
        "       last_error_message = CASE WHEN last_error = 'tls_pin_mismatch' THEN NULL "
        "                                 ELSE last_error_message END, updated_at = now() "
        " WHERE id = $1::uuid OR parent_id = $1::uuid",
        node_id);
    tx.exec_params(
        "UPDATE poll_schedule SET next_due = now(), failures = 0 WHERE node_id = $1::uuid",
        node_id);
    if (previous.empty()) return std::nullopt;
    return previous[0][0].as<std::string>();
  });
}

std::vector<ScheduleEntry> PollStore::schedule(const std::string& node_id) {
  return transact(db_, [&](pqxx::work& tx) {
    std::vector<ScheduleEntry> out;
    for (const auto& r : tx.exec_params(
             "SELECT kind, rfc3339(next_due), lease_owner, rfc3339(last_finished), failures "
             "FROM poll_schedule WHERE node_id = $1::uuid ORDER BY kind",
             node_id)) {
      ScheduleEntry e;
      e.kind = poll_kind(r[0].c_str());
      e.next_due = r[1].as<std::string>();
      if (!r[2].is_null()) e.lease_owner = r[2].as<std::string>();
      if (!r[3].is_null()) e.last_finished = r[3].as<std::string>();
      e.failures = r[4].as<int>();
      out.push_back(std::move(e));
    }
    return out;
  });
}

}  // namespace ironhold::db
