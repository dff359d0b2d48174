#include "inventory/db/session_store.hpp"

#include <array>

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/db/token_rows.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"

namespace ironhold::db {
namespace {

constexpr std::string_view session_marker = "ihs_";
constexpr std::size_t session_secret_length = 4 + 43;

std::string random_text(std::string_view marker) {
  std::array<std::uint8_t, 32> bytes{};
  crypto::random_bytes(bytes);
  return std::string(marker) + crypto::base64url(bytes);
}

// Text a client sent, kept for people to read: printable ASCII only, at most `max` characters.
std::string printable(std::string_view text, std::size_t max) {
  std::string out;
  for (const char c : text.substr(0, max)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

// A session's row with its token's (null columns for a user's session) and its user's.
const std::string session_columns =
    "s.id, s.csrf_token, rfc3339(s.created_at), "
    "rfc3339(s.expires_at), u.id, u.name, " +
    token_columns_of("t");
const std::string session_joins =
    " FROM console_sessions s LEFT JOIN api_tokens t ON t.id = s.token_id "
    "LEFT JOIN users u ON u.id = s.user_id";

ConsoleSession console_session_from_row(const pqxx::row& r) {
  ConsoleSession s;
  s.id = r[0].as<std::string>();
  s.csrf_token = r[1].as<std::string>();
  s.created_at = r[2].as<std::string>();
  s.expires_at = r[3].as<std::string>();
  s.user_id = optional_text(r[4]);
  s.user_name = optional_text(r[5]);
  if (!r[6].is_null()) s.token = token_from_row(r, 6);
  return s;
}

}  // namespace

bool looks_like_session_secret(std::string_view secret) {
  return secret.size() == session_secret_length &&
         secret.substr(0, session_marker.size()) == session_marker;
}

CreatedSession SessionStore::create(const TokenInfo& token, std::string_view peer,
                                    std::string_view user_agent) {
  return open(Owner::token, token.id, peer, user_agent);
}

CreatedSession SessionStore::create_for_user(const std::string& user_id, std::string_view peer,
                                             std::string_view user_agent) {
  return open(Owner::user, user_id, peer, user_agent);
}

CreatedSession SessionStore::open(Owner owner, const std::string& owner_id, std::string_view peer,
                                  std::string_view user_agent) {
  CreatedSession created;
  created.secret = random_text(session_marker);
  const std::string csrf = random_text("");
  const bool by_user = owner == Owner::user;
  // One statement checks that the owner still exists; a session never outlives its token.
  created.session = transact(db_, [&](pqxx::work& tx) {
    auto r = tx.exec_params(
        "WITH s AS (INSERT INTO console_sessions "
        "  (secret_hash, csrf_token, token_id, user_id, peer, user_agent, expires_at) "
        "  SELECT decode($1, 'hex'), $2, t.id, u.id, $4, $5, "
        "         least(now() + make_interval(secs => $6), coalesce(t.expires_at, 'infinity')) "
        "    FROM (SELECT $3::uuid AS id) o "
        "    LEFT JOIN api_tokens t ON NOT $7::boolean AND t.id = o.id "
        "    LEFT JOIN users u ON $7::boolean AND u.id = o.id "
        "   WHERE t.id IS NOT NULL OR u.id IS NOT NULL "
        "  RETURNING *) "
        "SELECT " +
            session_columns +
            " FROM s LEFT JOIN api_tokens t ON t.id = s.token_id "
            "LEFT JOIN users u ON u.id = s.user_id",
        crypto::sha256_hex(created.secret), csrf, owner_id, printable(peer, 64),
        printable(user_agent, 256), static_cast<double>(limits_.lifetime.count()),
        by_user ? "true" : "false");
    if (r.empty())
      throw not_found(by_user ? "the user has gone: sign in again"
                              : "the token has gone: sign in again");
    return console_session_from_row(r[0]);
  });
  return created;
}

std::optional<ConsoleSession> SessionStore::authenticate(std::string_view secret) {
  if (!looks_like_session_secret(secret)) return std::nullopt;
  return transact(db_, [&](pqxx::work& tx) -> std::optional<ConsoleSession> {
    // last_seen_at is refreshed at most once a minute so that reads do not all become writes.
    auto r = tx.exec_params(
        "WITH live AS (SELECT s.id" + session_joins +
            "  WHERE s.secret_hash = decode($1, 'hex') AND s.ended_at IS NULL "
            "    AND s.expires_at > now() AND s.last_seen_at > now() - make_interval(secs => $2) "
            "    AND (u.id IS NOT NULL OR (t.id IS NOT NULL AND t.revoked_at IS NULL "
            "         AND (t.expires_at IS NULL OR t.expires_at > now())))), "
            "touched AS (UPDATE console_sessions SET last_seen_at = now() "
            "  WHERE id IN (SELECT id FROM live) AND last_seen_at < now() - interval '1 minute') "
            "SELECT " +
            session_columns + session_joins + " WHERE s.id IN (SELECT id FROM live)",
        crypto::sha256_hex(secret), static_cast<double>(limits_.idle.count()));
    if (r.empty()) return std::nullopt;
    return console_session_from_row(r[0]);
  });
}

bool SessionStore::end(const std::string& id) {
  return transact(db_, [&](pqxx::work& tx) {
    return tx.exec_params(
                 "UPDATE console_sessions SET ended_at = now() "
                 "WHERE id = $1::uuid AND ended_at IS NULL",
                 id)
               .affected_rows() == 1;
  });
}

}  // namespace ironhold::db
