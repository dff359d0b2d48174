#pragma once
// Scripts that hold a JWT access token from the organisation's OpenID Connect provider send it
// as Authorization: Bearer, like an API token. It is checked against the issuer's keys (its
// signature, iss, aud, exp), and acts as its user here: made at first use, with grants from the
// roles claim replaced as at a console sign-in.
#include <string_view>

#include "inventory/db/user_store.hpp"
#include "inventory/model/access.hpp"
#include "web/auth/oidc_service.hpp"

namespace ironhold::web::auth {

// Whether a Bearer secret is a JWT (three dot-separated parts) rather than an API token
// ("ih_...").
bool looks_like_jwt(std::string_view secret);

struct BearerPrincipal {
  Principal principal;
  bool first_use = false;  // the user was made by this token
  std::string external_id;
};

// Throws Error: unauthenticated (saying what was wrong with the token), unavailable (the provider
// cannot be reached for its keys), forbidden or conflict (the token's user cannot be a user here).
BearerPrincipal oidc_bearer_principal(OidcService& oidc, db::UserStore& users,
                                      std::string_view token);

}  // namespace ironhold::web::auth
