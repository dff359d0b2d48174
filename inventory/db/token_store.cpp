#include "inventory/db/token_store.hpp"

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/node_rows.hpp"
#include "inventory/db/prepared.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/db/savepoint.hpp"
#include "inventory/db/token_rows.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/model/node.hpp"

namespace ironhold::db {
namespace {

constexpr std::string_view token_marker = "ih_";
constexpr std::size_t token_length = 3 + 43;
constexpr std::size_t prefix_length = 10;

const std::string token_columns = token_columns_of("api_tokens");

}  // namespace

std::string generate_token_secret() {
  std::array<std::uint8_t, 32> bytes{};
  crypto::random_bytes(bytes);
  return std::string(token_marker) + crypto::base64url(bytes);
}

bool looks_like_token(std::string_view s) {
  return s.size() == token_length && s.substr(0, token_marker.size()) == token_marker;
}

CreatedToken TokenStore::create(const NewToken& spec) {
  const std::string& name = spec.name;
  if (name.empty() || name.size() > 100)
    throw unprocessable("a token name must be 1 to 100 characters", "name");
  if (!spec.user && !spec.role)
    throw unprocessable("a service token (one without a user) needs a role", "role");
  CreatedToken created;
  created.secret = generate_token_secret();
  created.info = transact(db_, [&](pqxx::work& tx) {
    std::optional<std::string> user_id;
    if (spec.user) {
      auto u = tx.exec_params(std::string("SELECT id FROM users WHERE ") +
                                  (is_uuid(*spec.user) ? "id = $1::uuid" : "name = $1"),
                              *spec.user);
      if (u.empty()) throw not_found("no user is named \"" + spec.user->substr(0, 100) + "\"");
      user_id = u[0][0].as<std::string>();
    }
    if (spec.project &&
        tx.exec_params("SELECT 1 FROM projects WHERE name = $1", *spec.project).empty())
      throw not_found("no project is named \"" + spec.project->substr(0, 100) + "\"");
    const std::optional<std::string> role_text =
        spec.role ? std::optional<std::string>(to_string(*spec.role)) : std::nullopt;
    try {
      Savepoint insert(tx, "insert_token");
      auto r = tx.exec_params(
          std::string("INSERT INTO api_tokens (name, role, token_hash, prefix, created_by, "
                      "expires_at, project, user_id) "
                      "VALUES ($1, $2, decode($3, 'hex'), $4, $5, $6::timestamptz, $7, $8::uuid) "
                      "RETURNING ") +
              token_columns,
          name, nullable(role_text), crypto::sha256_hex(created.secret),
          created.secret.substr(0, prefix_length), spec.created_by, nullable(spec.expires_at),
          nullable(spec.project), nullable(user_id));
      insert.release();
      return token_from_row(r[0]);
    } catch (const pqxx::unique_violation&) {
      throw conflict(
          "an active token named \"" + name + "\" already exists; revoke it or pick another name",
          "name");
    }
  });
  return created;
}

std::optional<TokenInfo> TokenStore::authenticate(std::string_view secret) {
  if (!looks_like_token(secret)) return std::nullopt;
  // One statement, committed on its own: a token's check is part of every API request.
  // last_used_at is refreshed at most once a minute so that reads do not all become writes.
  static const HotStatement statement{
      "authenticate_token",
      "WITH t AS (SELECT id FROM api_tokens WHERE token_hash = decode($1, 'hex') "
      "AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())), "
      "touched AS (UPDATE api_tokens SET last_used_at = now() WHERE id IN (SELECT id FROM t) "
      "AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')) "
      "SELECT " +
          token_columns + " FROM api_tokens WHERE id IN (SELECT id FROM t)"};
  const bool prepared = db_.options().prepared_statements;
  return autocommit(db_, [&](pqxx::transaction_base& tx) -> std::optional<TokenInfo> {
    auto r = exec_hot(tx, prepared, statement, crypto::sha256_hex(secret));
    if (r.empty()) return std::nullopt;
    return token_from_row(r[0]);
  });
}

std::vector<TokenInfo> TokenStore::list(bool include_revoked,
                                        const std::optional<std::string>& user_id) {
  return transact(db_, [&](pqxx::work& tx) {
    std::vector<TokenInfo> out;
    auto r = tx.exec_params(std::string("SELECT ") + token_columns +
                                " FROM api_tokens WHERE ($1::uuid IS NULL OR user_id = $1::uuid)" +
                                (include_revoked ? "" : " AND revoked_at IS NULL") +
                                " ORDER BY created_at, id",
                            nullable(user_id));
    for (const auto& row : r) out.push_back(token_from_row(row));
    return out;
  });
}

std::optional<TokenInfo> TokenStore::get(std::string_view id_or_name) {
  return transact(db_, [&](pqxx::work& tx) -> std::optional<TokenInfo> {
    const std::string key(id_or_name);
    auto r =
        tx.exec_params(std::string("SELECT ") + token_columns + " FROM api_tokens WHERE " +
                           (is_uuid(key) ? "id = $1::uuid" : "name = $1 AND revoked_at IS NULL"),
                       key);
    if (r.empty()) return std::nullopt;
    return token_from_row(r[0]);
  });
}

TokenInfo TokenStore::revoke(std::string_view id_or_name) {
  return transact(db_, [&](pqxx::work& tx) {
    const std::string key(id_or_name);
    auto r = tx.exec_params(
        std::string("UPDATE api_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE ") +
            (is_uuid(key) ? "id = $1::uuid" : "name = $1 AND revoked_at IS NULL") + " RETURNING " +
            token_columns,
        key);
    if (r.empty())
      throw not_found("no active token has the id or name \"" + key.substr(0, 100) + "\"");
    return token_from_row(r[0]);
  });
}

}  // namespace ironhold::db
