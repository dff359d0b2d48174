#include "web/auth/oidc_bearer.hpp"

#include <algorithm>

#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"

namespace ironhold::web::auth {

bool looks_like_jwt(std::string_view secret) {
  return !secret.starts_with("ih_") && std::count(secret.begin(), secret.end(), '.') == 2;
}

BearerPrincipal oidc_bearer_principal(OidcService& oidc, db::UserStore& users,
                                      std::string_view token) {
  if (!oidc.provider.config().bearer_tokens)
    throw Error(ErrorKind::unauthenticated,
                "this server does not accept the identity provider's tokens as Bearer tokens "
                "(oidc.bearer_tokens is false): use an API token");
  const std::string hash = crypto::sha256_hex(token);
  if (auto cached = oidc.bearer_cache.find(hash)) return {std::move(*cached), false, {}};
  const auto claims = oidc.provider.verify_bearer(token);
  const OidcPerson person = person_of(oidc.provider.config(), claims);
  const auto signed_in =
      users.sign_in_external(person.identity, grants_for(oidc.roles, person.role_values, false));
  BearerPrincipal out;
  out.principal.name = signed_in.user.name;
  out.principal.user_id = signed_in.user.id;
  out.principal.permissions = Permissions::of(users.grants_of(signed_in.user.id));
  out.first_use = signed_in.created;
  out.external_id = person.identity.external_id;
  // check_claims has made sure "exp" is a number.
  const auto exp = std::chrono::system_clock::time_point(
      std::chrono::seconds(static_cast<long long>(claims.all["exp"].get<double>())));
  oidc.bearer_cache.put(hash, out.principal, exp);
  return out;
}

}  // namespace ironhold::web::auth
