#include "inventory/db/change_listener.hpp"

#include <poll.h>

#include <cerrno>
#include <cstring>
#include <pqxx/pqxx>

#include "inventory/db/change_rows.hpp"
#include "inventory/db/database.hpp"
#include "inventory/error.hpp"

namespace ironhold::db {
namespace {

constexpr const char* changes_channel = "ironhold_changes";

// libpqxx delivers notifications to receivers only. The payload is empty: a notification only
// says "read again".
class ChangeNotificationReceiver final : public pqxx::notification_receiver {
 public:
  ChangeNotificationReceiver(pqxx::connection_base& c, int& count)
      : pqxx::notification_receiver(c, changes_channel), count_(count) {}
  void operator()(const std::string&, int) override { ++count_; }

 private:
  int& count_;
};

// The server says it is ending the session (it was terminated, or is shutting down) with a FATAL
// message that libpq passes on as a notice while the connection is idle. Any command sent after
// it fails, and libpqxx 6.4 leaks the failed command's result: the listener reconnects instead.
class SessionEndWatch final : public pqxx::errorhandler {
 public:
  SessionEndWatch(pqxx::connection_base& c, bool& ended) : pqxx::errorhandler(c), ended_(ended) {}
  bool operator()(const char message[]) noexcept override {
    if (std::strncmp(message, "FATAL", 5) == 0) ended_ = true;
    return true;
  }

 private:
  bool& ended_;
};

[[noreturn]] void lost_connection(const std::string& what) {
  throw Error(ErrorKind::unavailable, "the change feed's database connection failed: " + what);
}

}  // namespace

struct ChangeListener::Impl {
  std::string url;
  std::unique_ptr<pqxx::connection> connection;
  std::unique_ptr<ChangeNotificationReceiver> receiver;
  std::unique_ptr<SessionEndWatch> watch;
  bool session_ended = false;
  int notifications = 0;  // taken in since the last read
};

ChangeListener::ChangeListener(std::string url) : impl_(std::make_unique<Impl>()) {
  impl_->url = std::move(url);
}

ChangeListener::~ChangeListener() {
  disconnect();
}

void ChangeListener::connect() {
  disconnect();
  try {
    // Named in pg_stat_activity, for operators (and tests) to tell it from the pool: by the
    // service ("<instance> listen", in the URL it gives), else here. A startup parameter, not a
    // SET: nothing of the session to restore on a reconnection.
    impl_->connection = std::make_unique<pqxx::connection>(
        with_application_name(impl_->url, "ironhold change feed"));
    impl_->session_ended = false;
    impl_->watch = std::make_unique<SessionEndWatch>(*impl_->connection, impl_->session_ended);
    // Sends LISTEN now: a change committed from here on wakes wait().
    impl_->receiver =
        std::make_unique<ChangeNotificationReceiver>(*impl_->connection, impl_->notifications);
  } catch (const std::exception& e) {
    disconnect();
    lost_connection(e.what());
  }
}

void ChangeListener::disconnect() noexcept {
  // Closed first: a receiver that goes while its connection looks open sends UNLISTEN, and on a
  // connection the server already dropped libpqxx 6.4 leaks that command's result.
  if (impl_->connection) impl_->connection->disconnect();
  impl_->receiver.reset();  // before the connection they are registered with
  impl_->watch.reset();
  impl_->connection.reset();
}

bool ChangeListener::connected() const noexcept {
  return impl_->connection && impl_->connection->is_open() && !impl_->session_ended;
}

void ChangeListener::wait(int wake_fd, std::chrono::milliseconds timeout) {
  if (!connected()) lost_connection("not connected");
  try {
    // A notification that came during the last read was taken off the socket with the read's
    // results, and sits in libpq: polling the socket would not see it.
    impl_->connection->get_notifs();
  } catch (const std::exception& e) {
    lost_connection(e.what());
  }
  if (impl_->notifications > 0) return;
  pollfd fds[2] = {{impl_->connection->sock(), POLLIN, 0}, {wake_fd, POLLIN, 0}};
  const int ready = ::poll(fds, 2, static_cast<int>(timeout.count()));
  if (ready < 0 && errno != EINTR) lost_connection(std::string("poll: ") + std::strerror(errno));
  if (ready <= 0 || !fds[0].revents) return;
  try {
    // Consumes what arrived: notifications, or the end of a connection the server closed.
    impl_->connection->get_notifs();
  } catch (const std::exception& e) {
    lost_connection(e.what());
  }
  if (!connected()) lost_connection("the server closed the connection");
}

ChangeListener::Window ChangeListener::read(ChangePosition from, int limit) {
  if (!connected()) lost_connection("not connected");
  Window window;
  try {
    // Takes in what the server sent first: the news that it ended the session, if it did, and
    // the notifications this read answers (its snapshot is younger than they are).
    impl_->connection->get_notifs();
    if (impl_->session_ended) lost_connection("the server ended the session");
    impl_->notifications = 0;
    // The watermark first, then the rows in a later statement: every transaction of this
    // database below the watermark had ended when it was computed, so a snapshot taken after it
    // (READ COMMITTED: one per statement) holds every change below it, and none can come later.
    pqxx::transaction<pqxx::read_committed, pqxx::read_only> tx(*impl_->connection);
    window.watermark = tx.exec1("SELECT change_watermark()::text")[0].as<std::uint64_t>();
    const std::string mark = std::to_string(window.watermark);
    for (const auto& r :
         tx.exec_params(std::string("SELECT ") + change_columns +
                            " FROM changes WHERE (xid, id) >= ($1::xid8, $2::bigint)"
                            "   AND xid < $3::xid8 ORDER BY xid, id LIMIT $4",
                        std::to_string(from.xid), from.id, mark, limit))
      window.rows.push_back(change_from_row(r));
    window.full = static_cast<int>(window.rows.size()) >= limit;
    window.held_back =
        !tx.exec_params("SELECT 1 FROM changes WHERE xid >= $1::xid8 LIMIT 1", mark).empty();
    tx.commit();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    lost_connection(e.what());
  }
  return window;
}

}  // namespace ironhold::db
