#include "inventory/db/sign_in_throttle.hpp"

#include <cmath>

#include "inventory/db/transaction.hpp"

namespace ironhold::db {
namespace {

std::optional<std::chrono::seconds> seconds_left(const pqxx::field& f) {
  if (f.is_null()) return std::nullopt;
  const double left = f.as<double>();
  if (left <= 0) return std::nullopt;
  return std::chrono::seconds(static_cast<long long>(std::ceil(left)));
}

}  // namespace

std::optional<std::chrono::seconds> SignInThrottle::blocked_for(const std::string& source) {
  return transact(db_, [&](pqxx::work& tx) -> std::optional<std::chrono::seconds> {
    const auto rows = tx.exec_params(
        "SELECT extract(epoch FROM blocked_until - now()) FROM sign_in_failures WHERE source = $1",
        source);
    if (rows.empty()) return std::nullopt;
    return seconds_left(rows[0][0]);
  });
}

std::optional<std::chrono::seconds> SignInThrottle::record_failure(const std::string& source) {
  const auto& p = policy_;
  return transact(db_, [&](pqxx::work& tx) {
    // A failure after the window starts a new one. Past the free failures, the block doubles with
    // each failure (2^n computed in SQL, capped before it can overflow).
    const auto row = tx.exec_params1(
        "INSERT INTO sign_in_failures AS f (source, failures, window_start) VALUES ($1, 1, now()) "
        "ON CONFLICT (source) DO UPDATE SET "
        "  failures = CASE WHEN f.window_start < now() - $2 * interval '1 second' THEN 1 "
        "                  ELSE f.failures + 1 END, "
        "  window_start = CASE WHEN f.window_start < now() - $2 * interval '1 second' THEN now() "
        "                      ELSE f.window_start END "
        "RETURNING failures",
        source, static_cast<long long>(p.window.count()));
    const int failures = row[0].as<int>();
    if (failures < p.free_failures) return std::optional<std::chrono::seconds>();
    const int doublings = std::min(failures - p.free_failures, 20);
    const auto block =
        std::min<std::chrono::seconds>(p.first_block * (1LL << doublings), p.max_block);
    tx.exec_params0(
        "UPDATE sign_in_failures SET blocked_until = now() + $2 * interval '1 second' "
        "WHERE source = $1",
        source, static_cast<long long>(block.count()));
    return std::optional<std::chrono::seconds>(block);
  });
}

void SignInThrottle::record_success(const std::string& source) {
  transact(db_, [&](pqxx::work& tx) {
    tx.exec_params0("DELETE FROM sign_in_failures WHERE source = $1", source);
  });
}

long long SignInThrottle::prune() {
  return transact(db_, [&](pqxx::work& tx) {
    return static_cast<long long>(
        tx.exec_params("DELETE FROM sign_in_failures WHERE window_start < now() - $1 * interval "
                       "'1 second' AND (blocked_until IS NULL OR blocked_until < now())",
                       static_cast<long long>(policy_.window.count()))
            .affected_rows());
  });
}

}  // namespace ironhold::db
