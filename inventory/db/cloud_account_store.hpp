#pragma once
// Cloud accounts in PostgreSQL: enrollment with sealed credentials, lookup, update, deletion (which
// retires the account's nodes and keeps their history), the sync schedule (leased like the poll
// schedule, so several instances share the accounts), and the recording of a sync: every instance
// a node, terminated or vanished instances retired, a failing account's nodes unreachable.
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/crypto/secret_box.hpp"
#include "inventory/db/database.hpp"
#include "inventory/drivers/cloud_driver.hpp"
#include "inventory/model/access.hpp"
#include "inventory/model/cloud_account.hpp"

namespace ironhold::db {

struct CloudSyncJob {
  CloudAccountTarget target;
  int failures = 0;  // consecutive failed syncs before this one
  int interval_s = 300;
};

// What one recorded sync changed.
struct CloudSyncSummary {
  int instances = 0;      // listed, terminated ones included
  int created = 0;        // nodes enrolled for new instances
  int retired = 0;        // nodes retired (terminated, or no longer listed)
  bool recorded = false;  // false when the account was deleted (or re-leased) meanwhile
};

// A cloud node and the account it belongs to, opened for an action.
struct CloudNodeTarget {
  CloudAccountTarget account;
  std::string node_id, node_name, provider_id;
};

class CloudAccountStore {
 public:
  CloudAccountStore(Database& db, const crypto::SecretBox& box) : db_(db), box_(box) {}

  // Throws Error(conflict) when an account in service already has the name.
  CloudAccount create(const CloudAccountSpec& spec);
  // By id or by name; deleted accounts are not found.
  CloudAccount get(std::string_view id_or_name);
  // The accounts of the projects in `scope` (nullopt: every project).
  std::vector<CloudAccount> list(const ProjectScope& scope = std::nullopt);
  // Applies a validated PATCH body; new credentials are sealed, and the sync is due at once.
  CloudAccount update(std::string_view id_or_name, const nlohmann::json& patch,
                      bool& credentials_changed);
  // Marks the account deleted and retires its nodes (their history stays). Returns the account
  // as it was, and how many nodes were retired.
  CloudAccount remove(std::string_view id_or_name, int& nodes_retired);
  // Makes the account's sync due now (POST …/sync, and after every action on the account).
  CloudAccount request_sync(std::string_view id_or_name);

  // Leases up to `limit` accounts whose sync is due, most overdue first.
  std::vector<CloudSyncJob> claim(const std::string& owner, int limit, std::chrono::seconds lease);
  // Records a sync's listing (or its failure) and releases the lease; due again after the
  // account's interval, sooner after a failure, after `recheck` while an instance is between
  // states (an action is under way: its outcome shows soon), and at once when a sync was
  // requested meanwhile.
  CloudSyncSummary record_sync(const CloudSyncJob& job, const std::string& owner,
                               const InstanceListing& listing, std::chrono::milliseconds took,
                               std::chrono::milliseconds recheck = std::chrono::seconds(10));

  // The account and instance behind a cloud node in service, credentials opened. Throws
  // not_found for an unknown node and unprocessable for a node that is not a cloud instance.
  CloudNodeTarget node_target(std::string_view node_id_or_name);

 private:
  Database& db_;
  const crypto::SecretBox& box_;
};

}  // namespace ironhold::db
