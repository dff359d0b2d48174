#pragma once
// Housekeeping that keeps the database in shape while the service runs: daily sensor-reading
// partitions created ahead of time, partitions older than the retention dropped whole,
// Idempotency-Key records past their 24 hours, stale uploads and ended console sessions removed,
// the change stream's rows past their retention pruned, and serial console output past its own.
#include "inventory/db/database.hpp"

namespace ironhold::db {

struct RetentionPolicy {
  int sensor_days = 30;  // readings older than this many days go
  int days_ahead = 7;    // partitions made ready in advance
  // How long GET /api/v1/stream can resume after a disconnect (Last-Event-ID); older changes go.
  int change_hours = 24;
  // What nodes' serial consoles printed, and the console sessions that ended, are kept this long
  // (--console-log-days).
  int console_log_days = 7;
};

struct MaintenanceReport {
  int partitions_created = 0;
  int partitions_dropped = 0;
  int idempotency_keys_expired = 0;
  int uploads_discarded = 0;         // firmware image uploads that never finished
  int changes_pruned = 0;            // change stream rows past change_hours
  int sessions_removed = 0;          // console sessions that ended a day ago
  long long console_log_pruned = 0;  // serial console output past console_log_days
};

MaintenanceReport run_maintenance(Database& db, const RetentionPolicy& policy);

}  // namespace ironhold::db
