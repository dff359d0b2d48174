#include "inventory/db/user_store.hpp"

#include "inventory/db/node_rows.hpp"
#include "inventory/db/prepared.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/db/savepoint.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"
#include "inventory/model/node.hpp"

namespace ironhold::db {
namespace {

const std::string user_columns =
    "u.id, u.name, u.created_by, rfc3339(u.created_at), rfc3339(u.password_changed_at), "
    "rfc3339(u.last_sign_in_at), u.source, u.external_id";

UserInfo user_from_row(const pqxx::row& r) {
  UserInfo u;
  u.id = r[0].as<std::string>();
  u.name = r[1].as<std::string>();
  u.created_by = optional_text(r[2]);
  u.created_at = optional_text(r[3]);
  u.password_changed_at = optional_text(r[4]);
  u.last_sign_in_at = optional_text(r[5]);
  u.source = r[6].as<std::string>();
  u.external_id = optional_text(r[7]);
  if (u.source != "local") u.password_changed_at.reset();
  return u;
}

std::string where_user(std::string_view name_or_id) {
  return is_uuid(std::string(name_or_id)) ? "u.id = $1::uuid" : "u.name = $1";
}

std::vector<Grant> read_grants(pqxx::transaction_base& tx, const std::string& user_id,
                               bool prepared = false) {
  static const HotStatement statement{"grants_of_user",
                                      "SELECT project, role FROM role_grants WHERE user_id = "
                                      "$1::uuid ORDER BY project NULLS FIRST, role"};
  std::vector<Grant> out;
  auto r = exec_hot(tx, prepared, statement, user_id);
  for (const auto& row : r)
    if (auto role = parse_enum<Role>(row[1].c_str())) out.push_back({optional_text(row[0]), *role});
  return out;
}

std::optional<UserInfo> read_user(pqxx::work& tx, std::string_view name_or_id) {
  auto r =
      tx.exec_params("SELECT " + user_columns + " FROM users u WHERE " + where_user(name_or_id),
                     std::string(name_or_id));
  if (r.empty()) return std::nullopt;
  UserInfo u = user_from_row(r[0]);
  u.grants = read_grants(tx, u.id);
  return u;
}

UserInfo existing_user(pqxx::work& tx, std::string_view name_or_id) {
  auto u = read_user(tx, name_or_id);
  if (!u) throw not_found("no user is named \"" + std::string(name_or_id.substr(0, 100)) + "\"");
  return *u;
}

bool valid_user_name(std::string_view name) {
  if (name.empty() || name.size() > 63) return false;
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (!alnum(name.front())) return false;
  for (char c : name)
    if (!alnum(c) && c != '.' && c != '_' && c != '@' && c != '-') return false;
  return !is_uuid(std::string(name));
}

}  // namespace

nlohmann::json to_json(const Grant& grant) {
  return {{"project", json_or_null(grant.project)}, {"role", to_string(grant.role)}};
}

nlohmann::json to_json(const UserInfo& u) {
  nlohmann::json grants = nlohmann::json::array();
  for (const auto& g : u.grants) grants.push_back(to_json(g));
  return {{"id", u.id},
          {"name", u.name},
          {"roles", grants},
          {"created_by", json_or_null(u.created_by)},
          {"created_at", json_or_null(u.created_at)},
          {"password_changed_at", json_or_null(u.password_changed_at)},
          {"last_sign_in_at", json_or_null(u.last_sign_in_at)},
          {"source", u.source},
          {"external_id", json_or_null(u.external_id)}};
}

void check_new_password(std::string_view password) {
  if (password.size() < 10)
    throw unprocessable("a password must have at least 10 characters", "password");
  if (password.size() > 1024)
    throw unprocessable("a password may have at most 1024 characters", "password");
}

UserInfo UserStore::add(const std::string& name, std::string_view password,
                        const std::string& created_by) {
  if (!valid_user_name(name))
    throw unprocessable(
        "a user name is 1 to 63 letters, digits, '.', '_', '@' or '-', starting with a letter or "
        "digit",
        "name");
  check_new_password(password);
  // Hashing is slow on purpose: it happens before the transaction holds a connection.
  const std::string hash = crypto::hash_password(password, hashing_);
  return transact(db_, [&](pqxx::work& tx) {
    try {
      Savepoint insert(tx, "insert_user");
      auto r = tx.exec_params(
          "INSERT INTO users (name, password_hash, created_by) VALUES ($1, $2, $3) RETURNING id",
          name, hash, created_by);
      insert.release();
      return existing_user(tx, r[0][0].as<std::string>());
    } catch (const pqxx::unique_violation&) {
      throw conflict("a user named \"" + name + "\" already exists", "name");
    }
  });
}

UserInfo UserStore::set_password(std::string_view name_or_id, std::string_view password) {
  check_new_password(password);
  const std::string hash = crypto::hash_password(password, hashing_);
  return transact(db_, [&](pqxx::work& tx) {
    UserInfo u = existing_user(tx, name_or_id);
    if (u.source != "local")
      throw conflict("\"" + u.name + "\" signs in through the " + u.source +
                         " directory: their password is the directory's to change",
                     "password");
    tx.exec_params(
        "UPDATE users SET password_hash = $2, password_changed_at = now() WHERE id = $1::uuid",
        u.id, hash);
    tx.exec_params(
        "UPDATE console_sessions SET ended_at = now() WHERE user_id = $1::uuid AND ended_at IS "
        "NULL",
        u.id);
    return existing_user(tx, u.id);
  });
}

UserInfo UserStore::remove(std::string_view name_or_id) {
  return transact(db_, [&](pqxx::work& tx) {
    UserInfo u = existing_user(tx, name_or_id);
    tx.exec_params("DELETE FROM users WHERE id = $1::uuid", u.id);
    return u;
  });
}

std::optional<UserInfo> UserStore::get(std::string_view name_or_id) {
  return transact(db_, [&](pqxx::work& tx) { return read_user(tx, name_or_id); });
}

std::vector<UserInfo> UserStore::list() {
  return transact(db_, [&](pqxx::work& tx) {
    std::vector<UserInfo> out;
    for (const auto& row : tx.exec("SELECT " + user_columns + " FROM users u ORDER BY u.name"))
      out.push_back(user_from_row(row));
    for (auto& u : out) u.grants = read_grants(tx, u.id);
    return out;
  });
}

UserInfo UserStore::grant(std::string_view name_or_id, const Grant& grant,
                          const std::string& granted_by) {
  return transact(db_, [&](pqxx::work& tx) {
    UserInfo u = existing_user(tx, name_or_id);
    if (grant.project &&
        tx.exec_params("SELECT 1 FROM projects WHERE name = $1", *grant.project).empty())
      throw not_found("no project is named \"" + grant.project->substr(0, 100) + "\"");
    tx.exec_params(
        "INSERT INTO role_grants (user_id, project, role, granted_by) "
        "VALUES ($1::uuid, $2, $3, $4) ON CONFLICT DO NOTHING",
        u.id, nullable(grant.project), std::string(to_string(grant.role)), granted_by);
    return existing_user(tx, u.id);
  });
}

UserInfo UserStore::revoke(std::string_view name_or_id, const Grant& grant) {
  return transact(db_, [&](pqxx::work& tx) {
    UserInfo u = existing_user(tx, name_or_id);
    const auto removed = tx.exec_params(
        "DELETE FROM role_grants WHERE user_id = $1::uuid "
        "AND project IS NOT DISTINCT FROM $2 AND role = $3",
        u.id, nullable(grant.project), std::string(to_string(grant.role)));
    if (removed.affected_rows() == 0)
      throw not_found(u.name + " does not hold the role " + std::string(to_string(grant.role)) +
                      (grant.project ? " in project " + *grant.project : " in every project"));
    return existing_user(tx, u.id);
  });
}

std::vector<Grant> UserStore::grants_of(const std::string& user_id) {
  const bool prepared = db_.options().prepared_statements;
  return autocommit(db_,
                    [&](pqxx::transaction_base& tx) { return read_grants(tx, user_id, prepared); });
}

std::optional<UserInfo> UserStore::check_password(std::string_view name,
                                                  std::string_view password) {
  if (name.empty() || name.size() > 63 || password.size() > 1024) return std::nullopt;
  struct Stored {
    std::string id, hash;
  };
  auto stored = transact(db_, [&](pqxx::work& tx) -> std::optional<Stored> {
    auto r =
        tx.exec_params("SELECT id, password_hash FROM users WHERE name = $1 AND source = 'local'",
                       std::string(name));
    if (r.empty()) return std::nullopt;
    return Stored{r[0][0].as<std::string>(), r[0][1].as<std::string>()};
  });
  // An unknown name costs the same hash as a known one (against a throwaway hash), so the
  // answer's timing does not say which names exist.
  static const std::string decoy = crypto::hash_password("not anyone's password", hashing_);
  const bool right = crypto::verify_password(password, stored ? stored->hash : decoy);
  if (!stored || !right) return std::nullopt;
  const std::optional<std::string> rehash =
      crypto::needs_rehash(stored->hash, hashing_)
          ? std::optional<std::string>(crypto::hash_password(password, hashing_))
          : std::nullopt;
  return transact(db_, [&](pqxx::work& tx) -> std::optional<UserInfo> {
    // Only the hash that was checked is replaced: a password changed meanwhile wins.
    tx.exec_params(
        "UPDATE users SET last_sign_in_at = now(), "
        "password_hash = CASE WHEN $3::text IS NOT NULL AND password_hash = $2 THEN $3 "
        "ELSE password_hash END WHERE id = $1::uuid",
        stored->id, stored->hash, nullable(rehash));
    return read_user(tx, stored->id);
  });
}

bool UserStore::is_local(std::string_view name) {
  return transact(db_, [&](pqxx::work& tx) {
    return !tx.exec_params("SELECT 1 FROM users WHERE name = $1 AND source = 'local'",
                           std::string(name))
                .empty();
  });
}

ExternalSignIn UserStore::sign_in_external(const ExternalIdentity& who,
                                           const std::vector<Grant>& grants) {
  if (!valid_user_name(who.name))
    throw Error(ErrorKind::forbidden,
                "the " + who.source + " directory names this person \"" + who.name.substr(0, 100) +
                    "\", which is not a user name here (1 to 63 letters, digits, '.', '_', '@' "
                    "or '-'): ask an admin to map another attribute");
  const std::string marker = "directory:" + who.source;
  return transact(db_, [&](pqxx::work& tx) {
    ExternalSignIn out;
    auto found =
        tx.exec_params("SELECT id FROM users WHERE source = $1 AND external_id = $2 FOR UPDATE",
                       who.source, who.external_id);
    std::string id;
    if (!found.empty()) {
      id = found[0][0].as<std::string>();
    } else {
      // A local account (or another directory's person) of that name is someone else: never
      // merged by name, which anyone able to pick a directory name could otherwise take over.
      if (!tx.exec_params("SELECT 1 FROM users WHERE name = $1", who.name).empty())
        throw conflict("a user named \"" + who.name +
                       "\" already exists here (a local account, or another directory's): an "
                       "admin must remove or rename it before \"" +
                       who.name + "\" can sign in through the " + who.source + " directory");
      id = tx.exec_params1(
                 "INSERT INTO users (name, source, external_id, created_by) "
                 "VALUES ($1, $2, $3, $4) RETURNING id",
                 who.name, who.source, who.external_id, marker)[0]
               .as<std::string>();
      out.created = true;
    }
    // The directory's roles as of now: the ones it gave before go, the ones it gives now come.
    tx.exec_params("DELETE FROM role_grants WHERE user_id = $1::uuid AND granted_by = $2", id,
                   marker);
    for (const auto& g : grants) {
      if (g.project &&
          tx.exec_params("SELECT 1 FROM projects WHERE name = $1", *g.project).empty()) {
        out.unknown_projects.push_back(*g.project);
        continue;
      }
      tx.exec_params(
          "INSERT INTO role_grants (user_id, project, role, granted_by) "
          "VALUES ($1::uuid, $2, $3, $4) ON CONFLICT DO NOTHING",
          id, nullable(g.project), std::string(to_string(g.role)), marker);
    }
    tx.exec_params("UPDATE users SET last_sign_in_at = now() WHERE id = $1::uuid", id);
    out.user = existing_user(tx, id);
    return out;
  });
}

}  // namespace ironhold::db
