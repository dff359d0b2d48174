#include "inventory/db/backup_target.hpp"

#include <memory>
#include <pqxx/pqxx>

#include "inventory/error.hpp"
#include "inventory/util/concat.hpp"

namespace ironhold::db {
namespace {

std::unique_ptr<pqxx::connection> connect(const std::string& url) {
  try {
    return std::make_unique<pqxx::connection>(url);
  } catch (const std::exception& e) {
    throw Error(ErrorKind::unavailable, std::string("cannot connect to the database: ") + e.what());
  }
}

// Runs `body` in one transaction; a database error becomes an ironhold::Error saying what failed.
template <typename Body>
void in_transaction(const std::string& url, const std::string& what, Body&& body) {
  auto c = connect(url);
  try {
    pqxx::work tx(*c);
    tx.exec0("SET LOCAL client_min_messages = warning");  // no notice per object CASCADE drops
    body(tx, *c);
    tx.commit();
  } catch (const pqxx::sql_error& e) {
    throw Error(ErrorKind::unavailable, "cannot " + what + ": " + e.what());
  }
}

std::vector<DatabaseSession> other_sessions(pqxx::transaction_base& tx) {
  // Client backends only: autovacuum and the like come and go on their own, and run as no user.
  // Other roles' sessions show their user and application but not their type (nor their start,
  // nor their client) to a role without pg_read_all_stats.
  const auto rows = tx.exec(
      "SELECT pid, coalesce(usename::text, ''), coalesce(application_name, ''), "
      "CASE WHEN backend_type IS NULL THEN '' ELSE coalesce(host(client_addr), 'local') END, "
      "coalesce(to_char(backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), '') "
      "FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
      "AND usesysid IS NOT NULL AND coalesce(backend_type, 'client backend') = 'client backend' "
      "ORDER BY pid");
  std::vector<DatabaseSession> sessions;
  for (const auto& r : rows)
    sessions.push_back({r[0].as<int>(), r[1].as<std::string>(), r[2].as<std::string>(),
                        r[3].as<std::string>(), r[4].as<std::string>()});
  return sessions;
}

}  // namespace

DatabaseFacts inspect_database(const std::string& url) {
  auto c = connect(url);
  try {
    pqxx::read_transaction tx(*c);
    DatabaseFacts facts;
    const auto who = tx.exec_params1(
        "SELECT current_database(), current_user, current_setting('server_version_num')::int, "
        "to_regclass('public.schema_migrations') IS NOT NULL, "
        "EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1), "
        "(SELECT count(*) FROM pg_class k JOIN pg_namespace n ON n.oid = k.relnamespace "
        " WHERE n.nspname = 'public' AND k.relkind IN ('r', 'p', 'v', 'm', 'S', 'f'))",
        set_aside_schema);
    facts.database = who[0].as<std::string>();
    facts.user = who[1].as<std::string>();
    facts.server_major = who[2].as<int>() / 10000;
    facts.set_aside_exists = who[4].as<bool>();
    facts.relations = who[5].as<long long>();
    if (who[3].as<bool>())
      for (const auto& r : tx.exec("SELECT name FROM public.schema_migrations ORDER BY name"))
        facts.migrations.push_back(r[0].as<std::string>());
    facts.sessions = other_sessions(tx);
    return facts;
  } catch (const pqxx::sql_error& e) {
    throw Error(ErrorKind::unavailable, std::string("cannot inspect the database: ") + e.what());
  }
}

std::vector<std::string> missing_roles(const std::string& url,
                                       const std::vector<std::string>& roles) {
  auto c = connect(url);
  try {
    pqxx::read_transaction tx(*c);
    std::vector<std::string> missing;
    for (const auto& role : roles)
      if (tx.exec_params("SELECT 1 FROM pg_roles WHERE rolname = $1", role).empty())
        missing.push_back(role);
    return missing;
  } catch (const pqxx::sql_error& e) {
    throw Error(ErrorKind::unavailable, std::string("cannot look up roles: ") + e.what());
  }
}

void set_public_aside(const std::string& url) {
  in_transaction(
      url, "set the current schema aside for the restore", [](pqxx::work& tx, pqxx::connection& c) {
        tx.exec0(std::string("ALTER SCHEMA public RENAME TO ") + c.quote_name(set_aside_schema));
        tx.exec0("CREATE SCHEMA public");
        tx.exec0("GRANT USAGE ON SCHEMA public TO PUBLIC");
      });
}

void drop_set_aside(const std::string& url) {
  in_transaction(url, util::concat("drop schema ", set_aside_schema),
                 [](pqxx::work& tx, pqxx::connection& c) {
                   tx.exec0("DROP SCHEMA " + c.quote_name(set_aside_schema) + " CASCADE");
                 });
}

void put_public_back(const std::string& url) {
  in_transaction(url, util::concat("put schema ", set_aside_schema, " back as public"),
                 [](pqxx::work& tx, pqxx::connection& c) {
                   tx.exec0("DROP SCHEMA IF EXISTS public CASCADE");
                   tx.exec0(std::string("ALTER SCHEMA ") + c.quote_name(set_aside_schema) +
                            " RENAME TO public");
                 });
}

}  // namespace ironhold::db
