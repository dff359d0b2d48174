#pragma once
// What an event of the change stream carries: the changed resource's JSON, the same as its GET
// answers (a rollout without its per-node list, which can run to thousands of entries).
#include <nlohmann/json.hpp>
#include <optional>

#include "inventory/db/alert_store.hpp"
#include "inventory/db/change_store.hpp"
#include "inventory/db/cloud_account_store.hpp"
#include "inventory/db/node_store.hpp"
#include "inventory/db/rollout_store.hpp"
#include "inventory/db/task_store.hpp"

namespace ironhold::stream {

class ChangeRenderer {
 public:
  // The stores a service may lack are null; their changes then carry {"id": ...} only.
  struct Stores {
    db::NodeStore& nodes;
    db::TaskStore* tasks = nullptr;
    db::RolloutStore* rollouts = nullptr;
    db::CloudAccountStore* cloud_accounts = nullptr;
    db::AlertStore* alerts = nullptr;
  };
  explicit ChangeRenderer(Stores stores) : stores_(stores) {}

  // nullopt when the resource no longer exists (the event saying so follows). Throws
  // Error(unavailable) when the database cannot be reached, for the caller to retry; any other
  // failure is logged and answered with {"id": ...}, so that one bad row never stalls the stream.
  std::optional<nlohmann::json> render(const db::ChangeRow& change) const;

 private:
  nlohmann::json read(const db::ChangeRow& change) const;

  Stores stores_;
};

}  // namespace ironhold::stream
