// Recording one cloud account sync: every instance the provider listed becomes (or updates) a node
// with source=cloud, its hardware, GPUs and image recorded as history like an inspection of an
// owned server; a terminated instance, or one the provider no longer lists, retires its node (never
// deletes it). A failed listing changes no instance: the account carries the error and its nodes
// become unreachable.
#include <set>

#include "inventory/db/cloud_account_store.hpp"
#include "inventory/db/db_json.hpp"
#include "inventory/db/node_rows.hpp"
#include "inventory/db/poll_record.hpp"
#include "inventory/db/savepoint.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"
#include "inventory/model/node.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::db {
namespace {

using nlohmann::json;

// A failing account is tried again sooner than its interval, backing off: 30 s, 1, 2, 4 min, ...
constexpr int kFirstRetryS = 30;

struct CloudNodeRow {
  PolledNode node;
  std::vector<std::string> provider_tag_keys;  // the tags the last sync set (to drop stale ones)
};

std::string provider_label(const std::string& provider) {
  if (provider == "ec2") return "Amazon EC2";
  if (provider == "bcc") return "Baidu AI Cloud BCC";
  if (provider == "openstack") return "OpenStack";
  return provider;
}

// Node names follow the API's rule ([A-Za-z0-9][A-Za-z0-9._-]{0,62}); provider names may not.
std::string clean_name(std::string_view text) {
  std::string out;
  for (char c : text) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    if (out.empty() && !std::isalnum(static_cast<unsigned char>(c))) continue;
    out += ok ? c : '-';
  }
  if (out.size() > 63) out.resize(63);
  return out;
}

// The names to try for a new instance's node, best first: its own name, then its name with the
// end of the instance id, then the account's name with the instance id (always valid, and unique
// for the account).
std::vector<std::string> name_candidates(const CloudInstance& instance,
                                         const std::string& account_name) {
  std::vector<std::string> out;
  const std::string name = clean_name(instance.name);
  const std::string id = clean_name(instance.provider_id);
  const std::string tail = id.size() > 8 ? id.substr(id.size() - 8) : id;
  if (!name.empty() && !is_uuid(name)) {
    out.push_back(name);
    std::string with_id =
        name.substr(0, 63 - std::min<std::size_t>(63, tail.size() + 1)) + "-" + tail;
    out.push_back(clean_name(with_id));
  }
  out.push_back(clean_name(account_name + "-" + id));
  return out;
}

json identity_of(const CloudAccountTarget& account, const CloudInstance& instance) {
  auto opt = [](const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); };
  json keys = json::array();
  for (const auto& [k, v] : instance.tags.items()) keys.push_back(k);
  return {{"provider", account.provider},
          {"cloud_account", account.account_name},
          {"region", account.region},
          {"zone", opt(instance.zone)},
          {"instance_type", opt(instance.instance_type)},
          {"image_id", opt(instance.image_id)},
          {"launched_at", opt(instance.launched_at)},
          {"provider_state", instance.provider_state},
          {"status_detail", opt(instance.status_detail)},
          {"details", instance.details},
          {"provider_tag_keys", std::move(keys)}};
}

std::map<std::string, CloudNodeRow> lock_account_nodes(pqxx::work& tx,
                                                       const std::string& account_id) {
  std::map<std::string, CloudNodeRow> out;
  for (const auto& r : tx.exec_params(
           "SELECT id, name, health, power_state, reachable, last_error, provider_id, "
           "       coalesce(identity -> 'provider_tag_keys', '[]')::text "
           "  FROM nodes WHERE cloud_account_id = $1::uuid AND retired_at IS NULL FOR UPDATE",
           account_id)) {
    CloudNodeRow row;
    row.node.id = r[0].as<std::string>();
    row.node.name = r[1].as<std::string>();
    row.node.health = r[2].as<std::string>();
    row.node.power_state = r[3].as<std::string>();
    if (!r[4].is_null()) row.node.reachable = r[4].as<bool>();
    if (!r[5].is_null()) row.node.last_error = r[5].as<std::string>();
    const auto keys = json::parse(r[7].c_str(), nullptr, false);
    if (keys.is_array())
      for (const auto& k : keys)
        if (k.is_string()) row.provider_tag_keys.push_back(k.get<std::string>());
    out.emplace(r[6].as<std::string>(), std::move(row));
  }
  return out;
}

void retire_cloud_node(pqxx::transaction_base& tx, const PolledNode& node, const std::string& kind,
                       const std::string& message) {
  tx.exec_params(
      "UPDATE nodes SET lifecycle = 'retired', retired_at = now(), updated_at = now() "
      " WHERE id = $1::uuid",
      node.id);
  tx.exec_params(
      "UPDATE components SET valid_to = now() WHERE node_id = $1::uuid AND valid_to IS NULL",
      node.id);
  tx.exec_params(
      "UPDATE firmware_records SET valid_to = now() WHERE node_id = $1::uuid AND valid_to IS NULL",
      node.id);
  add_event(tx, node, kind, Severity::info, message);
}

// Enrolls the node of a new instance; nullopt when every candidate name is taken.
std::optional<PolledNode> enroll_instance(pqxx::transaction_base& tx,
                                          const CloudAccountTarget& account,
                                          const CloudInstance& instance) {
  for (const auto& name : name_candidates(instance, account.account_name)) {
    const auto r = tx.exec_params(
        "INSERT INTO nodes (name, source, driver, provider_id, cloud_account_id, site, rack, "
        "  tags, lifecycle, reachable, last_seen, project) "
        "VALUES ($1, 'cloud', $2, $3, $4::uuid, nullif($5, ''), $6, $7::jsonb, 'deployed', true, "
        "        now(), (SELECT a.project FROM cloud_accounts a WHERE a.id = $4::uuid)) "
        "ON CONFLICT DO NOTHING RETURNING id, name",
        name, account.provider, db_text(instance.provider_id), account.account_id, account.region,
        nullable(instance.zone), db_json(instance.tags));
    if (r.empty()) continue;
    PolledNode node;
    node.id = r[0][0].as<std::string>();
    node.name = r[0][1].as<std::string>();
    node.health = "unknown";
    node.power_state = "unknown";
    node.reachable = true;
    add_event(tx, node, "cloud_instance_added", Severity::info,
              "instance " + instance.provider_id + " of cloud account " + account.account_name +
                  " enrolled",
              {{"provider_id", instance.provider_id}, {"cloud_account_id", account.account_id}});
    return node;
  }
  return std::nullopt;
}

// Writes what the provider said about an instance onto its node, the way an inspection of an
// owned server is written (identity, hardware summary, components and the image as history).
void record_instance(pqxx::transaction_base& tx, const CloudAccountTarget& account,
                     CloudNodeRow& row, const CloudInstance& instance) {
  if (row.node.last_error || row.node.reachable == false)
    add_event(tx, row.node, "recovered", Severity::info,
              "cloud account " + account.account_name + " answers again" +
                  (row.node.last_error ? " (was: " + *row.node.last_error + ")" : ""));
  json stale_keys = json::array();
  for (const auto& k : row.provider_tag_keys)
    if (!instance.tags.contains(k)) stale_keys.push_back(k);
  tx.exec_params(
      "UPDATE nodes SET reachable = true, last_error = NULL, last_error_message = NULL, "
      "  last_seen = now(), site = nullif($2, ''), rack = $3, "
      "  tags = (tags - ARRAY(SELECT jsonb_array_elements_text($4::jsonb))) || $5::jsonb, "
      "  lifecycle = CASE WHEN lifecycle = 'enrolled' THEN 'deployed' ELSE lifecycle END "
      " WHERE id = $1::uuid",
      row.node.id, account.region, nullable(instance.zone), db_json(stale_keys),
      db_json(instance.tags));

  PolledFamily family;
  family.parent = row.node;
  family.inspected_before = true;
  SystemInventory system;
  system.system_id = instance.provider_id;
  system.identity.manufacturer = provider_label(account.provider);
  system.identity.model = instance.instance_type;
  system.status = {instance.provider_id, instance.power_state, instance.health};
  system.summary = instance.summary;
  system.components = instance.components;
  if (instance.image_id)
    system.firmware.push_back({"image", "Image", *instance.image_id, true, {}});
  InspectionReport report;
  report.systems.push_back(std::move(system));
  record_inventory(tx, family, report);
  tx.exec_params("UPDATE nodes SET identity = $2::jsonb WHERE id = $1::uuid", row.node.id,
                 db_json(identity_of(account, instance)));
}

void record_failure(pqxx::transaction_base& tx, const CloudAccountTarget& account,
                    std::map<std::string, CloudNodeRow>& nodes, const DriverError& error) {
  const std::string code(to_string(error.code));
  const std::string message = "cloud account " + account.account_name + ": " + error.message;
  for (auto& [provider_id, row] : nodes) {
    if (row.node.last_error != code)
      add_event(tx, row.node, code, Severity::warning, message,
                {{"cloud_account_id", account.account_id}});
    tx.exec_params(
        "UPDATE nodes SET reachable = false, last_error = $2, last_error_message = $3 "
        " WHERE id = $1::uuid",
        row.node.id, code, db_text(message));
  }
}

}  // namespace

CloudSyncSummary CloudAccountStore::record_sync(const CloudSyncJob& job, const std::string& owner,
                                                const InstanceListing& listing,
                                                std::chrono::milliseconds took,
                                                std::chrono::milliseconds recheck) {
  const CloudAccountTarget& account = job.target;
  return transact(db_, [&](pqxx::work& tx) {
    CloudSyncSummary summary;
    const auto held = tx.exec_params(
        "SELECT 1 FROM cloud_accounts WHERE id = $1::uuid AND deleted_at IS NULL "
        "   AND lease_owner = $2 FOR UPDATE",
        account.account_id, owner);
    if (held.empty()) return summary;  // deleted, or our lease ran out and another took it
    auto nodes = lock_account_nodes(tx, account.account_id);
    const double ms = static_cast<double>(took.count());

    if (listing.error) {
      record_failure(tx, account, nodes, *listing.error);
      tx.exec_params(
          "UPDATE cloud_accounts SET last_error = $2, last_error_message = $3, "
          "  sync_failures = sync_failures + 1, last_sync_duration_ms = $4, "
          "  lease_owner = NULL, lease_expires = NULL, "
          "  next_sync = CASE WHEN next_sync > last_sync_started THEN next_sync "
          "    ELSE now() + make_interval(secs => least(sync_interval_s, $5 * power(2, "
          "      least(sync_failures, 10)))) END "
          " WHERE id = $1::uuid",
          account.account_id, std::string(to_string(listing.error->code)),
          db_text(listing.error->message), ms, static_cast<double>(kFirstRetryS));
      summary.recorded = true;
      return summary;
    }

    std::set<std::string> seen;
    bool transitioning = false;
    for (const auto& instance : listing.instances) {
      if (!instance.gone && instance.power_state == PowerState::transitioning) transitioning = true;
      if (instance.provider_id.empty() || !seen.insert(instance.provider_id).second) continue;
      ++summary.instances;
      auto it = nodes.find(instance.provider_id);
      if (instance.gone) {
        if (it != nodes.end()) {
          retire_cloud_node(tx, it->second.node, "cloud_instance_terminated",
                            "instance " + instance.provider_id + " is " + instance.provider_state +
                                "; node retired, its history kept");
          ++summary.retired;
        }
        continue;
      }
      // An instance the database refuses (a provider value it cannot store) must not lose the
      // rest of the listing.
      try {
        Savepoint one(tx, "cloud_instance");
        if (it == nodes.end()) {
          auto node = enroll_instance(tx, account, instance);
          if (!node) {
            log::warn("cloud instance not enrolled: every candidate name is taken",
                      {{"account", account.account_name}, {"instance", instance.provider_id}});
            one.release();
            continue;
          }
          ++summary.created;
          it = nodes.emplace(instance.provider_id, CloudNodeRow{*node, {}}).first;
        }
        record_instance(tx, account, it->second, instance);
        one.release();
      } catch (const pqxx::sql_error& e) {
        log::warn("could not record a cloud instance; the others are kept",
                  {{"account", account.account_name},
                   {"instance", instance.provider_id},
                   {"error", e.what()}});
      }
    }
    for (const auto& [provider_id, row] : nodes) {
      if (seen.count(provider_id)) continue;
      retire_cloud_node(tx, row.node, "cloud_instance_gone",
                        "instance " + provider_id +
                            " is no longer listed by the provider; node retired, its history kept");
      ++summary.retired;
    }
    tx.exec_params(
        "UPDATE cloud_accounts SET last_error = NULL, last_error_message = NULL, sync_failures = "
        "0, "
        "  last_sync_at = now(), last_sync_duration_ms = $2, lease_owner = NULL, "
        "  lease_expires = NULL, "
        "  next_sync = CASE WHEN next_sync > last_sync_started THEN next_sync "
        "    WHEN $3 THEN now() + make_interval(secs => least(sync_interval_s::float8, "
        "$4::float8)) "
        "    ELSE now() + make_interval(secs => sync_interval_s) END "
        " WHERE id = $1::uuid",
        account.account_id, ms, transitioning, static_cast<double>(recheck.count()) / 1000.0);
    summary.recorded = true;
    return summary;
  });
}

}  // namespace ironhold::db
