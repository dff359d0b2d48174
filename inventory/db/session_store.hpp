#pragma once
// Console sessions (migrations 0009, 0015): a browser signs in with an API token, or with a user's
// name and password, and gets a session whose secret is a cookie; only the secret's SHA-256 is
// stored. A session acts as its token or its user; it lasts while the token is valid (or the user
// exists), it is used at least every `idle` and for at most `lifetime`, and until it is signed
// out. Housekeeping (run_maintenance) removes old ones.
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
  // What it acts as: the token it was opened with, or the user who signed in with a password.
  std::optional<TokenInfo> token;
  std::optional<std::string> user_id, user_name;
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
  CreatedSession create_for_user(const std::string& user_id, std::string_view peer,
                                 std::string_view user_agent);
  // The live session whose cookie is `secret` (its token still valid), refreshing its last use
  // at most once a minute; nothing for anything else.
  std::optional<ConsoleSession> authenticate(std::string_view secret);
  // Ends a session (signing out); false when it had ended already.
  bool end(const std::string& id);

  const SessionLimits& limits() const { return limits_; }

 private:
  enum class Owner { token, user };
  CreatedSession open(Owner owner, const std::string& owner_id, std::string_view peer,
                      std::string_view user_agent);

  Database& db_;
  SessionLimits limits_;
};

// The cookie value format: "ihs_" and 43 base64url characters (256 random bits).
bool looks_like_session_secret(std::string_view secret);

}  // namespace ironhold::db
