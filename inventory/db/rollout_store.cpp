// Creating rollouts and the operator's pause, resume and abort; advance() is rollout_advance.cpp.
#include "inventory/db/rollout_store.hpp"

#include "inventory/db/db_json.hpp"
#include "inventory/db/rollout_rows.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/db/task_insert.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"

namespace ironhold::db {
namespace {

using nlohmann::json;

constexpr int kMaxNodes = 10000;

// Why `node` cannot take an update from an image for `model` (absent: any); nothing when it can.
std::optional<std::string> unfit(const Node& node, const std::optional<std::string>& model) {
  if (node.source == Source::cloud) return node.name + " (a cloud instance)";
  if (node.driver != "redfish") return node.name + " (managed over " + node.driver + ")";
  if (model && node.model && *model != *node.model) return node.name + " (a " + *node.model + ")";
  return std::nullopt;
}

std::optional<std::string> rack_of(const Node& node) {
  if (!node.location.rack) return std::nullopt;
  return node.location.site.value_or("") + "/" + *node.location.rack;
}

Rollout must_read(pqxx::work& tx, const std::string& id, bool lock) {
  if (!is_uuid(id)) throw not_found("no rollout \"" + id + "\"");
  auto found = read_rollout(tx, id, lock);
  if (!found) throw not_found("no rollout \"" + id + "\"");
  return std::move(*found);
}

void set_state(pqxx::work& tx, const std::string& id, RolloutState state) {
  tx.exec_params("UPDATE firmware_rollouts SET state = $2, updated_at = now() WHERE id = $1::uuid",
                 id, std::string(to_string(state)));
}

}  // namespace

RolloutStore::Created RolloutStore::create(const RolloutSpec& spec, const std::string& requested_by,
                                           const std::optional<IdempotencyKey>& key) {
  return transact(db_, [&](pqxx::work& tx) -> Created {
    if (key && !claim_idempotency_key(tx, *key)) {
      const auto earlier = tx.exec_params1(
          "SELECT rollout_id FROM idempotency_keys WHERE token_id = $1 AND key = $2", key->token_id,
          key->key);
      if (earlier[0].is_null())
        throw unprocessable("this Idempotency-Key was used for another kind of request",
                            "Idempotency-Key");
      return {must_read(tx, earlier[0].as<std::string>(), false), true};
    }
    const auto image = tx.exec_params(
        "SELECT name, component, version, model FROM firmware_images "
        " WHERE id = $1::uuid AND state = 'ready' AND kind = 'firmware'",
        spec.image);
    if (image.empty())
      throw unprocessable(
          "there is no firmware image " + spec.image + " (GET /api/v1/firmware/images lists them)",
          "image");
    const std::optional<std::string> model = optional_text(image[0][3]);
    const std::vector<Node> nodes = matching_nodes(tx, spec.filter, kMaxNodes);
    if (nodes.empty()) throw unprocessable("the selector matches no node in service", "selector");
    std::vector<std::string> refused;
    for (const auto& node : nodes)
      if (auto why = unfit(node, model)) refused.push_back(*why);
    if (!refused.empty()) {
      std::string listed;
      for (std::size_t i = 0; i < refused.size() && i < 5; ++i)
        listed += (i ? ", " : "") + refused[i];
      if (refused.size() > 5) listed += " and " + std::to_string(refused.size() - 5) + " more";
      throw unprocessable(std::to_string(refused.size()) + " of the " +
                              std::to_string(nodes.size()) +
                              " nodes matched cannot take this update: " + listed +
                              "; narrow the selector (driver=redfish" +
                              (model ? ", the image's model" : std::string()) + ")",
                          "selector");
    }
    const std::string id =
        tx.exec_params1(
              "INSERT INTO firmware_rollouts (image_id, image_name, component, version, selector, "
              "  canary, batch_size, max_parallel_per_rack, max_failures, health_gate_seconds, "
              "  task_parameters, requested_by, project) "
              "VALUES ($1::uuid, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10, $11::jsonb, $12, "
              "        $13) "
              "RETURNING id",
              spec.image, image[0][0].as<std::string>(), image[0][1].as<std::string>(),
              image[0][2].as<std::string>(), db_json(spec.selector), spec.canary, spec.batch_size,
              spec.max_parallel_per_rack, spec.max_failures, spec.health_gate_seconds,
              db_json(spec.task_parameters), requested_by, spec.project)[0]
            .as<std::string>();
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const int position = static_cast<int>(i);
      const int batch = position < spec.canary ? 0 : 1 + (position - spec.canary) / spec.batch_size;
      tx.exec_params(
          "INSERT INTO rollout_nodes (rollout_id, node_id, node_name, rack, position, batch) "
          "VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6)",
          id, nodes[i].id, nodes[i].name, nullable(rack_of(nodes[i])), position, batch);
    }
    if (key)
      tx.exec_params(
          "UPDATE idempotency_keys SET rollout_id = $3::uuid WHERE token_id = $1 AND key = $2",
          key->token_id, key->key, id);
    return {must_read(tx, id, false), false};
  });
}

Rollout RolloutStore::get(const std::string& id) {
  return transact(db_, [&](pqxx::work& tx) { return must_read(tx, id, false); });
}

std::vector<Rollout> RolloutStore::list(int limit, const ProjectScope& scope) {
  return transact(db_, [&](pqxx::work& tx) {
    std::vector<Rollout> out;
    for (const auto& r :
         tx.exec_params(std::string("SELECT ") + rollout_columns +
                            " FROM firmware_rollouts "
                            "WHERE ($2::text[] IS NULL OR project = ANY($2::text[])) "
                            "ORDER BY created_at DESC, id DESC LIMIT $1",
                        limit, nullable(scope_array(scope)))) {
      Rollout rollout = rollout_from_row(r);
      rollout.nodes = read_rollout_nodes(tx, rollout.id);
      out.push_back(std::move(rollout));
    }
    return out;
  });
}

Rollout RolloutStore::pause(const std::string& id, const std::string& actor) {
  return transact(db_, [&](pqxx::work& tx) {
    const Rollout r = must_read(tx, id, true);
    if (r.state != RolloutState::running)
      throw conflict("rollout " + id + " is " + std::string(to_string(r.state)) +
                     ": only a running rollout can be paused");
    set_state(tx, id, RolloutState::paused);
    audit_rollout(db_, tx, r, actor, "rollout.pause");
    return must_read(tx, id, false);
  });
}

Rollout RolloutStore::resume(const std::string& id, const std::string& actor) {
  return transact(db_, [&](pqxx::work& tx) {
    const Rollout r = must_read(tx, id, true);
    if (r.state != RolloutState::paused && r.state != RolloutState::halted)
      throw conflict("rollout " + id + " is " + std::string(to_string(r.state)) +
                     ": only a paused or halted rollout can be resumed");
    // The failures that halted it have been seen: max_failures counts the ones after them.
    tx.exec_params(
        "UPDATE firmware_rollouts SET state = 'running', halt_reason = NULL, updated_at = now(), "
        "  failures_accepted = (SELECT count(*) FROM rollout_nodes "
        "                        WHERE rollout_id = $1::uuid AND state = 'failed') "
        "WHERE id = $1::uuid",
        id);
    audit_rollout(db_, tx, r, actor, "rollout.resume",
                  {{"from", to_string(r.state)}, {"halt_reason", json_or_null(r.halt_reason)}});
    return must_read(tx, id, false);
  });
}

Rollout RolloutStore::abort(const std::string& id, const std::string& actor) {
  return transact(db_, [&](pqxx::work& tx) {
    const Rollout r = must_read(tx, id, true);
    if (r.state == RolloutState::aborted || r.state == RolloutState::succeeded)
      throw conflict("rollout " + id + " has ended (" + std::string(to_string(r.state)) + ")");
    // Queued tasks are cancelled with their nodes; running updates are left to end (stopping a
    // flash half-way helps no one) and advance() records how they end.
    const auto cancelled = tx.exec_params(
        "UPDATE tasks SET state = 'cancelled', cancel_requested = true, cancelled_by = $2, "
        "       error = 'the rollout was aborted', finished_at = now(), updated_at = now() "
        " WHERE state = 'queued' AND id IN (SELECT task_id FROM rollout_nodes "
        "                                   WHERE rollout_id = $1::uuid AND state = 'updating') "
        "RETURNING id",
        id, actor);
    for (const auto& row : cancelled)
      tx.exec_params(
          "UPDATE rollout_nodes SET state = 'cancelled', finished_at = now(), "
          "       error = 'the rollout was aborted before its update started' "
          " WHERE rollout_id = $1::uuid AND task_id = $2::uuid",
          id, row[0].as<std::string>());
    tx.exec_params(
        "UPDATE rollout_nodes SET state = 'cancelled', finished_at = now(), "
        "       error = 'the rollout was aborted' "
        " WHERE rollout_id = $1::uuid AND state = 'pending'",
        id);
    tx.exec_params(
        "UPDATE firmware_rollouts SET state = 'aborted', updated_at = now() WHERE id = $1::uuid",
        id);
    audit_rollout(db_, tx, r, actor, "rollout.abort", {{"from", to_string(r.state)}});
    return must_read(tx, id, false);
  });
}

}  // namespace ironhold::db
