#pragma once
// Failed sign-ins per source, in PostgreSQL so that every instance counts the same: a source that
// fails `free_failures` times within `window` is blocked for `first_block`, doubling with every
// further failure up to `max_block`. A success clears the source.
#include <chrono>
#include <optional>
#include <string>

#include "inventory/db/database.hpp"

namespace ironhold::db {

struct ThrottlePolicy {
  int free_failures = 5;
  std::chrono::seconds window{15 * 60};
  std::chrono::seconds first_block{30};
  std::chrono::seconds max_block{15 * 60};
};

class SignInThrottle {
 public:
  explicit SignInThrottle(Database& db, ThrottlePolicy policy = {}) : db_(db), policy_(policy) {}

  // How long the source stays blocked; nothing when it may try now.
  std::optional<std::chrono::seconds> blocked_for(const std::string& source);
  // Counts a failure; returns how long the source is blocked now (nothing: not yet).
  std::optional<std::chrono::seconds> record_failure(const std::string& source);
  void record_success(const std::string& source);
  // Forgets sources whose last failure is older than the window (housekeeping); how many.
  long long prune();

  const ThrottlePolicy& policy() const { return policy_; }

 private:
  Database& db_;
  ThrottlePolicy policy_;
};

}  // namespace ironhold::db
