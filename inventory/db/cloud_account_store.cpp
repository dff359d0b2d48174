// Cloud accounts: enrollment, lookup, update, deletion, and the leased sync schedule. Recording a
// sync's listing is in record_cloud_sync.cpp.
#include "inventory/db/cloud_account_store.hpp"

#include <openssl/crypto.h>

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/cloud_rows.hpp"
#include "inventory/db/db_json.hpp"
#include "inventory/db/event_append.hpp"
#include "inventory/db/node_rows.hpp"
#include "inventory/db/savepoint.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"
#include "inventory/model/node.hpp"

namespace ironhold::db {
namespace {

using nlohmann::json;

Error duplicate_name(const std::string& name) {
  return conflict("a cloud account named \"" + name +
                      "\" already exists; choose another name or delete that account first",
                  "name");
}

Error unknown_project(const std::string& project) {
  return unprocessable("no project is named \"" + project + "\" (ironhold project list)",
                       "project");
}

std::string seal_credentials(const crypto::SecretBox& box, const std::string& account_id,
                             const json& credentials) {
  std::string payload = credentials.dump();
  const auto sealed = box.seal(payload, account_id);
  OPENSSL_cleanse(payload.data(), payload.size());
  return crypto::to_hex(sealed);
}

// Locks (optionally) and reads the account an id or name refers to, with its credentials opened
// when `open` is set.
CloudAccount find_account(pqxx::work& tx, const crypto::SecretBox& box, std::string_view id_or_name,
                          bool for_update, bool open) {
  const std::string where = is_uuid(id_or_name) ? "a.id = $1::uuid" : "a.name = $1";
  const auto r = tx.exec_params(std::string("SELECT ") + account_columns +
                                    " FROM cloud_accounts a WHERE a.deleted_at IS NULL AND " +
                                    where + (for_update ? " FOR UPDATE OF a" : ""),
                                std::string(id_or_name));
  if (r.empty())
    throw not_found("no cloud account has the id or name \"" +
                    std::string(id_or_name.substr(0, 100)) + "\"");
  return account_from_row(box, r[0], open);
}

}  // namespace

CloudAccount CloudAccountStore::create(const CloudAccountSpec& spec) {
  return transact(db_, [&](pqxx::work& tx) {
    const std::string id = tx.exec1("SELECT gen_random_uuid()")[0].as<std::string>();
    try {
      Savepoint insert(tx, "insert_account");
      tx.exec_params(
          "INSERT INTO cloud_accounts (id, name, provider, endpoint, region, options, key_id, "
          "  sealed, sync_interval_s, project) "
          "VALUES ($1::uuid, $2, $3, $4, $5, $6::jsonb, $7, decode($8, 'hex'), $9, $10)",
          id, spec.name, spec.provider, nullable(spec.endpoint), spec.region, db_json(spec.options),
          box_.key_id(), seal_credentials(box_, id, spec.credentials), spec.sync_interval_s,
          spec.project);
      insert.release();
    } catch (const pqxx::unique_violation&) {
      throw duplicate_name(spec.name);
    } catch (const pqxx::foreign_key_violation&) {
      throw unknown_project(spec.project);
    }
    return find_account(tx, box_, id, false, false);
  });
}

CloudAccount CloudAccountStore::get(std::string_view id_or_name) {
  return transact(db_,
                  [&](pqxx::work& tx) { return find_account(tx, box_, id_or_name, false, false); });
}

std::vector<CloudAccount> CloudAccountStore::list(const ProjectScope& scope) {
  return transact(db_, [&](pqxx::work& tx) {
    std::vector<CloudAccount> out;
    for (const auto& r :
         tx.exec_params(std::string("SELECT ") + account_columns +
                            " FROM cloud_accounts a WHERE a.deleted_at IS NULL "
                            "AND ($1::text[] IS NULL OR a.project = ANY($1::text[])) "
                            "ORDER BY a.name COLLATE \"C\"",
                        nullable(scope_array(scope))))
      out.push_back(account_from_row(box_, r, false));
    return out;
  });
}

CloudAccount CloudAccountStore::update(std::string_view id_or_name, const json& patch,
                                       bool& credentials_changed) {
  return transact(db_, [&](pqxx::work& tx) {
    const CloudAccount current = find_account(tx, box_, id_or_name, true, true);
    const CloudAccountSpec spec =
        apply_cloud_account_patch(current.spec, patch, credentials_changed);
    try {
      Savepoint update(tx, "update_account");
      tx.exec_params(
          "UPDATE cloud_accounts SET name = $2, endpoint = $3, region = $4, options = $5::jsonb, "
          "  sync_interval_s = $6, project = $7, updated_at = now(), next_sync = now() "
          "WHERE id = $1::uuid",
          current.id, spec.name, nullable(spec.endpoint), spec.region, db_json(spec.options),
          spec.sync_interval_s, spec.project);
      update.release();
    } catch (const pqxx::unique_violation&) {
      throw duplicate_name(spec.name);
    } catch (const pqxx::foreign_key_violation&) {
      throw unknown_project(spec.project);
    }
    // Its instances belong where it does.
    if (spec.project != current.spec.project)
      tx.exec_params(
          "UPDATE nodes SET project = $2, updated_at = now() "
          "WHERE cloud_account_id = $1::uuid AND retired_at IS NULL",
          current.id, spec.project);
    if (credentials_changed)
      tx.exec_params(
          "UPDATE cloud_accounts SET key_id = $2, sealed = decode($3, 'hex') WHERE id = $1::uuid",
          current.id, box_.key_id(), seal_credentials(box_, current.id, spec.credentials));
    return find_account(tx, box_, current.id, false, false);
  });
}

CloudAccount CloudAccountStore::remove(std::string_view id_or_name, int& nodes_retired) {
  return transact(db_, [&](pqxx::work& tx) {
    const CloudAccount current = find_account(tx, box_, id_or_name, true, false);
    // The nodes go the way a retired node goes: out of service, their history closed and kept.
    const auto retired = tx.exec_params(
        "UPDATE nodes SET lifecycle = 'retired', retired_at = now(), updated_at = now() "
        " WHERE cloud_account_id = $1::uuid AND retired_at IS NULL RETURNING id, name",
        current.id);
    for (const auto& r : retired) {
      const std::string node_id = r[0].as<std::string>();
      tx.exec_params(
          "UPDATE components SET valid_to = now() WHERE node_id = $1::uuid AND valid_to IS NULL",
          node_id);
      tx.exec_params(
          "UPDATE firmware_records SET valid_to = now() WHERE node_id = $1::uuid AND valid_to IS "
          "NULL",
          node_id);
      const std::string message =
          "retired: its cloud account " + current.spec.name + " was deleted";
      append_event(tx, {node_id,
                        r[1].as<std::string>(),
                        "cloud_account_deleted",
                        Severity::info,
                        message,
                        {{"cloud_account_id", current.id}}});
    }
    nodes_retired = static_cast<int>(retired.size());
    // The sealed credentials are wiped: a deleted account can never be used again.
    tx.exec_params(
        "UPDATE cloud_accounts SET deleted_at = now(), updated_at = now(), sealed = '\\x'::bytea, "
        "  lease_owner = NULL, lease_expires = NULL WHERE id = $1::uuid",
        current.id);
    CloudAccount out = current;
    out.node_count = 0;
    return out;
  });
}

CloudAccount CloudAccountStore::request_sync(std::string_view id_or_name) {
  return transact(db_, [&](pqxx::work& tx) {
    const CloudAccount current = find_account(tx, box_, id_or_name, true, false);
    tx.exec_params("UPDATE cloud_accounts SET next_sync = now() WHERE id = $1::uuid", current.id);
    return find_account(tx, box_, current.id, false, false);
  });
}

std::vector<CloudSyncJob> CloudAccountStore::claim(const std::string& owner, int limit,
                                                   std::chrono::seconds lease) {
  return transact(db_, [&](pqxx::work& tx) {
    const auto rows = tx.exec_params(
        "UPDATE cloud_accounts a SET lease_owner = $1, "
        "       lease_expires = now() + make_interval(secs => $3), last_sync_started = now() "
        "  FROM (SELECT id FROM cloud_accounts WHERE deleted_at IS NULL AND next_sync <= now() "
        "          AND (lease_expires IS NULL OR lease_expires < now()) "
        "        ORDER BY next_sync LIMIT $2 FOR UPDATE SKIP LOCKED) due "
        " WHERE a.id = due.id RETURNING " +
            std::string(account_columns),
        owner, limit, static_cast<double>(lease.count()));
    std::vector<CloudSyncJob> jobs;
    for (const auto& r : rows) {
      CloudAccount account;
      try {
        account = account_from_row(box_, r, true);
      } catch (const Error& e) {
        // One account whose credentials do not open must not stop the others' syncs.
        tx.exec_params(
            "UPDATE cloud_accounts SET last_error = 'credentials_unreadable', "
            "  last_error_message = $2, lease_owner = NULL, lease_expires = NULL, "
            "  next_sync = now() + make_interval(secs => sync_interval_s) WHERE id = $1::uuid",
            r[0].as<std::string>(), std::string(e.what()));
        continue;
      }
      CloudSyncJob job;
      job.failures = account.sync_failures;
      job.interval_s = account.spec.sync_interval_s;
      job.target = target_of(account);
      jobs.push_back(std::move(job));
    }
    return jobs;
  });
}

CloudNodeTarget CloudAccountStore::node_target(std::string_view node_id_or_name) {
  return transact(db_, [&](pqxx::work& tx) {
    const std::string where = is_uuid(node_id_or_name) ? "id = $1::uuid" : "name = $1";
    const auto r = tx.exec_params(
        "SELECT id, name, source, cloud_account_id, provider_id FROM nodes WHERE retired_at IS "
        "NULL AND " +
            where,
        std::string(node_id_or_name));
    if (r.empty())
      throw not_found("no node in service has the id or name \"" +
                      std::string(node_id_or_name.substr(0, 100)) + "\"");
    if (r[0][3].is_null() || r[0][4].is_null())
      throw unprocessable("node " + r[0][1].as<std::string>() +
                          " is not a cloud instance (it has no cloud account)");
    CloudNodeTarget out;
    out.node_id = r[0][0].as<std::string>();
    out.node_name = r[0][1].as<std::string>();
    out.provider_id = r[0][4].as<std::string>();
    out.account = target_of(find_account(tx, box_, r[0][3].as<std::string>(), false, true));
    return out;
  });
}

}  // namespace ironhold::db
