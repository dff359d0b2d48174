// Serial console sessions and output in a real PostgreSQL: the node's BMC as a driver target with
// its credentials opened, sessions opened and closed once, output kept byte for byte (any bytes,
// long bursts split) and read back in order after a point or a time, and the retention that
// database maintenance keeps.
#include "inventory/db/serial_console_store.hpp"

#include <catch2/catch.hpp>

#include "inventory/db/maintenance.hpp"
#include "tests/inventory/db/store_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace serial_console_store_test {

using namespace ironhold;

namespace {

struct Fixture : ironhold::test::StoreFixture {
  db::SerialConsoleStore consoles{db, box};
};

std::string joined(const std::vector<db::SerialConsoleChunk>& chunks) {
  std::string out;
  for (const auto& c : chunks) out += c.data;
  return out;
}

}  // namespace

TEST_CASE("a node's console target is its BMC with the credentials opened",
          "[db][serial_console]") {
  Fixture f;
  const std::string node = f.enroll("gpu-01");
  const auto target = f.consoles.target(node);
  REQUIRE(target);
  CHECK(target->node_name == "gpu-01");
  CHECK(target->project == "default");
  CHECK(target->driver == "redfish");
  CHECK_FALSE(target->cloud);
  CHECK_FALSE(target->retired);
  CHECK(target->target.node_id == node);
  REQUIRE(target->target.credentials);
  CHECK(target->target.credentials->username == "u");
  CHECK(target->target.credentials->password == "p");
  CHECK(target->target.endpoint.host == "127.0.0.2");
  CHECK_FALSE(f.consoles.target("00000000-0000-4000-8000-000000000000"));
}

TEST_CASE("console sessions are recorded with who, writer, bytes and how long",
          "[db][serial_console]") {
  Fixture f;
  const std::string node = f.enroll("gpu-02");
  const long long a = f.consoles.open_session(node, "default", "alice", true, "ipmi-sol");
  const long long b = f.consoles.open_session(node, "default", "bob", false, "ipmi-sol");
  f.database.execute(
      "UPDATE serial_console_sessions SET opened_at = now() - interval '90 seconds' "
      "WHERE id = " +
      std::to_string(a));
  f.consoles.close_session(a, "closed by the viewer", 12, 3400);
  f.consoles.close_session(a, "a second close changes nothing", 99, 99);
  const auto sessions = f.consoles.sessions(node, 10);
  REQUIRE(sessions.size() == 2);
  const auto& open = sessions[0].id == b ? sessions[0] : sessions[1];
  const auto& closed = sessions[0].id == a ? sessions[0] : sessions[1];
  CHECK(open.principal == "bob");
  CHECK_FALSE(open.writer);
  CHECK_FALSE(open.closed_at);
  CHECK(closed.principal == "alice");
  CHECK(closed.writer);
  CHECK(closed.end_reason == "closed by the viewer");
  CHECK(closed.bytes_in == 12);
  CHECK(closed.bytes_out == 3400);
  REQUIRE(closed.duration_seconds);
  CHECK(*closed.duration_seconds >= 89.0);
  CHECK(*closed.duration_seconds < 120.0);
}

TEST_CASE("console output is kept byte for byte and read back in order", "[db][serial_console]") {
  Fixture f;
  const std::string node = f.enroll("gpu-03");
  const std::string binary("\x1b[0m\x00\xff\r\nlogin: ", 14);
  f.consoles.append(node, "BIOS v1\r\n");
  f.consoles.append(node, "");
  f.consoles.append(node, binary);
  const std::string burst(150'000, 'x');  // longer than one row holds
  f.consoles.append(node, burst);
  const auto all = f.consoles.log(node, 0, std::nullopt, 100);
  REQUIRE(all.size() == 5);  // the burst in three rows, the empty append none
  CHECK(joined(all) == "BIOS v1\r\n" + binary + burst);
  for (std::size_t i = 1; i < all.size(); ++i) CHECK(all[i].seq > all[i - 1].seq);
  // After a point: what came since.
  const auto after = f.consoles.log(node, all[1].seq, std::nullopt, 100);
  CHECK(joined(after) == burst);
  // Limits page through it.
  CHECK(f.consoles.log(node, 0, std::nullopt, 2).size() == 2);
  // Another node's log is its own.
  const std::string other = f.enroll("gpu-04");
  CHECK(f.consoles.log(other, 0, std::nullopt, 100).empty());
}

TEST_CASE("console output and ended sessions older than the retention go", "[db][serial_console]") {
  Fixture f;
  const std::string node = f.enroll("gpu-05");
  f.consoles.append(node, "old line\r\n");
  f.consoles.append(node, "new line\r\n");
  f.database.execute(
      "UPDATE serial_console_log SET at = now() - interval '8 days' "
      "WHERE convert_from(data, 'UTF8') LIKE 'old%'");
  const long long ended = f.consoles.open_session(node, "default", "alice", true, "ipmi-sol");
  f.consoles.close_session(ended, "closed", 0, 0);
  f.database.execute("UPDATE serial_console_sessions SET closed_at = now() - interval '8 days'");
  const long long open = f.consoles.open_session(node, "default", "bob", true, "ipmi-sol");
  f.database.execute(
      "UPDATE serial_console_sessions SET opened_at = now() - interval '9 days' "
      "WHERE id = " +
      std::to_string(open));
  db::RetentionPolicy policy;
  policy.console_log_days = 7;
  CHECK(db::run_maintenance(f.db, policy).console_log_pruned == 1);
  CHECK(joined(f.consoles.log(node, 0, std::nullopt, 100)) == "new line\r\n");
  const auto left = f.consoles.sessions(node, 10);
  REQUIRE(left.size() == 1);  // a session still open stays, however old
  CHECK(left[0].id == open);
  // `since` reads by time.
  CHECK(f.consoles.log(node, 0, std::string("2999-01-01T00:00:00Z"), 100).empty());
}

}  // namespace serial_console_store_test
