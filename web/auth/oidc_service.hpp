#pragma once
// Everything sign-in through OpenID Connect needs, in one place for the routes and the Bearer
// check: the provider, how its claim values become roles, the key that derives each sign-in's
// PKCE verifier and nonce from its state, the sign-ins under way, and the principals of Bearer
// JWTs already checked.
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "inventory/crypto/keyed_digest.hpp"
#include "inventory/db/oidc_sign_in_store.hpp"
#include "inventory/db/user_store.hpp"
#include "inventory/model/access.hpp"
#include "inventory/model/role_mapping.hpp"
#include "web/auth/oidc_provider.hpp"

namespace ironhold::web::auth {

// Principals of Bearer JWTs already checked, by the token's SHA-256, until the token expires or
// a minute has passed (whichever is first): a script's every request would otherwise write the
// user's grants again. A minute bounds how long a role the provider took away still works.
class BearerPrincipalCache {
 public:
  static constexpr std::size_t kMaxEntries = 4096;
  static constexpr std::chrono::seconds kMaxAge{60};

  std::optional<Principal> find(const std::string& token_hash);
  void put(const std::string& token_hash, Principal principal,
           std::chrono::system_clock::time_point token_expiry);

 private:
  struct Entry {
    Principal principal;
    std::chrono::system_clock::time_point until;
  };
  std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
};

// Who the provider says a person is, in this service's terms.
struct OidcPerson {
  db::ExternalIdentity identity;         // source "oidc", external_id "<issuer> <subject>"
  std::vector<std::string> role_values;  // the roles claim's values
};

// Reads the user name (username_claim) and role values (roles_claim: a string or an array of
// strings) from verified claims. Throws Error(forbidden) when the user name claim is missing or
// not a string, saying which claim to configure.
OidcPerson person_of(const OidcConfig& config, const crypto::jose::Claims& claims);

struct OidcService {
  OidcService(OidcConfig config, std::vector<RoleMapping> roles, const crypto::Key& master_key,
              db::Database& db)
      : provider(std::move(config)),
        roles(std::move(roles)),
        secrets(master_key, "ironhold oidc sign-in v1"),
        sign_ins(db) {}

  // The PKCE verifier and the nonce of the sign-in with this state (64 hex digits each: a
  // verifier may be 43 to 128 unreserved characters).
  std::string code_verifier(const std::string& state) const { return secrets.hex("pkce " + state); }
  std::string nonce(const std::string& state) const { return secrets.hex("nonce " + state); }

  OidcProvider provider;
  std::vector<RoleMapping> roles;
  crypto::KeyedDigest secrets;
  db::OidcSignInStore sign_ins;
  BearerPrincipalCache bearer_cache;
};

}  // namespace ironhold::web::auth
