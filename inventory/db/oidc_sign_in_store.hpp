#pragma once
// Console sign-ins through OpenID Connect that are under way (migration 0034's oidc_sign_ins):
// begun when the browser is sent to the provider, finished once when it comes back. Only the
// SHA-256 of each state is kept; the PKCE verifier and the nonce are derived from the state under
// a key of this service, so the table holds nothing that would let anyone finish a sign-in.
#include <optional>
#include <string>

#include "inventory/db/database.hpp"

namespace ironhold::db {

class OidcSignInStore {
 public:
  // How long the person has at the provider.
  static constexpr int kLifetimeMinutes = 10;

  explicit OidcSignInStore(Database& db) : db_(db) {}

  // Records a sign-in under way (and forgets those older than kLifetimeMinutes).
  void begin(const std::string& state_hash, const std::string& return_to);
  // The page to return to when the state is one under way and young enough; the sign-in is
  // forgotten either way, so a state works once.
  std::optional<std::string> finish(const std::string& state_hash);

 private:
  Database& db_;
};

}  // namespace ironhold::db
