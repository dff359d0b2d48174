#include "inventory/stream/change_renderer.hpp"

#include "inventory/error.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::stream {

std::optional<nlohmann::json> ChangeRenderer::render(const db::ChangeRow& change) const {
  try {
    return read(change);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::not_found) return std::nullopt;
    if (e.kind() == ErrorKind::unavailable) throw;
    log::error("could not render a change for the stream; sending its id only",
               {{"change_id", change.position.id}, {"kind", change.kind}, {"error", e.what()}});
  } catch (const std::exception& e) {
    log::error("could not render a change for the stream; sending its id only",
               {{"change_id", change.position.id}, {"kind", change.kind}, {"error", e.what()}});
  }
  return nlohmann::json{{"id", change.resource_id}};
}

nlohmann::json ChangeRenderer::read(const db::ChangeRow& change) const {
  const std::string& id = change.resource_id;
  const std::string& kind = change.kind;
  // A resource that moved to another project since the change shows its id only: its state now
  // belongs to the other project's watchers.
  auto moved = [&change](const std::string& project) { return change.project != project; };
  if (kind == "node.updated") {
    const Node node = stores_.nodes.get(id);
    if (moved(node.project)) return nlohmann::json{{"id", id}};
    return to_json(node);
  }
  if (kind == "task.updated" && stores_.tasks) return to_json(stores_.tasks->get(id));
  if (kind == "rollout.updated" && stores_.rollouts)
    return to_json(stores_.rollouts->get(id), false);
  if (kind == "cloud_account.updated" && stores_.cloud_accounts) {
    const CloudAccount account = stores_.cloud_accounts->get(id);
    if (moved(account.spec.project)) return nlohmann::json{{"id", id}};
    return to_json(account);
  }
  if (kind == "alert.updated" && stores_.alerts) {
    if (const auto alert = stores_.alerts->get(std::stoll(id))) return db::to_json(*alert);
    return nlohmann::json{{"id", id}};
  }
  // Deletions, and kinds this instance does not render (a newer instance's, during an upgrade).
  return nlohmann::json{{"id", id}};
}

}  // namespace ironhold::stream
