#pragma once
// Nodes in PostgreSQL: enrollment, lookup by id or name, filtered keyset-paged lists, summaries,
// updates, retirement and purge. Credentials are sealed with the master key before they are
// written and are never part of a Node.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/crypto/secret_box.hpp"
#include "inventory/db/database.hpp"
#include "inventory/model/node.hpp"
#include "inventory/model/node_query.hpp"
#include "inventory/model/node_spec.hpp"

namespace ironhold::db {

struct NodePage {
  std::vector<Node> items;
  std::optional<std::string> next;  // the cursor of the next page, if there is one
};

// The same page as the API's JSON text: the items' objects, comma separated (what goes between
// the brackets of "items"), as append_row_json writes them.
struct NodePageText {
  std::string items;
  std::size_t count = 0;
  std::optional<std::string> next;
};

// A node's secrets, opened: for drivers only, never for the API.
struct NodeSecrets {
  std::optional<Credentials> credentials;
  std::optional<std::string> kg;
};

class NodeStore {
 public:
  NodeStore(Database& db, const crypto::SecretBox& box) : db_(db), box_(box) {}

  // Throws Error(conflict) when a node in service already has the name.
  Node create(const NodeSpec& spec);
  // By id (any node, retired included) or by name (the node in service, else the latest retired).
  Node get(std::string_view id_or_name);
  NodePage list(const NodeQuery& query);
  // The same page rendered straight from the rows (GET /api/v1/nodes): no Node is built.
  NodePageText list_text(const NodeQuery& query);
  // The node in service whose endpoint is exactly this canonical text (Endpoint::to_string()),
  // the oldest if several are; nullopt when none is.
  std::optional<Node> find_by_endpoint(const std::string& endpoint);
  // {"total": n, "health": {...}, "power_state": {...}, "source": {...}, "driver": {...},
  //  "lifecycle": {...}, "gpu_model": {model: nodes}, "gpus": {model: GPUs}} over the nodes the
  // filter selects; gpu_model and gpus leave out nodes without a GPU model.
  nlohmann::json summary(const NodeFilter& filter);
  // Applies a validated PATCH body (see apply_node_patch). Throws conflict for a retired node or
  // a name taken by another node.
  Node update(std::string_view id_or_name, const nlohmann::json& patch);
  // Marks the node retired and drops its secrets; history stays. Returns the node as it is now.
  Node retire(std::string_view id_or_name);
  // Removes the node row (components and secrets go with it; history rows keep their values).
  Node purge(std::string_view id_or_name);
  NodeSecrets secrets(const std::string& node_id);

 private:
  bool prepared() const noexcept { return db_.options().prepared_statements; }

  Database& db_;
  const crypto::SecretBox& box_;
};

}  // namespace ironhold::db
