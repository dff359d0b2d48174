#pragma once
// What the store tests share: a database of their own, a connection pool on it, a master key, the
// node store, and enrolling a Redfish node that nothing answers for.
#include <string>

#include "inventory/db/node_store.hpp"
#include "inventory/model/node_spec.hpp"
#include "tests/support/test_database.hpp"

namespace ironhold::test {

struct StoreFixture {
  TestDatabase database;
  db::Database db{db::DatabaseOptions{database.url(), 4}};
  crypto::SecretBox box{crypto::Key{}};
  db::NodeStore nodes{db, box};

  // The new node's id.
  std::string enroll(const std::string& name) {
    return nodes
        .create(parse_node_spec({{"name", name},
                                 {"driver", "redfish"},
                                 {"endpoint", "https://127.0.0.2:1"},
                                 {"credentials", {{"username", "u"}, {"password", "p"}}}}))
        .id;
  }
};

}  // namespace ironhold::test
