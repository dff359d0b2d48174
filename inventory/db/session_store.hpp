#pragma once
// Console sessions (migration 0009): a browser signs in with an API token and gets a session
// whose secret is a cookie; only the secret's SHA-256 is stored. A session acts with its token's
// role and lasts while the token is valid, it is used at least every `idle` and for at most
// `lifetime`, and until it is signed out. Housekeeping (run_maintenance) removes old ones.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "inventory/db/database.hpp"
#include "inventory/db/token_store.hpp"

namespace ironhold::db {

struct SessionLimits {
  std::chrono::seconds idle{2 * 3600};
  std::chrono::seconds lifetime{12 * 3600};
};

struct ConsoleSession {
  std::string id;
  TokenInfo token;         // what it acts as
  std::string csrf_token;  // required in X-CSRF-Token on its mutating requests
  std::string created_at, expires_at;
};

struct CreatedSession {
  ConsoleSession session;
  std::string secret;  // the cookie's value: given once, never stored
};

class SessionStore {
 public:
  explicit SessionStore(Database& db, SessionLimits limits = {}) : db_(db), limits_(limits) {}

  // A new session for a token that authenticated; `peer` and `user_agent` are kept for the
  // audit trail (cut to a sensible length).
  CreatedSession create(const TokenInfo& token, std::string_view peer, std::string_view user_agent);
  // The live session whose cookie is `secret` (its token still valid), refreshing its last use
  // at most once a minute; nothing for anything else.
  std::optional<ConsoleSession> authenticate(std::string_view secret);
  // Ends a session (signing out); false when it had ended already.
  bool end(const std::string& id);

  const SessionLimits& limits() const { return limits_; }

 private:
  Database& db_;
  SessionLimits limits_;
};

// The cookie value format: "ihs_" and 43 base64url characters (256 random bits).
bool looks_like_session_secret(std::string_view secret);

}  // namespace ironhold::db
