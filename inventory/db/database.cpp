#include "inventory/db/database.hpp"

#include <cctype>

#include "inventory/db/transaction.hpp"

namespace ironhold::db {

Database::Database(DatabaseOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  if (impl_->options.pool_size < 1) impl_->options.pool_size = 1;
  // Connect once up front so a wrong URL fails at start-up with a clear message, not on first use.
  impl_->release(impl_->acquire());
}

Database::~Database() = default;

const DatabaseOptions& Database::options() const noexcept {
  return impl_->options;
}

std::string Database::listen_url() const {
  const auto& o = impl_->options;
  return with_application_name(o.listen_url.empty() ? o.url : o.listen_url,
                               o.listen_application_name);
}

// Appended as a parameter rather than parsed and rebuilt (which would need libpq's own parser):
// a URI takes it as a query parameter, a key=value string as one more pair. A URL that mentions
// an application name already keeps its own.
std::string with_application_name(const std::string& url, const std::string& name) {
  if (name.empty() || url.find("application_name") != std::string::npos) return url;
  const bool uri = url.starts_with("postgresql://") || url.starts_with("postgres://");
  if (uri) {
    std::string encoded;
    for (unsigned char c : name) {
      if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
        encoded += static_cast<char>(c);
      } else {
        static constexpr char hex[] = "0123456789ABCDEF";
        encoded += '%';
        encoded += hex[c >> 4];
        encoded += hex[c & 15];
      }
    }
    return url + (url.find('?') == std::string::npos ? "?" : "&") +
           "fallback_application_name=" + encoded;
  }
  std::string quoted = "'";
  for (char c : name) {
    if (c == '\\' || c == '\'') quoted += '\\';
    quoted += c;
  }
  quoted += "'";
  return url + (url.empty() ? "" : " ") + "fallback_application_name=" + quoted;
}

bool Database::ping() noexcept {
  try {
    Lease lease(*this);
    try {
      pqxx::nontransaction tx(*lease);
      tx.exec1("SELECT 1");
      return true;
    } catch (...) {
      lease.discard();
      return false;
    }
  } catch (...) {
    return false;
  }
}

std::unique_ptr<pqxx::connection> Database::Impl::connect() {
  try {
    auto connection = std::make_unique<pqxx::connection>(
        with_application_name(options.url, options.application_name));
    // Node rows carry their timestamps as PostgreSQL writes them (db/node_rows.cpp), which is the
    // ISO form only under DateStyle ISO: the server's default, but a server may set another.
    // (PgBouncer keeps DateStyle per client, so this holds behind it too.)
    connection->set_variable("DateStyle", "ISO");
    return connection;
  } catch (const std::exception& e) {
    throw Error(ErrorKind::unavailable, std::string("cannot connect to PostgreSQL: ") + e.what());
  }
}

std::unique_ptr<pqxx::connection> Database::Impl::acquire() {
  std::unique_lock lock(mutex);
  returned.wait(lock, [&] { return !idle.empty() || open < options.pool_size; });
  if (!idle.empty()) {
    auto connection = std::move(idle.back());
    idle.pop_back();
    if (connection->is_open()) return connection;
    --open;
  }
  ++open;
  lock.unlock();
  try {
    return connect();
  } catch (...) {
    lock.lock();
    --open;
    returned.notify_one();
    throw;
  }
}

void Database::Impl::release(std::unique_ptr<pqxx::connection> connection) {
  std::lock_guard lock(mutex);
  if (connection && connection->is_open())
    idle.push_back(std::move(connection));
  else
    --open;
  returned.notify_one();
}

void rethrow_database_error(const std::exception& e) {
  if (auto* sql = dynamic_cast<const pqxx::sql_error*>(&e)) {
    // 23505 unique_violation: the caller usually maps this to a 409 itself; this is the fallback.
    if (sql->sqlstate() == "23505")
      throw Error(ErrorKind::conflict,
                  std::string("conflicts with an existing record: ") + e.what());
  }
  if (dynamic_cast<const pqxx::broken_connection*>(&e))
    throw Error(ErrorKind::unavailable,
                std::string("the database connection was lost: ") + e.what());
  if (dynamic_cast<const pqxx::in_doubt_error*>(&e))
    throw Error(ErrorKind::unavailable,
                std::string("the database connection was lost during commit; the change may or may "
                            "not have been applied: ") +
                    e.what());
  throw Error(ErrorKind::internal, std::string("database error: ") + e.what());
}

}  // namespace ironhold::db
