#pragma once
// The subscriptions of this service on the BMCs' EventServices (event_subscriptions, migration
// 0018) and what the BMCs post through them. Rows are claimed under a lease by any instance's
// subscriber (inventory/events/event_subscriber.hpp), like the poll schedule; a pushed document
// is recorded in one transaction: its log entries as events (skipping what a poll recorded
// already, and the other way round), its status changes as the node's health, and the node's
// next status poll brought forward to confirm them.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "inventory/crypto/secret_box.hpp"
#include "inventory/db/database.hpp"
#include "inventory/drivers/node_driver.hpp"
#include "inventory/events/redfish_event.hpp"

namespace ironhold::db {

struct SubscriptionJob {
  DriverTarget target;  // with the node's credentials opened
  std::string driver;
  std::string state;  // pending, active, unsupported, failing or removing
  std::optional<std::string> bmc_path, destination_prefix;
  int failures = 0;
  bool retired = false;  // the node is retired: the job is the removal
};

// One node's subscription, for the API.
struct EventSubscriptionView {
  std::string node_id, node_name, project;
  std::string state;
  std::optional<std::string> bmc_path, destination_prefix, last_error;
  std::optional<std::string> subscribed_at, checked_at, last_event_at, next_check;
  long long events_received = 0;
  int failures = 0;
};
nlohmann::json to_json(const EventSubscriptionView& view);

// What one pushed document did.
struct PushRecorded {
  std::string node_id, node_name;
  int events = 0;          // new events recorded
  int duplicates = 0;      // log entries recorded before (by a poll or an earlier delivery)
  int health_changes = 0;  // nodes whose health the document changed
};

class EventSubscriptionStore {
 public:
  EventSubscriptionStore(Database& db, const crypto::SecretBox& box) : db_(db), box_(box) {}

  // Due rows of Redfish nodes, leased to `owner`.
  std::vector<SubscriptionJob> claim(const std::string& owner, int limit,
                                     std::chrono::seconds lease);
  // Right before a subscription is made: events posted with this secret are taken from now on.
  void expect_secret(const std::string& node_id, const std::string& secret);
  void subscribed(const std::string& node_id, const std::string& owner, const std::string& bmc_path,
                  const std::string& destination_prefix, std::chrono::seconds next_check);
  void checked(const std::string& node_id, const std::string& owner,
               std::chrono::seconds next_check);
  // `state`: "failing", "unsupported", or empty to keep the state (a failed check of an active
  // subscription stays active: the BMC most likely still has it).
  void failed(const std::string& node_id, const std::string& owner, const std::string& state,
              const std::string& error, std::chrono::seconds next_check);
  // The subscription came off the retired node's BMC (or will never): the row goes, and with it
  // the credentials kept for the removal.
  void removed(const std::string& node_id, const std::string& owner);

  // Records a document posted with `secret`. Throws Error (not_found) when no subscription has
  // that secret (or its node is retired): the BMC is told 404, and many then drop it.
  PushRecorded record_pushed(const std::string& secret, const events::PushedEvents& pushed);

  std::optional<EventSubscriptionView> find(const std::string& node_id);

 private:
  Database& db_;
  const crypto::SecretBox& box_;
};

}  // namespace ironhold::db
