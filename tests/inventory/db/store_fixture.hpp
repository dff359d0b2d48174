#pragma once
// What the store tests share: a database of their own, a connection pool on it, a master key, the
// node and task stores, enrolling a Redfish node that nothing answers for, and creating a task.
#include <string>

#include "inventory/db/node_store.hpp"
#include "inventory/db/task_store.hpp"
#include "inventory/model/node_spec.hpp"
#include "tests/support/test_database.hpp"

namespace ironhold::test {

struct StoreFixture {
  TestDatabase database;
  db::Database db{
      db::DatabaseOptions{.url = database.url(), .pool_size = 4, .audit_key = crypto::Key{7}}};
  crypto::SecretBox box{crypto::Key{}};
  db::NodeStore nodes{db, box};
  db::TaskStore tasks{db, box};

  // The new node's id.
  std::string enroll(const std::string& name) {
    return nodes
        .create(parse_node_spec({{"name", name},
                                 {"driver", "redfish"},
                                 {"endpoint", "https://127.0.0.2:1"},
                                 {"credentials", {{"username", "u"}, {"password", "p"}}}}))
        .id;
  }

  // One task on `node`, asked for by "tester".
  Task create(const std::string& node, const nlohmann::json& body = {{"action", "cycle"}},
              TaskKind kind = TaskKind::power) {
    db::NewTask t;
    t.kind = kind;
    t.node = node;
    t.parameters = parse_task_parameters(kind, body);
    t.requested_by = "tester";
    const db::NewTask one[] = {t};
    return tasks.create(one, std::nullopt).tasks.at(0);
  }
};

}  // namespace ironhold::test
