#pragma once
// The change feed's own PostgreSQL connection: it LISTENs on ironhold_changes, waits for a commit's
// NOTIFY (or a wake-up, or a timeout), and reads the changes that have become final. Separate from
// the pool because it waits on its socket between reads; used by one thread only.
// LISTEN is session state: the URL must reach PostgreSQL directly, not through a pooler in
// transaction mode (PgBouncer), which would hand the LISTEN and the later waits to different
// server connections (see Database::listen_url and docs/scaling.md).
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "inventory/db/change_store.hpp"

namespace ironhold::db {

class ChangeListener {
 public:
  explicit ChangeListener(std::string url);
  ~ChangeListener();
  ChangeListener(const ChangeListener&) = delete;
  ChangeListener& operator=(const ChangeListener&) = delete;

  // Connects and LISTENs (again, after a failure). Throws Error(unavailable).
  void connect();
  void disconnect() noexcept;
  bool connected() const noexcept;

  // Blocks until a NOTIFY arrives, `wake_fd` becomes readable or `timeout` passes. Throws
  // Error(unavailable) when the connection broke (connect() again, then read: nothing is lost,
  // since reads start from a position, not from the notifications).
  void wait(int wake_fd, std::chrono::milliseconds timeout);

  struct Window {
    // The changes at or after `from` whose transactions are below the watermark, in delivery
    // order; at most `limit` of them.
    std::vector<ChangeRow> rows;
    std::uint64_t watermark = 0;  // change_watermark() just before the rows were read
    bool full = false;            // `limit` rows: more may follow at once
    // Committed changes at or above the watermark wait for an older transaction to end, which
    // may send no NOTIFY of its own: read again soon rather than at the next poll.
    bool held_back = false;
  };
  // Throws Error(unavailable) when the connection broke.
  Window read(ChangePosition from, int limit);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ironhold::db
