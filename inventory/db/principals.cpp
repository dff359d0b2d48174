#include "inventory/db/principals.hpp"

namespace ironhold::db {

Principal principal_of_token(const TokenInfo& token, const std::vector<Grant>& user_grants) {
  Principal p;
  p.token_id = token.id;
  p.token_name = token.name;
  if (token.user_id) {
    p.name = token.user_name.value_or(token.name);
    p.user_id = token.user_id;
    p.permissions = Permissions::of(user_grants).narrowed(token.project, token.role);
    return p;
  }
  p.name = token.name;
  if (token.role) p.permissions.add({token.project, *token.role});
  return p;
}

std::optional<Principal> authenticate_token(TokenStore& tokens, UserStore& users,
                                            std::string_view secret) {
  const auto token = tokens.authenticate(secret);
  if (!token) return std::nullopt;
  const std::vector<Grant> grants =
      token->user_id ? users.grants_of(*token->user_id) : std::vector<Grant>{};
  return principal_of_token(*token, grants);
}

Principal principal_of_session(const ConsoleSession& session, UserStore& users) {
  if (session.token) {
    const std::vector<Grant> grants =
        session.token->user_id ? users.grants_of(*session.token->user_id) : std::vector<Grant>{};
    return principal_of_token(*session.token, grants);
  }
  Principal p;
  p.name = session.user_name.value_or("unknown");
  p.user_id = session.user_id;
  if (session.user_id) p.permissions = Permissions::of(users.grants_of(*session.user_id));
  return p;
}

}  // namespace ironhold::db
