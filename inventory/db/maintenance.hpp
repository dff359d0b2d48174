#pragma once
// Housekeeping that keeps the database in shape while the service runs: daily sensor-reading
// partitions created ahead of time, partitions older than the retention dropped whole, and
// Idempotency-Key records past their 24 hours removed.
#include "inventory/db/database.hpp"

namespace ironhold::db {

struct RetentionPolicy {
  int sensor_days = 30;  // readings older than this many days go
  int days_ahead = 7;    // partitions made ready in advance
};

struct MaintenanceReport {
  int partitions_created = 0;
  int partitions_dropped = 0;
  int idempotency_keys_expired = 0;
  int uploads_discarded = 0;  // firmware image uploads that never finished
};

MaintenanceReport run_maintenance(Database& db, const RetentionPolicy& policy);

}  // namespace ironhold::db
