#pragma once
// The poll schedule in PostgreSQL: which node needs which kind of poll when, claimed in batches
// with FOR UPDATE SKIP LOCKED under an expiring lease (so several instances share the work and a
// dead instance's polls are taken up again once its lease runs out), and the recording of what
// the polls found: power and health, sensors, hardware events, the full inventory with its
// history, TLS pins on first contact, and errors.
#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "inventory/crypto/secret_box.hpp"
#include "inventory/db/database.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold::db {

enum class PollKind { status, sensors, inventory };
std::string_view to_string(PollKind kind);

struct PollJob {
  PollKind kind = PollKind::status;
  std::string driver;
  int failures = 0;  // consecutive failures before this attempt
  // How long the last poll of this kind of this node took; nothing before the first.
  std::optional<std::chrono::milliseconds> last_duration;
  DriverTarget target;
};

struct PollResult {
  PollKind kind = PollKind::status;
  std::string node_id;
  std::variant<StatusReport, SensorReport, InspectionReport> report;
  std::chrono::milliseconds duration{0};
  // When this kind of poll of this node is due again, from now (the poller's policy).
  std::chrono::milliseconds next_in{30'000};

  const DriverOutcome& outcome() const;
};

// A poll an instance holds a lease on: one row of the schedule.
struct PollKey {
  std::string node_id;
  PollKind kind = PollKind::status;
  auto operator<=>(const PollKey&) const = default;
};

// One row of the schedule, for the API and tests.
struct ScheduleEntry {
  PollKind kind = PollKind::status;
  std::string next_due;  // RFC 3339
  std::optional<std::string> lease_owner, last_finished;
  int failures = 0;
};

class PollStore {
 public:
  PollStore(Database& db, const crypto::SecretBox& box) : db_(db), box_(box) {}

  // Leases up to `limit` due polls of nodes whose driver is one of `drivers`, most overdue first,
  // those of working BMCs before those of failing ones, and of the latter at most
  // `failing_limit` (nullopt: no limit of their own). Of inventory polls at most
  // `inventory_limit`, after the other kinds of their tier. A poll leased by another owner is
  // skipped until its lease expires.
  std::vector<PollJob> claim(const std::string& owner, std::span<const std::string> drivers,
                             int limit, std::chrono::seconds lease,
                             std::optional<int> failing_limit = std::nullopt,
                             std::optional<int> inventory_limit = std::nullopt);

  // Extends the leases `owner` still holds on `keys` to `lease` from now, in one statement (the
  // poller's heartbeat for the polls it has in flight); returns the keys it extended. A key whose
  // lease another owner took since (it had expired) is not among them.
  std::vector<PollKey> renew(const std::string& owner, std::span<const PollKey> keys,
                             std::chrono::seconds lease);

  // Records a batch of results in one transaction (each in a savepoint: a result the database
  // refuses is logged and skipped, the others are kept) and releases their leases.
  void record(std::span<const PollResult> results, const std::string& owner);

  // Makes the full inventory poll of a node due now (POST /nodes/{id}/inspect). Throws not_found
  // for a node without a schedule (retired, a cloud node, a System polled through its parent).
  void request_inspection(const std::string& node_id);

  // Forgets the pinned certificate (with `tls`) and the SSH console's host key so the next
  // contact pins afresh, clears a pin mismatch and makes the node's polls due now. Returns the
  // SSH host key that was pinned, if any.
  std::optional<std::string> clear_pins(const std::string& node_id, bool tls);

  std::vector<ScheduleEntry> schedule(const std::string& node_id);

 private:
  Database& db_;
  const crypto::SecretBox& box_;
};

}  // namespace ironhold::db
