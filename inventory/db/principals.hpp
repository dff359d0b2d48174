#pragma once
// Who a credential acts as: the principal of a token (a service token's one role, or its user's
// roles narrowed to the token's project and role) or of a console session. The user's grants are
// read at every request, so that a revoked role stops working at once, also for existing tokens.
#include <optional>
#include <string_view>

#include "inventory/db/session_store.hpp"
#include "inventory/db/token_store.hpp"
#include "inventory/db/user_store.hpp"
#include "inventory/model/access.hpp"

namespace ironhold::db {

Principal principal_of_token(const TokenInfo& token, const std::vector<Grant>& user_grants);

// nullopt when the secret is not a valid token.
std::optional<Principal> authenticate_token(TokenStore& tokens, UserStore& users,
                                            std::string_view secret);
// The principal of a live session (its token's, or its user's).
Principal principal_of_session(const ConsoleSession& session, UserStore& users);

}  // namespace ironhold::db
