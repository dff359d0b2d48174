// Sign-in throttling in PostgreSQL: free failures, then a block that doubles up to its cap; a new
// window after a quiet one; a success clears the source; sources are counted apart.
#include "inventory/db/sign_in_throttle.hpp"

#include <catch2/catch.hpp>

#include "tests/support/test_database.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace sign_in_throttle_test {

using namespace ironhold;
using namespace std::chrono_literals;
using ironhold::test::TestDatabase;

TEST_CASE("failed sign-ins block a source after the free ones, doubling up to the cap",
          "[db][throttle]") {
  TestDatabase database;
  db::Database db{db::DatabaseOptions{.url = database.url(), .pool_size = 1}};
  db::ThrottlePolicy policy;
  policy.free_failures = 3;
  policy.first_block = 10s;
  policy.max_block = 35s;
  db::SignInThrottle throttle(db, policy);
  const std::string source = "peer:192.0.2.10";

  CHECK_FALSE(throttle.record_failure(source));
  CHECK_FALSE(throttle.record_failure(source));
  CHECK_FALSE(throttle.blocked_for(source));
  CHECK(throttle.record_failure(source) == 10s);
  CHECK(throttle.record_failure(source) == 20s);
  CHECK(throttle.record_failure(source) == 35s);  // 40 s, capped
  const auto left = throttle.blocked_for(source);
  REQUIRE(left);
  CHECK(*left <= 35s);
  CHECK(*left > 30s);
  CHECK_FALSE(throttle.blocked_for("peer:192.0.2.11"));  // another source is not blocked

  throttle.record_success(source);
  CHECK_FALSE(throttle.blocked_for(source));
  CHECK_FALSE(throttle.record_failure(source));  // counting starts over

  // A failure after a quiet window starts a new one.
  CHECK_FALSE(throttle.record_failure(source));
  database.execute("UPDATE sign_in_failures SET window_start = now() - interval '1 hour'");
  CHECK_FALSE(throttle.record_failure(source));
  CHECK(database.execute("SELECT failures FROM sign_in_failures WHERE source = '" + source + "'") ==
        "1");
  CHECK(throttle.prune() == 0);
  database.execute("UPDATE sign_in_failures SET window_start = now() - interval '1 hour'");
  CHECK(throttle.prune() == 1);
}

}  // namespace sign_in_throttle_test
