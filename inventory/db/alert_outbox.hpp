#pragma once
// The notifications waiting to be sent (alert_outbox, migration 0016): claimed a few at a time
// under a lease, so that several instances share the sending and one that dies hands its claims
// on; a failed attempt is tried again after a backoff, for as long as the receiver exists.
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "inventory/crypto/secret_box.hpp"
#include "inventory/db/database.hpp"

namespace ironhold::db {

struct Delivery {
  long long id = 0;
  std::string receiver_id, receiver_name, url;
  std::string secret;    // the receiver's signing secret, opened
  std::string status;    // "firing" or "resolved"
  nlohmann::json alert;  // the alert row as it was at the change
  int attempts = 0;      // before this one
};

class AlertOutbox {
 public:
  // A failed delivery is tried again after `retry_base`, doubling with each failure up to 10
  // minutes.
  AlertOutbox(Database& db, const crypto::SecretBox& box,
              std::chrono::milliseconds retry_base = std::chrono::seconds(5))
      : db_(db), box_(box), retry_base_(retry_base) {}

  // Due deliveries, oldest first, leased to `owner` for `lease`.
  std::vector<Delivery> claim(const std::string& owner, int limit, std::chrono::seconds lease);
  void delivered(long long id);
  void failed(long long id, const std::string& error);

 private:
  Database& db_;
  const crypto::SecretBox& box_;
  std::chrono::milliseconds retry_base_;
};

}  // namespace ironhold::db
