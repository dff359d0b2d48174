#include "inventory/db/discovery_store.hpp"

#include "inventory/db/node_rows.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"
#include "inventory/model/node.hpp"

namespace ironhold::db {
namespace {

using discovery::DiscoveryCounts;
using discovery::DiscoveryResult;
using discovery::DiscoveryRun;
using nlohmann::json;

constexpr const char* kRunColumns =
    "id, state, parameters::text, address_count, probed, found, enrolled, already_enrolled, "
    "errors, error, requested_by, request_id, rfc3339(created_at), rfc3339(started_at), "
    "rfc3339(finished_at), project";

DiscoveryRun run_from_row(const pqxx::row& r) {
  DiscoveryRun run;
  run.id = r[0].as<std::string>();
  run.state = r[1].as<std::string>();
  run.parameters = json::parse(r[2].c_str(), nullptr, false);
  run.address_count = r[3].as<int>();
  run.counts = {r[4].as<int>(), r[5].as<int>(), r[6].as<int>(), r[7].as<int>(), r[8].as<int>()};
  run.error = optional_text(r[9]);
  run.requested_by = r[10].as<std::string>();
  run.request_id = optional_text(r[11]);
  run.created_at = r[12].as<std::string>();
  run.started_at = optional_text(r[13]);
  run.finished_at = optional_text(r[14]);
  run.project = r[15].as<std::string>();
  return run;
}

// The reader's sweep: a run whose instance stopped renewing its lease will never finish.
int fail_expired(pqxx::work& tx, const std::string& reason) {
  const auto r = tx.exec_params(
      "UPDATE discovery_runs SET state = 'failed', error = $1, finished_at = now(), "
      "lease_owner = NULL, lease_expires = NULL "
      "WHERE state IN ('queued', 'running') AND lease_expires < now()",
      reason);
  return static_cast<int>(r.affected_rows());
}

constexpr const char* kInterrupted =
    "interrupted by a restart: the instance running it stopped before it finished";

}  // namespace

DiscoveryRun DiscoveryStore::create(const NewDiscoveryRun& n) {
  return transact(db_, [&](pqxx::work& tx) {
    auto r = tx.exec_params(
        std::string("INSERT INTO discovery_runs (parameters, address_count, requested_by, "
                    "requested_by_id, request_id, lease_owner, lease_expires, project) VALUES "
                    "($1::jsonb, $2::integer, $3, $4, $5, $6, "
                    "now() + make_interval(secs => $7::integer), $8) "
                    "RETURNING ") +
            kRunColumns,
        n.parameters.dump(), std::to_string(n.address_count), n.requested_by,
        nullable(n.requested_by_id), nullable(n.request_id), n.lease_owner,
        std::to_string(n.lease.count()), n.project);
    return run_from_row(r[0]);
  });
}

void DiscoveryStore::mark_running(const std::string& id) {
  transact(db_, [&](pqxx::work& tx) {
    tx.exec_params(
        "UPDATE discovery_runs SET state = 'running', started_at = now() "
        "WHERE id = $1::uuid AND state = 'queued'",
        id);
  });
}

void DiscoveryStore::record(const std::string& id, const DiscoveryCounts& c,
                            const std::vector<DiscoveryResult>& results) {
  transact(db_, [&](pqxx::work& tx) {
    for (const auto& res : results) {
      tx.exec_params(
          "INSERT INTO discovery_results (run_id, seq, address, port, driver, endpoint, status, "
          "node_id, node_name, detail) VALUES ($1::uuid, $2::integer, $3, $4::integer, $5, $6, $7, "
          "$8::uuid, $9, $10) ON CONFLICT (run_id, seq) DO NOTHING",
          id, std::to_string(res.seq), res.address, std::to_string(res.port), nullable(res.driver),
          nullable(res.endpoint), res.status, nullable(res.node_id), nullable(res.node_name),
          res.detail);
    }
    tx.exec_params(
        "UPDATE discovery_runs SET probed = $2::integer, found = $3::integer, "
        "enrolled = $4::integer, already_enrolled = $5::integer, errors = $6::integer "
        "WHERE id = $1::uuid",
        id, std::to_string(c.probed), std::to_string(c.found), std::to_string(c.enrolled),
        std::to_string(c.already_enrolled), std::to_string(c.errors));
  });
}

void DiscoveryStore::finish(const std::string& id, const std::string& state,
                            const std::optional<std::string>& error) {
  transact(db_, [&](pqxx::work& tx) {
    tx.exec_params(
        "UPDATE discovery_runs SET state = $2, error = $3, finished_at = now(), "
        "started_at = coalesce(started_at, now()), lease_owner = NULL, lease_expires = NULL "
        "WHERE id = $1::uuid AND state IN ('queued', 'running')",
        id, state, nullable(error));
  });
}

DiscoveryRun DiscoveryStore::get(const std::string& id) {
  if (!is_uuid(id)) throw not_found("no discovery run has the id \"" + id.substr(0, 100) + "\"");
  return transact(db_, [&](pqxx::work& tx) {
    fail_expired(tx, kInterrupted);
    auto r = tx.exec_params(
        std::string("SELECT ") + kRunColumns + " FROM discovery_runs WHERE id = $1::uuid", id);
    if (r.empty()) throw not_found("no discovery run has the id \"" + id + "\"");
    DiscoveryRun run = run_from_row(r[0]);
    auto rows = tx.exec_params(
        "SELECT seq, address, port, driver, endpoint, status, node_id, node_name, detail "
        "FROM discovery_results WHERE run_id = $1::uuid ORDER BY seq",
        id);
    for (const auto& row : rows) {
      DiscoveryResult res;
      res.seq = row[0].as<int>();
      res.address = row[1].as<std::string>();
      res.port = static_cast<std::uint16_t>(row[2].as<int>());
      res.driver = optional_text(row[3]);
      res.endpoint = optional_text(row[4]);
      res.status = row[5].as<std::string>();
      res.node_id = optional_text(row[6]);
      res.node_name = optional_text(row[7]);
      res.detail = row[8].as<std::string>();
      run.results.push_back(std::move(res));
    }
    return run;
  });
}

std::vector<DiscoveryRun> DiscoveryStore::recent(int limit, const ProjectScope& scope) {
  return transact(db_, [&](pqxx::work& tx) {
    fail_expired(tx, kInterrupted);
    auto rows = tx.exec_params(std::string("SELECT ") + kRunColumns +
                                   " FROM discovery_runs "
                                   "WHERE ($2::text[] IS NULL OR project = ANY($2::text[])) "
                                   "ORDER BY created_at DESC, id DESC LIMIT $1::integer",
                               std::to_string(limit), nullable(scope_array(scope)));
    std::vector<DiscoveryRun> out;
    for (const auto& row : rows) out.push_back(run_from_row(row));
    return out;
  });
}

void DiscoveryStore::renew_leases(const std::string& owner, std::chrono::seconds lease) {
  transact(db_, [&](pqxx::work& tx) {
    tx.exec_params(
        "UPDATE discovery_runs SET lease_expires = now() + make_interval(secs => $2::integer) "
        "WHERE lease_owner = $1 AND state IN ('queued', 'running')",
        owner, std::to_string(lease.count()));
  });
}

int DiscoveryStore::fail_abandoned(const std::string& reason) {
  return transact(db_, [&](pqxx::work& tx) { return fail_expired(tx, reason); });
}

int DiscoveryStore::fail_owned(const std::string& owner, const std::string& reason) {
  return transact(db_, [&](pqxx::work& tx) {
    const auto r = tx.exec_params(
        "UPDATE discovery_runs SET state = 'failed', error = $2, finished_at = now(), "
        "lease_owner = NULL, lease_expires = NULL "
        "WHERE lease_owner = $1 AND state IN ('queued', 'running')",
        owner, reason);
    return static_cast<int>(r.affected_rows());
  });
}

json to_json(const DiscoveryRun& run) {
  json out = {{"id", run.id},
              {"project", run.project},
              {"state", run.state},
              {"addresses", run.address_count},
              {"counts",
               {{"probed", run.counts.probed},
                {"found", run.counts.found},
                {"enrolled", run.counts.enrolled},
                {"already_enrolled", run.counts.already_enrolled},
                {"errors", run.counts.errors}}},
              {"error", json_or_null(run.error)},
              {"requested_by", run.requested_by},
              {"request_id", json_or_null(run.request_id)},
              {"parameters", run.parameters},
              {"created_at", run.created_at},
              {"started_at", json_or_null(run.started_at)},
              {"finished_at", json_or_null(run.finished_at)}};
  return out;
}

}  // namespace ironhold::db
