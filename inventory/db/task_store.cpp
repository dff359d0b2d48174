#include "inventory/db/task_store.hpp"

#include <openssl/crypto.h>

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/audit_append.hpp"
#include "inventory/db/bmc_target_columns.hpp"
#include "inventory/db/db_json.hpp"
#include "inventory/db/event_append.hpp"
#include "inventory/db/node_query_sql.hpp"
#include "inventory/db/node_rows.hpp"
#include "inventory/db/node_secrets.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/db/savepoint.hpp"
#include "inventory/db/task_insert.hpp"
#include "inventory/db/task_rows.hpp"
#include "inventory/db/task_step_audit.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"
#include "inventory/model/pxe_image.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::db {
namespace {

using nlohmann::json;

// The advisory lock claimers take turns on ("IRNHTASK" as a number): one value for the whole
// database, outside any range another lock of ours uses.
constexpr long long kClaimLock = 0x49524E485441534BLL;

// The most nodes one bulk action may take.
constexpr int kMaxBulk = 10000;

// Idempotency-Key records live this long; after that the key may be used afresh.
constexpr const char* kKeyLifetime = "interval '24 hours'";

struct TargetNode {
  std::string id, name;
  Source source = Source::bmc;
  bool maintenance = false;
  Lifecycle lifecycle = Lifecycle::enrolled;
  std::string driver;                // "redfish", "ipmi", "openstack", ...
  std::optional<std::string> model;  // the server model its inventory reports
};

// The node in service a request names (by id or by name).
TargetNode resolve_node(pqxx::work& tx, const std::string& id_or_name) {
  const bool by_id = is_uuid(id_or_name);
  const auto rows = tx.exec_params(
      by_id ? "SELECT id, name, source, maintenance, retired_at IS NOT NULL, lifecycle, driver, "
              "       model FROM nodes WHERE id = $1::uuid FOR UPDATE"
            : "SELECT id, name, source, maintenance, retired_at IS NOT NULL, lifecycle, driver, "
              "       model FROM nodes "
              "WHERE name = $1 ORDER BY retired_at IS NULL DESC, retired_at DESC LIMIT 1",
      id_or_name);
  if (rows.empty()) throw not_found("no node \"" + id_or_name + "\"");
  const auto& r = rows[0];
  if (r[4].as<bool>())
    throw conflict("node \"" + r[1].as<std::string>() + "\" is retired; it takes no actions");
  TargetNode node;
  node.id = r[0].as<std::string>();
  node.name = r[1].as<std::string>();
  node.source = parse_enum<Source>(r[2].c_str()).value_or(Source::bmc);
  node.maintenance = r[3].as<bool>();
  node.lifecycle = parse_enum<Lifecycle>(r[5].c_str()).value_or(Lifecycle::enrolled);
  node.driver = r[6].as<std::string>();
  if (!r[7].is_null()) node.model = r[7].as<std::string>();
  return node;
}

void check_action_fits(const NewTask& task, const TargetNode& node) {
  if (node.source == Source::cloud &&
      (task.kind == TaskKind::boot || task.kind == TaskKind::identify))
    throw unprocessable("node \"" + node.name + "\" is a cloud instance: it has no " +
                        (task.kind == TaskKind::boot ? "boot device setting" : "identify LED"));
  if (task.kind == TaskKind::reprovision) {
    if (node.lifecycle != Lifecycle::deployed && node.lifecycle != Lifecycle::available &&
        node.lifecycle != Lifecycle::provision_failed)
      throw conflict("cannot reprovision node \"" + node.name + "\" while it is " +
                         std::string(to_string(node.lifecycle)) +
                         "; it must be available, deployed or provision_failed",
                     "action");
  }
  if (task.kind == TaskKind::firmware) {
    if (node.source == Source::cloud)
      throw unprocessable("node \"" + node.name +
                          "\" is a cloud instance: its firmware is its provider's to update");
    if (node.driver != "redfish")
      throw unprocessable("node \"" + node.name + "\" is managed over " + node.driver +
                          ", which has no standard firmware update: Ironhold updates firmware "
                          "through Redfish UpdateService only");
    if (node.lifecycle == Lifecycle::provisioning || node.lifecycle == Lifecycle::cleaning)
      throw conflict("cannot update the firmware of node \"" + node.name + "\" while it is " +
                     std::string(to_string(node.lifecycle)));
  }
  if (task.kind == TaskKind::bios) {
    if (node.source == Source::cloud)
      throw unprocessable("node \"" + node.name +
                          "\" is a cloud instance: its BIOS is its provider's to set");
    if (node.driver != "redfish")
      throw unprocessable("node \"" + node.name + "\" is managed over " + node.driver +
                          ", which has no standard way to set BIOS attributes: Ironhold sets "
                          "them through Redfish Bios settings only");
    if (node.lifecycle == Lifecycle::provisioning || node.lifecycle == Lifecycle::cleaning)
      throw conflict("cannot change the BIOS of node \"" + node.name + "\" while it is " +
                     std::string(to_string(node.lifecycle)));
  }
  if (task.kind == TaskKind::credentials) {
    if (node.source == Source::cloud)
      throw unprocessable("node \"" + node.name +
                          "\" is a cloud instance: it has no BMC account of Ironhold's");
    if (node.driver != "redfish" && node.driver != "ipmi")
      throw unprocessable("node \"" + node.name + "\" is managed over " + node.driver +
                          ", whose BMC accounts Ironhold cannot change");
  }
  if (task.automatic && node.maintenance)
    throw conflict("node \"" + node.name +
                   "\" is in maintenance: it takes no automatic actions (an operator's own "
                   "actions still run)");
}

// The parameters an owned server's reprovision runs with: its image is the one asked for, else
// the one its last reprovision the same way used. Over PXE it must be a URL iPXE can boot; over
// virtual media, a boot image this service keeps (the task gets its name, size and SHA-256), and
// the node's BMC must speak Redfish.
TaskParameters owned_reprovision_parameters(pqxx::work& tx, const NewTask& task,
                                            const TargetNode& node,
                                            const std::optional<std::string>& refused) {
  TaskParameters out = task.parameters;
  json& p = out.parameters;
  const std::string via = p.value("via", std::string("pxe"));
  p["via"] = via;
  const bool media = via == "virtual-media";
  if (media && node.driver != "redfish")
    throw unprocessable("node \"" + node.name + "\" has a" +
                            (node.driver == "ipmi" ? "n IPMI" : " " + node.driver) +
                            " BMC: virtual media needs Redfish (VirtualMedia.InsertMedia); "
                            "reprovision it over PXE",
                        "via");
  if (refused) throw unprocessable("cannot reprovision node \"" + node.name + "\": " + *refused);
  if (!p.contains("image")) {
    const auto rows = tx.exec_params(
        "SELECT parameters ->> 'image' FROM tasks "
        " WHERE node_id = $1::uuid AND kind = 'reprovision' AND parameters ? 'image' "
        "   AND coalesce(parameters ->> 'via', 'pxe') = $2 "
        " ORDER BY created_at DESC LIMIT 1",
        node.id, via);
    if (rows.empty())
      throw unprocessable("node \"" + node.name + "\" has never been reprovisioned over " + via +
                              " by Ironhold: name its image (" +
                              (media ? std::string("the id of a boot image")
                                     : std::string("the URL of an installer iPXE script or "
                                                   "netboot directory")) +
                              ")",
                          "image");
    p["image"] = rows[0][0].as<std::string>();
  }
  if (media) {
    const std::string image = p["image"].get<std::string>();
    const auto rows = is_uuid(image)
                          ? tx.exec_params(
                                "SELECT name, sha256, size FROM firmware_images "
                                " WHERE id = $1::uuid AND state = 'ready' AND kind = 'boot'",
                                image)
                          : pqxx::result();
    if (rows.empty())
      throw unprocessable("there is no boot image \"" + image +
                              "\" (GET /api/v1/boot-images lists them; upload an ISO with POST "
                              "/api/v1/boot-images)",
                          "image");
    p["image_name"] = rows[0][0].as<std::string>();
    p["sha256"] = rows[0][1].as<std::string>();
    p["size"] = rows[0][2].as<long long>();
  } else if (const auto problem = pxe_image_problem(p["image"].get<std::string>())) {
    throw unprocessable("cannot reprovision node \"" + node.name + "\": " + *problem, "image");
  }
  if (!out.secrets.empty())
    throw unprocessable("node \"" + node.name +
                            "\" is an owned server: its installer sets its passwords, "
                            "\"admin_password\" is for cloud instances",
                        "admin_password");
  return out;
}

// A firmware update's parameters with what its image is, so that the task (and its audit
// entry) says which component goes to which version; the image must be ready and for the node's
// model when it names one.
TaskParameters firmware_parameters(pqxx::work& tx, const NewTask& task, const TargetNode& node) {
  TaskParameters out = task.parameters;
  json& p = out.parameters;
  const auto rows = tx.exec_params(
      "SELECT name, version, component, model, sha256, size FROM firmware_images "
      " WHERE id = $1::uuid AND state = 'ready' AND kind = 'firmware'",
      p.value("image", std::string()));
  if (rows.empty())
    throw unprocessable("there is no firmware image " + p.value("image", std::string()) +
                            " (GET /api/v1/firmware/images lists them)",
                        "image");
  const auto& r = rows[0];
  if (!r[3].is_null() && node.model && r[3].as<std::string>() != *node.model)
    throw unprocessable("firmware image " + r[0].as<std::string>() + " is for model " +
                            r[3].as<std::string>() + ", and node \"" + node.name + "\" is a " +
                            *node.model,
                        "image");
  p["image_name"] = r[0].as<std::string>();
  p["version"] = r[1].as<std::string>();
  p["component"] = r[2].as<std::string>();
  p["sha256"] = r[4].as<std::string>();
  p["size"] = r[5].as<long long>();
  return out;
}

// A BIOS task's parameters with its model's baseline merged in (when asked), checked against the
// BIOS the last inspection recorded: attributes it lacks, values of another type, an apply time
// it does not list, or a BMC that names no settings object are refused before anything is sent.
TaskParameters bios_parameters(pqxx::work& tx, const NewTask& task, const TargetNode& node) {
  TaskParameters out = task.parameters;
  json& p = out.parameters;
  if (p.value("from_baseline", false)) {
    if (!node.model)
      throw unprocessable("node \"" + node.name +
                              "\" has no model in its inventory yet, so it has no BIOS baseline",
                          "from_baseline");
    const auto rows =
        tx.exec_params("SELECT attributes::text FROM bios_baselines WHERE model = $1", *node.model);
    if (rows.empty())
      throw unprocessable("there is no BIOS baseline for model \"" + *node.model +
                              "\" (PUT /api/v1/bios/baselines/{model} sets one)",
                          "from_baseline");
    json attributes = json::parse(rows[0][0].c_str());
    if (p.contains("attributes"))
      for (const auto& [name, value] : p["attributes"].items()) attributes[name] = value;
    p["attributes"] = std::move(attributes);
    p["baseline_model"] = *node.model;
  }
  const auto recorded = tx.exec_params(
      "SELECT attributes::text, apply_times::text, settable FROM bios_records "
      " WHERE node_id = $1::uuid AND valid_to IS NULL",
      node.id);
  if (recorded.empty()) return out;  // never read: the task's own read decides
  const json current = json::parse(recorded[0][0].c_str());
  const json apply_times = json::parse(recorded[0][1].c_str());
  if (p.contains("attributes")) {
    if (!recorded[0][2].as<bool>())
      throw unprocessable("the BMC of node \"" + node.name +
                          "\" names no settings object for its BIOS (@Redfish.Settings), so its "
                          "attributes cannot be written");
    const auto problems = bios_change_problems(current, p["attributes"]);
    if (!problems.empty()) {
      std::string text;
      for (const auto& problem : problems) text += (text.empty() ? "" : "; ") + problem;
      throw unprocessable("node \"" + node.name + "\": " + text, "attributes");
    }
  }
  const std::string apply_time = p.value("apply_time", std::string("OnReset"));
  if (apply_times.is_array() && !apply_times.empty() &&
      std::find(apply_times.begin(), apply_times.end(), json(apply_time)) == apply_times.end())
    throw unprocessable("the BMC of node \"" + node.name + "\" applies BIOS settings only " +
                            apply_times.dump() + ", not " + apply_time,
                        "apply_time");
  return out;
}

// A password of `length` characters from letters, digits and "-_.!+=", with one of each kind at
// least: what BMCs' complexity rules ask for, and nothing a shell, a URL or JSON would mangle.
std::string generated_password(int length) {
  static constexpr std::string_view kinds[] = {"ABCDEFGHJKLMNPQRSTUVWXYZ",
                                               "abcdefghijkmnopqrstuvwxyz", "23456789", "-_.!+="};
  std::string all;
  for (auto k : kinds) all += k;
  std::vector<std::uint8_t> random(static_cast<std::size_t>(length) * 2);
  for (;;) {
    crypto::random_bytes(random);
    std::string out;
    // Rejection sampling keeps every character equally likely.
    const std::size_t limit = 256 - 256 % all.size();
    for (const std::uint8_t r : random)
      if (r < limit && out.size() < static_cast<std::size_t>(length)) out += all[r % all.size()];
    if (out.size() < static_cast<std::size_t>(length)) continue;
    bool every_kind = true;
    for (auto k : kinds) every_kind = every_kind && out.find_first_of(k) != std::string::npos;
    OPENSSL_cleanse(random.data(), random.size());
    if (every_kind) return out;
    OPENSSL_cleanse(out.data(), out.size());
  }
}

// A credentials task's new password: the one given, else one made for this node (16 characters
// for IPMI, at most what its driver sets there; 20 elsewhere). One rotation of a node at a time.
TaskParameters credentials_parameters(pqxx::work& tx, const NewTask& task, const TargetNode& node) {
  TaskParameters out = task.parameters;
  json& p = out.parameters;
  const auto row = tx.exec_params(
      "SELECT n.credentials_set, p.name FROM nodes n LEFT JOIN nodes p ON p.id = n.parent_id "
      " WHERE n.id = $1::uuid",
      node.id);
  if (!row.empty() && !row[0][1].is_null())
    throw unprocessable("node \"" + node.name + "\" is a System behind the BMC of node \"" +
                        row[0][1].as<std::string>() + "\": rotate that node's credentials");
  if (row.empty() || !row[0][0].as<bool>())
    throw unprocessable("node \"" + node.name +
                        "\" has no BMC credentials: there is no password of Ironhold's to rotate");
  const auto running = tx.exec_params(
      "SELECT id FROM tasks WHERE node_id = $1::uuid AND kind = 'credentials' "
      "   AND state IN ('queued', 'running') LIMIT 1",
      node.id);
  if (!running.empty())
    throw conflict("node \"" + node.name + "\" has a credential rotation under way (task " +
                   running[0][0].as<std::string>() + ")");
  const int max = node.driver == "ipmi" ? 16 : 64;
  const char* too_long =
      "IPMI passwords set by Ironhold have at most 16 characters (a BMC may take the 20-byte form "
      "and then let no one in)";
  if (out.secrets.contains("new_password")) {
    if (out.secrets["new_password"].get<std::string>().size() > static_cast<std::size_t>(max))
      throw unprocessable(too_long, "password");
    return out;
  }
  const int length = p.value("length", node.driver == "ipmi" ? 16 : 20);
  if (length > max) throw unprocessable(too_long, "length");
  p["length"] = length;
  out.secrets["new_password"] = generated_password(length);
  return out;
}

// The task as it will be stored for `node` (owned servers' reprovisions get their image, firmware
// updates what their image is).
NewTask task_for_node(pqxx::work& tx, const NewTask& request, const TargetNode& node,
                      const Refusals& refused) {
  NewTask task = request;
  if (request.kind == TaskKind::reprovision && node.source != Source::cloud)
    task.parameters = owned_reprovision_parameters(tx, request, node, refused.reprovisioning);
  if (request.kind == TaskKind::reprovision && node.source == Source::cloud &&
      request.parameters.parameters.contains("via"))
    throw unprocessable("node \"" + node.name +
                            "\" is a cloud instance: its provider rebuilds it, \"via\" is for "
                            "owned servers",
                        "via");
  if (request.kind == TaskKind::firmware) task.parameters = firmware_parameters(tx, request, node);
  if (request.kind == TaskKind::bios) task.parameters = bios_parameters(tx, request, node);
  if (request.kind == TaskKind::credentials)
    task.parameters = credentials_parameters(tx, request, node);
  return task;
}

// A uuid[] literal; the ids come from the database, so they need no quoting.
std::string uuid_array(const std::vector<std::string>& ids) {
  std::string out = "{";
  for (const auto& id : ids) {
    if (out.size() > 1) out += ',';
    out += id;
  }
  out += '}';
  return out;
}

std::vector<Task> tasks_by_ids(pqxx::work& tx, const std::vector<std::string>& ids) {
  std::vector<Task> out;
  for (const auto& id : ids) {
    const auto rows = tx.exec_params(task_by_id_sql(), id);
    if (!rows.empty()) out.push_back(task_from_row(rows[0]));
  }
  return out;
}

// Inserts the key's record, or finds the earlier one: its task ids when the request is the same.
std::optional<CreatedTasks> claim_key(pqxx::work& tx, const IdempotencyKey& key) {
  if (claim_idempotency_key(tx, key)) return std::nullopt;
  const auto earlier = tx.exec_params1(
      "SELECT array_to_json(task_ids)::text, bulk_id FROM idempotency_keys "
      "WHERE token_id = $1 AND key = $2",
      key.token_id, key.key);
  std::vector<std::string> ids;
  for (const auto& id : json::parse(earlier[0].c_str())) ids.push_back(id.get<std::string>());
  CreatedTasks replay;
  replay.tasks = tasks_by_ids(tx, ids);
  if (!earlier[1].is_null()) replay.bulk_id = earlier[1].as<std::string>();
  replay.replayed = true;
  return replay;
}

void remember_key(pqxx::work& tx, const IdempotencyKey& key, const std::vector<std::string>& ids,
                  const std::optional<std::string>& bulk_id) {
  tx.exec_params(
      "UPDATE idempotency_keys SET task_ids = $3::uuid[], bulk_id = $4::uuid "
      "WHERE token_id = $1 AND key = $2",
      key.token_id, key.key, uuid_array(ids), nullable(bulk_id));
}

// A reprovision moves the node to provisioning the moment its task exists; the task's end
// moves it on (TaskStore::finish).
void start_provisioning(pqxx::work& tx, const TargetNode& node, const std::string& task_id) {
  tx.exec_params(
      "UPDATE nodes SET lifecycle = 'provisioning', updated_at = now() WHERE id = $1::uuid",
      node.id);
  const std::string message = std::string(to_string(node.lifecycle)) + " -> provisioning";
  append_event(
      tx, {node.id,
           node.name,
           "lifecycle",
           Severity::info,
           message,
           {{"from", to_string(node.lifecycle)}, {"to", "provisioning"}, {"task_id", task_id}}});
}

json open_task_secrets(const crypto::SecretBox& box, const std::string& task_id,
                       const char* sealed_hex) {
  std::vector<std::uint8_t> sealed;
  if (!crypto::from_hex(sealed_hex, sealed))
    throw Error(ErrorKind::internal, "the sealed parameters of task " + task_id + " are corrupt");
  std::string payload = box.open(sealed, task_id);
  json doc = json::parse(payload, nullptr, false);
  OPENSSL_cleanse(payload.data(), payload.size());
  return doc.is_object() ? doc : json::object();
}

// The node and BMC facts a claimed task needs (a System behind a shared BMC talks through its
// parent's endpoint and session).
void load_target(pqxx::work& tx, const crypto::SecretBox& box, TaskJob& job) {
  if (!job.task.node_id) return;
  const auto rows = tx.exec_params(
      "SELECT n.source, n.driver, n.retired_at IS NOT NULL, n.maintenance, n.system_id, "
      "       n.provider_id, n.cloud_account_id, b.id, b.name, b.endpoint, b.options::text, "
      "       b.tls_fingerprint, "
      "       (SELECT encode(c.sealed, 'hex') FROM node_credentials c WHERE c.node_id = b.id) "
      "  FROM nodes n JOIN nodes b ON b.id = coalesce(n.parent_id, n.id) WHERE n.id = $1::uuid",
      *job.task.node_id);
  if (rows.empty()) return;
  const auto& r = rows[0];
  job.node_exists = true;
  job.source = parse_enum<Source>(r[0].c_str()).value_or(Source::bmc);
  job.driver = r[1].as<std::string>();
  job.node_retired = r[2].as<bool>();
  job.maintenance = r[3].as<bool>();
  if (!r[4].is_null()) job.system_id = r[4].as<std::string>();
  if (!r[5].is_null()) job.provider_id = r[5].as<std::string>();
  if (!r[6].is_null()) job.cloud_account_id = r[6].as<std::string>();
  job.target.node_id = r[7].as<std::string>();
  job.target.node_name = r[8].as<std::string>();
  read_bmc_columns(job.target, r, 9, box);
  job.limiter_key = job.source == Source::cloud
                        ? "cloud:" + job.cloud_account_id.value_or(*job.task.node_id)
                        : "bmc:" + job.target.node_id;
}

std::string outcome_message(const Task& task, TaskState state,
                            const std::optional<std::string>& error) {
  std::string what = std::string(to_string(task.kind));
  if (task.parameters.contains("action") && task.parameters["action"].is_string())
    what += " " + task.parameters["action"].get<std::string>();
  std::string message = what + " " + std::string(to_string(state));
  if (error) message += ": " + *error;
  return message;
}

}  // namespace

std::vector<Node> matching_nodes(pqxx::work& tx, const NodeFilter& filter, int cap) {
  SqlParams params;
  const std::string where = node_where(filter, params);
  const std::string limit = params.add(std::to_string(cap + 1));
  const std::string sql = std::string("SELECT ") + node_columns + " FROM nodes n WHERE " + where +
                          " AND n.retired_at IS NULL ORDER BY n.name COLLATE \"C\", n.id LIMIT " +
                          limit + "::integer";
  const auto rows = tx.exec_params(sql, pqxx::prepare::make_dynamic_params(params.values));
  if (static_cast<int>(rows.size()) > cap)
    throw unprocessable("the selector matches more than " + std::to_string(cap) +
                            " nodes; narrow it (one action per rack or site)",
                        "selector");
  std::vector<Node> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back(node_from_row(r));
  return out;
}

bool claim_idempotency_key(pqxx::work& tx, const IdempotencyKey& key) {
  // A record older than the key's lifetime no longer counts.
  tx.exec_params(std::string("DELETE FROM idempotency_keys WHERE token_id = $1 AND key = $2 "
                             "AND created_at < now() - ") +
                     kKeyLifetime,
                 key.token_id, key.key);
  const auto inserted = tx.exec_params(
      "INSERT INTO idempotency_keys (token_id, key, request_hash) VALUES ($1, $2, $3) "
      "ON CONFLICT DO NOTHING RETURNING 1",
      key.token_id, key.key, key.request_hash);
  if (!inserted.empty()) return true;
  const auto earlier =
      tx.exec_params1("SELECT request_hash FROM idempotency_keys WHERE token_id = $1 AND key = $2",
                      key.token_id, key.key);
  if (earlier[0].as<std::string>() != key.request_hash)
    throw unprocessable(
        "this Idempotency-Key was already used with a different request; use a new key for a "
        "new request",
        "Idempotency-Key");
  return false;
}

std::string create_task_in(pqxx::work& tx, const crypto::SecretBox& box, const Refusals& refusals,
                           const NewTask& request) {
  const TargetNode node = resolve_node(tx, request.node);
  check_action_fits(request, node);
  const NewTask task = task_for_node(tx, request, node, refusals);
  std::string id = insert_task(tx, box, task, node.id, node.name, std::nullopt);
  if (request.kind == TaskKind::reprovision) start_provisioning(tx, node, id);
  return id;
}

CreatedTasks TaskStore::create(std::span<const NewTask> tasks,
                               const std::optional<IdempotencyKey>& key) {
  return transact(db_, [&](pqxx::work& tx) {
    if (key)
      if (auto replay = claim_key(tx, *key)) return std::move(*replay);
    std::vector<std::string> ids;
    for (const auto& request : tasks) ids.push_back(create_task_in(tx, box_, refusals_, request));
    if (key) remember_key(tx, *key, ids, std::nullopt);
    CreatedTasks created;
    created.tasks = tasks_by_ids(tx, ids);
    return created;
  });
}

std::vector<Node> TaskStore::select_nodes(const NodeFilter& filter, int cap) {
  return transact(db_, [&](pqxx::work& tx) { return matching_nodes(tx, filter, cap); });
}

CreatedTasks TaskStore::create_bulk(const NewBulk& bulk, const std::optional<IdempotencyKey>& key) {
  return transact(db_, [&](pqxx::work& tx) {
    if (key)
      if (auto replay = claim_key(tx, *key)) return std::move(*replay);
    const std::vector<Node> nodes = matching_nodes(tx, bulk.filter, kMaxBulk);
    const std::string bulk_id =
        tx.exec_params1(
              "INSERT INTO bulk_actions (action, selector, parameters, max_parallel, matched, "
              "                          requested_by) "
              "VALUES ($1, $2::jsonb, $3::jsonb, $4, $5, $6) RETURNING id",
              std::string(to_string(bulk.task.kind)), db_json(bulk.selector),
              db_json(bulk.task.parameters.parameters), bulk.max_parallel,
              static_cast<int>(nodes.size()), bulk.task.requested_by)[0]
            .as<std::string>();
    std::vector<std::string> ids;
    for (const auto& node : nodes) {
      TargetNode target{node.id,        node.name,   node.source, node.maintenance,
                        node.lifecycle, node.driver, node.model};
      check_action_fits(bulk.task, target);
      const NewTask task = task_for_node(tx, bulk.task, target, refusals_);
      ids.push_back(insert_task(tx, box_, task, node.id, node.name, bulk_id));
      if (bulk.task.kind == TaskKind::reprovision) start_provisioning(tx, target, ids.back());
    }
    if (key) remember_key(tx, *key, ids, bulk_id);
    CreatedTasks created;
    created.bulk_id = bulk_id;
    created.tasks = tasks_by_ids(tx, ids);
    return created;
  });
}

Task TaskStore::get(const std::string& id) {
  if (!is_uuid(id)) throw not_found("no task \"" + id + "\"");
  return transact(db_, [&](pqxx::work& tx) {
    const auto rows = tx.exec_params(task_by_id_sql(), id);
    if (rows.empty()) throw not_found("no task \"" + id + "\"");
    return task_from_row(rows[0]);
  });
}

TaskPage TaskStore::list(const TaskFilter& f) {
  return transact(db_, [&](pqxx::work& tx) {
    std::optional<std::string> node_id;
    if (f.node) {
      const bool by_id = is_uuid(*f.node);
      // Only among the nodes the caller may see: another project's name is unknown here.
      const auto rows =
          tx.exec_params(std::string(by_id ? "SELECT id FROM nodes WHERE id = $1::uuid"
                                           : "SELECT id FROM nodes WHERE name = $1") +
                             " AND ($2::text[] IS NULL OR project = ANY($2::text[]))",
                         *f.node, nullable(scope_array(f.scope)));
      if (rows.empty()) throw not_found("no node \"" + *f.node + "\"");
      // A name may belong to retired nodes too: their tasks are the name's history as well.
      std::vector<std::string> ids;
      for (const auto& r : rows) ids.push_back(r[0].as<std::string>());
      node_id = uuid_array(ids);
    }
    const std::optional<std::string> state =
        f.state ? std::optional<std::string>(std::string(to_string(*f.state))) : std::nullopt;
    const std::optional<std::string> kind =
        f.kind ? std::optional<std::string>(std::string(to_string(*f.kind))) : std::nullopt;
    const auto rows = tx.exec_params(
        std::string("SELECT ") + task_columns +
            " FROM tasks t"
            " WHERE ($1::uuid[] IS NULL OR t.node_id = ANY($1::uuid[]))"
            "   AND ($2::text IS NULL OR t.state = $2) AND ($3::text IS NULL OR t.kind = $3)"
            "   AND ($4::uuid IS NULL OR t.bulk_id = $4::uuid)"
            "   AND ($8::text[] IS NULL OR t.project = ANY($8::text[]))"
            "   AND ($5::timestamptz IS NULL OR (t.created_at, t.id) < ($5::timestamptz, $6::uuid))"
            " ORDER BY t.created_at DESC, t.id DESC LIMIT $7",
        nullable(node_id), nullable(state), nullable(kind), nullable(f.bulk_id),
        nullable(f.after_created_at), nullable(f.after_id), f.limit + 1,
        nullable(scope_array(f.scope)));
    TaskPage page;
    for (const auto& r : rows) {
      if (static_cast<int>(page.items.size()) == f.limit) {
        page.more = true;
        break;
      }
      page.items.push_back(task_from_row(r));
    }
    return page;
  });
}

Task TaskStore::request_cancel(const std::string& id, const std::string& actor) {
  if (!is_uuid(id)) throw not_found("no task \"" + id + "\"");
  return transact(db_, [&](pqxx::work& tx) {
    const auto rows = tx.exec_params("SELECT state FROM tasks WHERE id = $1::uuid FOR UPDATE", id);
    if (rows.empty()) throw not_found("no task \"" + id + "\"");
    const auto state = parse_enum<TaskState>(rows[0][0].c_str()).value_or(TaskState::failed);
    if (is_final(state))
      throw conflict("the task has already ended (" + std::string(to_string(state)) +
                     "); there is nothing to cancel");
    if (state == TaskState::queued) {
      // Nothing was sent: the task simply never runs.
      tx.exec_params(
          "UPDATE tasks SET state = 'cancelled', cancel_requested = true, cancelled_by = $2, "
          "       finished_at = now(), updated_at = now(), error = 'cancelled before it started', "
          "       sealed_secrets = NULL, secrets_key_id = NULL "
          " WHERE id = $1::uuid",
          id, actor);
    } else {
      tx.exec_params(
          "UPDATE tasks SET cancel_requested = true, cancelled_by = $2, updated_at = now() "
          " WHERE id = $1::uuid",
          id, actor);
    }
    return task_from_row(tx.exec_params1(task_by_id_sql(), id));
  });
}

std::vector<TaskJob> TaskStore::claim(const std::string& owner, int limit,
                                      std::chrono::seconds lease) {
  if (limit <= 0) return {};
  return transact(db_, [&](pqxx::work& tx) {
    // Claimers take turns (a transaction-scoped advisory lock, held for the few milliseconds a
    // claim takes), so that the two limits below hold across instances too; SKIP LOCKED still
    // passes over a task that a cancel is changing.
    tx.exec("SELECT pg_advisory_xact_lock(" + std::to_string(kClaimLock) + ")");
    // Claimable: the oldest unfinished task of its node (the node lock), queued or running under
    // an expired lease (its worker died), due, within its bulk action's max_parallel, and not
    // held off by a password rotation at its BMC (migration 0032).
    const auto claimed = tx.exec_params(
        "WITH heads AS ("
        "  SELECT DISTINCT ON (coalesce(t.node_id, t.id)) t.id, t.bulk_id, t.created_at, t.state,"
        "         t.lease_expires, t.not_before, t.kind, t.node_id"
        "    FROM tasks t WHERE t.state IN ('queued', 'running')"
        "   ORDER BY coalesce(t.node_id, t.id), t.created_at, t.id), "
        "ready AS ("
        "  SELECT h.id, h.bulk_id, h.created_at,"
        "         row_number() OVER (PARTITION BY h.bulk_id ORDER BY h.created_at, h.id) AS rank"
        "    FROM heads h"
        "   WHERE h.not_before <= now()"
        "     AND (h.state = 'queued' OR h.lease_expires IS NULL OR h.lease_expires < now())"
        "     AND (h.kind = 'credentials' OR NOT EXISTS (SELECT 1 FROM nodes q"
        "           WHERE q.id = h.node_id AND q.bmc_quiet_until > now()))), "
        "allowed AS ("
        "  SELECT r.id, r.created_at FROM ready r LEFT JOIN bulk_actions b ON b.id = r.bulk_id"
        "   WHERE r.bulk_id IS NULL"
        "      OR r.rank <= b.max_parallel - (SELECT count(*) FROM tasks x"
        "                                       WHERE x.bulk_id = r.bulk_id AND x.state = 'running'"
        "                                         AND x.lease_expires >= now())"
        "   ORDER BY r.created_at, r.id LIMIT $2), "
        "locked AS ("
        "  SELECT t.id FROM tasks t WHERE t.id IN (SELECT id FROM allowed)"
        "   FOR UPDATE OF t SKIP LOCKED) "
        "UPDATE tasks t SET state = 'running', lease_owner = $1, "
        "       lease_expires = now() + $3::integer * interval '1 second', "
        "       attempts = t.attempts + 1, started_at = coalesce(t.started_at, now()), "
        "       updated_at = now() "
        "  FROM locked WHERE t.id = locked.id "
        "RETURNING t.id, encode(t.sealed_secrets, 'hex')",
        owner, limit, static_cast<int>(lease.count()));
    std::vector<TaskJob> jobs;
    jobs.reserve(claimed.size());
    for (const auto& c : claimed) {
      TaskJob job;
      const std::string id = c[0].as<std::string>();
      job.task = task_from_row(tx.exec_params1(task_by_id_sql(), id));
      if (!c[1].is_null()) {
        try {
          job.secrets = open_task_secrets(box_, id, c[1].c_str());
        } catch (const Error& e) {
          log::warn("cannot open a task's sealed parameters", {{"task", id}, {"error", e.what()}});
        }
      }
      load_target(tx, box_, job);
      jobs.push_back(std::move(job));
    }
    return jobs;
  });
}

LeaseCheck TaskStore::renew(const std::string& id, const std::string& owner,
                            std::chrono::seconds lease) {
  return transact(db_, [&](pqxx::work& tx) {
    const auto rows = tx.exec_params(
        "UPDATE tasks SET lease_expires = now() + $3::integer * interval '1 second' "
        " WHERE id = $1::uuid AND lease_owner = $2 AND state = 'running' "
        "RETURNING cancel_requested",
        id, owner, static_cast<int>(lease.count()));
    LeaseCheck check;
    if (rows.empty()) return check;
    check.owned = true;
    check.cancel_requested = rows[0][0].as<bool>();
    return check;
  });
}

bool TaskStore::save_steps(const std::string& id, const std::string& owner,
                           std::span<const TaskStep> steps) {
  return transact(db_, [&](pqxx::work& tx) {
    const std::vector<TaskStep> before = stored_steps_for_update(tx, id);
    const auto r = tx.exec_params(
        "UPDATE tasks SET steps = $3::jsonb, updated_at = now() "
        " WHERE id = $1::uuid AND lease_owner = $2 AND state = 'running'",
        id, owner, db_json(steps_to_json(steps)));
    if (r.affected_rows() != 1) return false;
    audit_step_changes(db_, tx, id, before, steps);
    return true;
  });
}

std::vector<std::string> TaskStore::create_due_rotations(int limit) {
  return transact(db_, [&](pqxx::work& tx) {
    std::vector<std::string> ids;
    const auto due = tx.exec_params(
        "SELECT n.id, n.name FROM nodes n JOIN projects p ON p.name = n.project "
        "  JOIN node_credentials c ON c.node_id = n.id "
        " WHERE p.bmc_password_max_age_days IS NOT NULL AND n.retired_at IS NULL "
        "   AND n.source = 'bmc' AND n.parent_id IS NULL AND n.driver IN ('redfish', 'ipmi') "
        "   AND NOT n.maintenance "
        "   AND c.updated_at < now() - make_interval(days => p.bmc_password_max_age_days) "
        "   AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.node_id = n.id "
        "         AND t.kind = 'credentials' AND (t.state IN ('queued', 'running') "
        "          OR (t.automatic AND t.created_at > now() - interval '1 day'))) "
        " ORDER BY c.updated_at LIMIT $1 FOR UPDATE OF n SKIP LOCKED",
        limit);
    for (const auto& row : due) {
      NewTask task;
      task.kind = TaskKind::credentials;
      task.node = row[0].as<std::string>();
      task.parameters = parse_task_parameters(TaskKind::credentials, json::object());
      task.requested_by = "ironhold (BMC password rotation policy)";
      task.automatic = true;
      Savepoint one(tx, "due_rotation");
      try {
        ids.push_back(create_task_in(tx, box_, refusals_, task));
        one.release();
      } catch (const Error& e) {
        log::warn("a due BMC password rotation was not started",
                  {{"node", row[1].as<std::string>()}, {"error", e.what()}});
      }
    }
    return ids;
  });
}

bool TaskStore::store_rotated_password(const std::string& id, const std::string& owner,
                                       const std::string& node_id,
                                       const std::string& new_password) {
  return transact(db_, [&](pqxx::work& tx) {
    const auto held = tx.exec_params(
        "SELECT t.requested_by, t.project, n.name FROM tasks t JOIN nodes n ON n.id = t.node_id "
        " WHERE t.id = $1::uuid AND t.lease_owner = $2 AND t.state = 'running' "
        "   AND t.node_id = $3::uuid FOR UPDATE OF t",
        id, owner, node_id);
    if (held.empty()) return false;
    NodeSecrets secrets = read_node_secrets(tx, box_, node_id);
    if (!secrets.credentials)
      throw conflict("the node's credentials were removed while its password was being rotated");
    secrets.credentials->password = new_password;
    write_node_secrets(tx, box_, node_id, secrets);
    const std::string node_name = held[0][2].as<std::string>();
    append_event(tx, {node_id,
                      node_name,
                      "credentials_rotated",
                      Severity::info,
                      "the BMC password of \"" + secrets.credentials->username +
                          "\" was changed and the new one stored",
                      {{"task_id", id}, {"username", secrets.credentials->username}}});
    AuditEntry entry;
    entry.actor = optional_text(held[0][0]).value_or("ironhold");
    entry.project = optional_text(held[0][1]);
    entry.action = "node.credentials_rotated";
    entry.target_type = "node";
    entry.target_id = node_id;
    entry.target_name = node_name;
    entry.outcome = "succeeded";
    entry.details = {{"task_id", id}, {"username", secrets.credentials->username}};
    append_audit_entry(db_, tx, entry);
    return true;
  });
}

std::optional<int> TaskStore::hold_bmc(const std::string& id, const std::string& owner,
                                       const std::string& node_id, std::chrono::seconds hold) {
  return transact(db_, [&](pqxx::work& tx) -> std::optional<int> {
    const auto held = tx.exec_params(
        "SELECT 1 FROM tasks WHERE id = $1::uuid AND lease_owner = $2 AND state = 'running' "
        "   AND node_id = $3::uuid FOR UPDATE",
        id, owner, node_id);
    if (held.empty()) return std::nullopt;
    tx.exec_params(
        "UPDATE nodes SET bmc_quiet_until = now() + $2::integer * interval '1 second' "
        " WHERE id = $1::uuid OR parent_id = $1::uuid",
        node_id, static_cast<int>(hold.count()));
    return tx
        .exec_params1(
            "SELECT (SELECT count(*) FROM poll_schedule s JOIN nodes n ON n.id = s.node_id "
            "         WHERE (n.id = $1::uuid OR n.parent_id = $1::uuid) "
            "           AND s.lease_expires > now()) "
            "     + (SELECT count(*) FROM tasks t JOIN nodes n ON n.id = t.node_id "
            "         WHERE n.parent_id = $1::uuid AND t.state = 'running' "
            "           AND t.lease_expires > now())",
            node_id)[0]
        .as<int>();
  });
}

bool TaskStore::finish(const std::string& id, const std::string& owner, TaskState state,
                       const json& result, const std::optional<std::string>& error,
                       std::span<const TaskStep> steps) {
  // An error may quote a BMC, NUL bytes and all: text columns take it NUL-free.
  const std::optional<std::string> error_text =
      error ? std::optional<std::string>(db_text(*error)) : std::nullopt;
  return transact(db_, [&](pqxx::work& tx) {
    const std::vector<TaskStep> before = stored_steps_for_update(tx, id);
    const auto r = tx.exec_params(
        "UPDATE tasks SET state = $3, result = $4::jsonb, error = $5, steps = $6::jsonb, "
        "       finished_at = now(), updated_at = now(), lease_owner = NULL, "
        "       lease_expires = NULL, sealed_secrets = NULL, secrets_key_id = NULL "
        " WHERE id = $1::uuid AND lease_owner = $2 AND state = 'running'",
        id, owner, std::string(to_string(state)), db_json(result), nullable(error_text),
        db_json(steps_to_json(steps)));
    if (r.affected_rows() != 1) return false;
    audit_step_changes(db_, tx, id, before, steps);
    const Task task = task_from_row(tx.exec_params1(task_by_id_sql(), id));
    if (task.kind == TaskKind::credentials && task.node_id)
      tx.exec_params(
          "UPDATE nodes SET bmc_quiet_until = NULL WHERE id = $1::uuid OR parent_id = $1::uuid",
          *task.node_id);
    // A release's cleaning moves the node on (available, or clean_failed), and so does a
    // reprovision (deployed, or provision_failed).
    const bool moves_lifecycle = task.kind == TaskKind::clean || task.kind == TaskKind::reprovision;
    if (moves_lifecycle && task.node_id) {
      const bool ok = state == TaskState::succeeded;
      const std::string from = task.kind == TaskKind::clean ? "cleaning" : "provisioning";
      const std::string next = task.kind == TaskKind::clean
                                   ? (ok ? "available" : "clean_failed")
                                   : (ok ? "deployed" : "provision_failed");
      const auto moved = tx.exec_params(
          "UPDATE nodes SET lifecycle = $2, updated_at = now() "
          " WHERE id = $1::uuid AND lifecycle = $3",
          *task.node_id, next, from);
      if (moved.affected_rows() == 1)
        append_event(tx, {task.node_id,
                          task.node_name,
                          "lifecycle",
                          ok ? Severity::info : Severity::warning,
                          from + " -> " + next,
                          {{"from", from}, {"to", next}, {"task_id", task.id}}});
    }
    // The node's history and the audit trail say what was done to it, by whom and how it ended.
    append_event(
        tx, {task.node_id,
             task.node_name,
             "task",
             state == TaskState::failed ? Severity::warning : Severity::info,
             outcome_message(task, state, error),
             {{"task_id", task.id}, {"kind", to_string(task.kind)}, {"state", to_string(state)}}});
    AuditEntry entry;
    entry.actor = task.requested_by.value_or("ironhold");
    entry.action = "task." + std::string(to_string(task.kind));
    entry.target_type = "node";
    entry.target_id = task.node_id;
    entry.target_name = task.node_name;
    entry.project = task.project;
    entry.outcome = std::string(to_string(state));
    entry.details = {{"task_id", task.id},
                     {"parameters", task.parameters},
                     {"attempts", task.attempts},
                     {"error", error ? json(*error) : json(nullptr)},
                     {"in_doubt", [&] {
                        json notes = json::array();
                        for (const auto& s : steps)
                          if (s.in_doubt)
                            notes.push_back({{"step", s.name}, {"resolution", *s.in_doubt}});
                        return notes;
                      }()}};
    append_audit_entry(db_, tx, entry);
    return true;
  });
}

void TaskStore::release(const std::string& id, const std::string& owner,
                        std::span<const TaskStep> steps) {
  transact(db_, [&](pqxx::work& tx) {
    tx.exec_params(
        "UPDATE tasks SET steps = $3::jsonb, lease_owner = NULL, lease_expires = NULL, "
        "       updated_at = now() "
        " WHERE id = $1::uuid AND lease_owner = $2 AND state = 'running'",
        id, owner, db_json(steps_to_json(steps)));
  });
}

}  // namespace ironhold::db
