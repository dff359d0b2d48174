#include "inventory/db/maintenance.hpp"

#include "inventory/db/transaction.hpp"
#include "inventory/util/concat.hpp"

namespace ironhold::db {

namespace {
// Instances sharing a database take turns ("IRNHMANT" as a number): two creating the same day's
// partition at once would fail one of them, and its whole round with it, until the next interval.
// Transaction-scoped, as every lock here is (PgBouncer's transaction mode keeps no session lock).
constexpr long long kMaintenanceLock = 0x49524e484d414e54LL;
}  // namespace

MaintenanceReport run_maintenance(Database& db, const RetentionPolicy& policy) {
  return transact(db, [&](pqxx::work& tx) {
    tx.exec(util::concat("SELECT pg_advisory_xact_lock(", std::to_string(kMaintenanceLock), ")"));
    MaintenanceReport report;
    report.partitions_created =
        tx.exec_params1(
              "SELECT ensure_sensor_partitions(current_date - 1, current_date + $1::integer)",
              std::to_string(policy.days_ahead))[0]
            .as<int>();
    report.partitions_dropped =
        tx.exec_params1("SELECT drop_sensor_partitions_before(current_date - $1::integer)",
                        std::to_string(policy.sensor_days))[0]
            .as<int>();
    report.idempotency_keys_expired = static_cast<int>(
        tx.exec("DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'")
            .affected_rows());
    // An upload whose instance died mid-way left its chunks behind; a day is past any upload.
    report.uploads_discarded =
        static_cast<int>(tx.exec("DELETE FROM firmware_images WHERE state = 'uploading' "
                                 "AND created_at < now() - interval '24 hours'")
                             .affected_rows());
    // Console sessions a day past their end: nothing reads them any more.
    report.sessions_removed = static_cast<int>(
        tx.exec("DELETE FROM console_sessions WHERE coalesce(ended_at, expires_at) < "
                "now() - interval '1 day'")
            .affected_rows());
    // Serial consoles: output and ended sessions past --console-log-days (an open session stays).
    report.console_log_pruned =
        static_cast<long long>(tx.exec_params("DELETE FROM serial_console_log "
                                              " WHERE at < now() - $1::integer * interval '1 day'",
                                              policy.console_log_days)
                                   .affected_rows());
    tx.exec_params0(
        "DELETE FROM serial_console_sessions "
        " WHERE closed_at < now() - $1::integer * interval '1 day'",
        policy.console_log_days);
    // A stream that resumes after one of these gets stream.reset and reloads (docs/stream.md).
    report.changes_pruned = static_cast<int>(
        tx.exec_params("DELETE FROM changes WHERE created_at < now() - make_interval(hours => $1)",
                       policy.change_hours)
            .affected_rows());
    return report;
  });
}

}  // namespace ironhold::db
