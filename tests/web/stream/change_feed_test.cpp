// The change feed against real PostgreSQL, below the HTTP layer: a subscriber that does not keep
// up is dropped with its memory freed and reads what it missed from the database; a feed whose
// connection is killed reconnects and delivers what was committed meanwhile.
#include "inventory/stream/change_feed.hpp"

#include <catch2/catch.hpp>
#include <condition_variable>
#include <mutex>
#include <pqxx/pqxx>
#include <thread>

#include "inventory/db/change_store.hpp"
#include "inventory/db/database.hpp"
#include "inventory/util/concat.hpp"
#include "tests/support/test_database.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace change_feed_test {

using namespace ironhold;
using namespace std::chrono_literals;

namespace {

// What the feed's thread signals, for the test to wait on (never to time).
class Signals {
 public:
  std::function<void()> wake() {
    return [this] {
      std::lock_guard lock(mutex_);
      ++count_;
      changed_.notify_all();
    };
  }
  // Waits until `done` holds, re-checking at each wake-up; false after the cap.
  bool wait(const std::function<bool()>& done) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, 60s, [&] { return done(); });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int count_ = 0;
};

std::string insert_node(test::TestDatabase& database, const std::string& name) {
  return database.execute("INSERT INTO nodes (name, source, driver) VALUES ('" + name +
                          "', 'bmc', 'redfish') RETURNING id");
}

// Renders a change as its resource id: the feed does not care what the data is.
std::optional<std::string> resource_of(const db::ChangeRow& row) {
  return row.resource_id;
}

std::vector<std::string> data_of(const std::vector<stream::ChangeEventPtr>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(e->data ? *e->data : "");
  return out;
}

}  // namespace

TEST_CASE("a subscriber that does not keep up is dropped and catches up from the database",
          "[stream]") {
  test::TestDatabase database;
  db::Database db({database.url(), 2});
  db::ChangeStore store(db);
  stream::ChangeFeedOptions options;
  options.max_queue = 3;
  stream::ChangeFeed feed(store, database.url(), resource_of, options);
  Signals signals;
  const auto slow =
      feed.subscribe([](const ironhold::db::ChangeRow&) { return true; }, signals.wake());

  std::vector<std::string> nodes;
  for (int i = 0; i < 6; ++i)
    nodes.push_back(insert_node(database, ironhold::util::concat("n", std::to_string(i))));
  REQUIRE(signals.wait([&] { return slow.subscription->dropped(); }));
  CHECK(slow.subscription->take().empty());  // its queue is gone, not growing

  // Subscribing again gives the new frontier: what lies before it is read in pages, what comes
  // after it arrives live; together, every change once, in order.
  const auto again =
      feed.subscribe([](const ironhold::db::ChangeRow&) { return true; }, signals.wake());
  CHECK(again.frontier > slow.frontier);
  std::vector<std::string> received;
  db::ChangePosition after{slow.frontier.xid, slow.frontier.id - 1};
  for (;;) {
    const auto page = feed.between(after, again.frontier, 4);
    for (const auto& d : data_of(page)) received.push_back(d);
    if (page.size() < 4) break;
    after = page.back()->row.position;
  }
  REQUIRE(signals.wait([&] {
    for (const auto& d : data_of(again.subscription->take())) received.push_back(d);
    return received.size() >= nodes.size();
  }));
  CHECK(received == nodes);
  feed.stop();
  CHECK(again.subscription->closed());
}

TEST_CASE("a feed whose connection is killed reconnects and loses nothing", "[stream]") {
  test::TestDatabase database;
  db::Database db({database.url(), 2});
  db::ChangeStore store(db);
  stream::ChangeFeedOptions options;
  options.reconnect_delay = 50ms;
  options.poll_interval = 60s;  // only a NOTIFY or the reconnection wakes it
  stream::ChangeFeed feed(store, database.url(), resource_of, options);
  Signals signals;
  const auto subscriber =
      feed.subscribe([](const ironhold::db::ChangeRow&) { return true; }, signals.wake());
  std::vector<std::string> received;
  const auto receive = [&](std::size_t count) {
    return signals.wait([&] {
      for (const auto& d : data_of(subscriber.subscription->take())) received.push_back(d);
      return received.size() >= count;
    });
  };
  const std::string first = insert_node(database, "before");
  REQUIRE(receive(1));

  pqxx::connection admin(database.superuser_url());
  pqxx::nontransaction tx(admin);
  const auto killed = tx.exec(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
      "WHERE application_name = 'ironhold change feed' AND datname = current_database()");
  REQUIRE(killed.size() == 1);
  // Committed while the feed has no connection: its NOTIFY reaches nobody.
  const std::string second = insert_node(database, "meanwhile");
  REQUIRE(receive(2));
  CHECK(received == std::vector<std::string>{first, second});
}

}  // namespace change_feed_test
