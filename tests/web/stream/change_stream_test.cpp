// GET /api/v1/stream over real HTTP on loopback, against real PostgreSQL: changes arrive as events
// with the resource's JSON, a reconnection with Last-Event-ID gets exactly what it missed (also
// when transactions commit out of id order), a pruned id gives stream.reset, another instance
// sees the same changes, ?kinds= filters, and a stop ends open streams.
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <catch2/catch.hpp>
#include <future>
#include <pqxx/pqxx>

#include "inventory/db/change_listener.hpp"
#include "inventory/db/change_store.hpp"
#include "inventory/db/maintenance.hpp"
#include "tests/web/stream/stream_helpers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace change_stream_test {

using namespace ironhold;
using namespace ironhold::test;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

// The changes after `start` once no older transaction holds them back. Another writer of the
// service (its start-up housekeeping) may still be finishing: wait for it, do not time it.
db::ChangeListener::Window read_settled(db::ChangeListener& reader, db::ChangePosition start) {
  for (int attempt = 0;; ++attempt) {
    auto window = reader.read(start, 100);
    if (!window.held_back || attempt == 600) return window;
    std::this_thread::sleep_for(100ms);
  }
}

}  // namespace

TEST_CASE("the stream needs a token like every route", "[stream]") {
  auto server = quiet_server();
  const auto res = http_get(server->port(), "/api/v1/stream", std::nullopt);
  CHECK(res.status == 401);
  CHECK(res.header("content-type") == "application/problem+json");
  CHECK(http_get(server->port(), "/api/v1/stream", "not-a-token").status == 401);
}

TEST_CASE("a change arrives as an event named for it, carrying the resource as its GET answers",
          "[stream]") {
  auto server = quiet_server();
  const auto viewer = server->token("viewer");
  const auto admin = server->token("admin");
  SseClient stream(server->port(), "/api/v1/stream", viewer);
  REQUIRE(stream.status() == 200);
  CHECK(stream.header("content-type") == "text/event-stream");
  CHECK(stream.header("cache-control") == "no-store");
  CHECK(stream.header("x-accel-buffering") == "no");
  CHECK(stream.header("transfer-encoding") == "chunked");
  CHECK(stream.header("content-length").empty());

  const std::string id = enroll_node(*server, admin, "gpu-s01");
  const auto created = stream.next();
  CHECK(created.type == "node.updated");
  CHECK_FALSE(created.id.empty());
  CHECK(created.json() == get_json(*server, viewer, "/api/v1/nodes/" + id));

  patch_node(*server, admin, id, {{"maintenance", true}, {"maintenance_reason", "PSU swap"}});
  const auto updated = stream.next();
  CHECK(updated.type == "node.updated");
  CHECK(updated.json()["maintenance"] == true);
  CHECK(updated.json() == get_json(*server, viewer, "/api/v1/nodes/" + id));
  CHECK(updated.id != created.id);

  // A task: its creation (and, with an engine, each step saved) is task.updated.
  const auto power = http_send(server->port(), "POST", "/api/v1/nodes/" + id + "/power",
                               {{"action", "on"}}, admin);
  INFO(power.body);
  REQUIRE(power.status == 202);
  const std::string task_id = power.json()["id"];
  const auto task = stream.next();
  CHECK(task.type == "task.updated");
  CHECK(task.json() == get_json(*server, viewer, "/api/v1/tasks/" + task_id));

  // Retired, then purged: the purge is node.deleted with the id alone.
  REQUIRE(http_send(server->port(), "DELETE", "/api/v1/nodes/" + id, nullptr, admin).status == 204);
  const auto retired = stream.next();
  CHECK(retired.type == "node.updated");
  CHECK(retired.json()["lifecycle"] == "retired");
  REQUIRE(http_send(server->port(), "DELETE", "/api/v1/nodes/" + id + "?purge=true", nullptr, admin)
              .status == 204);
  const auto deleted = stream.next();
  CHECK(deleted.type == "node.deleted");
  CHECK(deleted.json() == json{{"id", id}});
  CHECK(stream.last_event_id() == deleted.id);
}

TEST_CASE("a poll that only says the node is still there is no event", "[stream]") {
  auto server = quiet_server();
  const auto viewer = server->token("viewer");
  const auto admin = server->token("admin");
  const std::string id = enroll_node(*server, admin, "gpu-s02");
  SseClient stream(server->port(), "/api/v1/stream", viewer);
  // What the poller writes on every contact with a node that is fine.
  server->database().execute(
      "UPDATE nodes SET last_seen = now(), last_inspected = now(), "
      "reachable = reachable WHERE id = '" +
      id + "'");
  patch_node(*server, admin, id, {{"tags", {{"marker", "after"}}}});
  const auto next = stream.next();
  CHECK(next.json()["tags"]["marker"] == "after");  // the touch before it made no event
}

TEST_CASE("after a reconnection with Last-Event-ID exactly the missed events come, in order",
          "[stream]") {
  auto server = quiet_server();
  const auto viewer = server->token("viewer");
  const auto admin = server->token("admin");
  const std::string id = enroll_node(*server, admin, "gpu-s03");
  SseClient reference(server->port(), "/api/v1/stream", viewer);  // never disconnects
  auto client = std::make_unique<SseClient>(server->port(), "/api/v1/stream", viewer);

  patch_node(*server, admin, id, {{"tags", {{"step", "0"}}}});
  const auto first = client->next();
  REQUIRE(first.type == "node.updated");
  const std::string resume_after = client->last_event_id();
  CHECK(resume_after == first.id);
  client.reset();  // the client goes away

  for (int step = 1; step <= 5; ++step)
    patch_node(*server, admin, id, {{"tags", {{"step", std::to_string(step)}}}});
  enroll_node(*server, admin, "gpu-s03b");
  // The last change is a node no earlier event can show (events carry the current state).
  enroll_node(*server, admin, "sentinel");
  const auto is_sentinel = [](const SseEvent& e) { return e.json()["name"] == "sentinel"; };

  const auto expected = reference.until(is_sentinel);
  REQUIRE(expected.size() == 8);  // step 0, steps 1-5, two enrollments
  REQUIRE(expected.front().id == first.id);
  const std::vector<SseEvent> missed(expected.begin() + 1, expected.end());

  SseClient resumed(server->port(), "/api/v1/stream", viewer, {{"Last-Event-ID", resume_after}});
  REQUIRE(resumed.status() == 200);
  CHECK(ids_of(resumed.until(is_sentinel)) == ids_of(missed));

  // The same through the query parameter, for clients that cannot set the header.
  SseClient by_query(server->port(), "/api/v1/stream?last_event_id=" + resume_after, viewer);
  CHECK(ids_of(by_query.until(is_sentinel)) == ids_of(missed));

  // And nothing is repeated once live: the next change is the next event.
  patch_node(*server, admin, id, {{"tags", {{"step", "after"}}}});
  const auto live = resumed.next();
  CHECK(live.json()["tags"]["step"] == "after");
  CHECK(live.id == reference.next().id);
}

TEST_CASE("a fresh stream gets the last change's id, so that an early reconnection loses nothing",
          "[stream]") {
  auto server = quiet_server();
  const auto viewer = server->token("viewer");
  const auto admin = server->token("admin");
  SseClient reference(server->port(), "/api/v1/stream", viewer);
  const std::string id = enroll_node(*server, admin, "gpu-s04");
  const std::string enrolled = reference.next().id;

  // Connects, receives no event, goes away: it still knows where it stands.
  auto early = std::make_unique<SseClient>(server->port(), "/api/v1/stream", viewer);
  early->until_comment("connected");
  const std::string known = early->last_event_id();
  CHECK(known == enrolled);
  early.reset();

  patch_node(*server, admin, id, {{"maintenance", true}});
  SseClient resumed(server->port(), "/api/v1/stream", viewer, {{"Last-Event-ID", known}});
  const auto missed = resumed.next();
  CHECK(missed.json()["maintenance"] == true);
  CHECK(missed.id == reference.next().id);
}

TEST_CASE("a transaction that took the lower id but commits last is delivered, none lost",
          "[stream]") {
  auto server = quiet_server();
  const auto viewer = server->token("viewer");
  const auto admin = server->token("admin");
  const std::string a = enroll_node(*server, admin, "gpu-a");
  const std::string b = enroll_node(*server, admin, "gpu-b");
  const std::string c = enroll_node(*server, admin, "gpu-c");
  SseClient stream(server->port(), "/api/v1/stream", viewer);
  stream.until_comment("connected");

  // The reader's view, asked directly at each step (the feed reads the same way).
  db::ChangeStore store(server->host().database());
  const db::ChangePosition start{store.watermark(), 0};
  db::ChangeListener reader(server->database().url());
  reader.connect();
  pqxx::connection first(server->database().url()), second(server->database().url());
  const auto set_maintenance = [](pqxx::work& tx, const std::string& node, bool on) {
    tx.exec("UPDATE nodes SET maintenance = " + std::string(on ? "true" : "false") +
            " WHERE id = '" + node + "'");
  };

  SECTION("the same order of transactions and ids: the lower id commits last") {
    pqxx::work t1(first);
    set_maintenance(t1, a, true);  // the lower id
    pqxx::work t2(second);
    set_maintenance(t2, b, true);
    t2.commit();
    // "id > the last id seen" would deliver b now and skip a for good; the watermark holds b.
    const auto held = reader.read(start, 100);
    CHECK(held.rows.empty());
    CHECK(held.held_back);
    t1.commit();
    const auto both = read_settled(reader, start);
    REQUIRE(both.rows.size() == 2);
    CHECK(both.rows[0].resource_id == a);
    CHECK(both.rows[1].resource_id == b);
    CHECK_FALSE(both.held_back);

    const auto ea = stream.next();
    const auto eb = stream.next();
    CHECK(ea.json()["id"] == a);
    CHECK(eb.json()["id"] == b);
    CHECK(std::stoll(ea.id) < std::stoll(eb.id));
  }

  SECTION("transactions in another order than their ids: resuming goes by position") {
    pqxx::work t1(first);
    t1.exec("SELECT pg_current_xact_id()");  // the older transaction
    pqxx::work t2(second);
    set_maintenance(t2, c, true);  // takes the lower id
    set_maintenance(t1, a, true);  // takes the higher id
    t1.commit();
    t2.commit();  // the lower id commits last

    const auto ea = stream.next();
    const auto ec = stream.next();
    CHECK(ea.json()["id"] == a);
    CHECK(ec.json()["id"] == c);
    CHECK(std::stoll(ea.id) > std::stoll(ec.id));
    // Resuming after the first delivered (the higher id) still gives the lower id after it.
    SseClient resumed(server->port(), "/api/v1/stream", viewer, {{"Last-Event-ID", ea.id}});
    CHECK(resumed.next().id == ec.id);
  }
}

TEST_CASE("a Last-Event-ID no longer kept gives stream.reset, then live changes", "[stream]") {
  auto server = quiet_server();
  const auto viewer = server->token("viewer");
  const auto admin = server->token("admin");
  const std::string id = enroll_node(*server, admin, "gpu-s05");
  std::string gone;
  {
    SseClient stream(server->port(), "/api/v1/stream", viewer);
    patch_node(*server, admin, id, {{"tags", {{"n", "1"}}}});
    gone = stream.next().id;
  }
  // A day later, housekeeping prunes it.
  server->database().execute("UPDATE changes SET created_at = now() - interval '25 hours'");
  const auto report = db::run_maintenance(server->host().database(), {});
  CHECK(report.changes_pruned >= 2);

  SseClient resumed(server->port(), "/api/v1/stream", viewer, {{"Last-Event-ID", gone}});
  REQUIRE(resumed.status() == 200);
  const auto reset = resumed.next();
  CHECK(reset.type == "stream.reset");
  CHECK(reset.json()["last_event_id"] == gone);
  CHECK(reset.json()["reason"].get<std::string>().find("no longer kept") != std::string::npos);
  CHECK(resumed.last_event_id().empty());  // nothing is kept to resume after

  patch_node(*server, admin, id, {{"tags", {{"n", "2"}}}});
  const auto live = resumed.next();
  CHECK(live.type == "node.updated");
  CHECK(live.json()["tags"]["n"] == "2");
}

TEST_CASE("a Last-Event-ID or kinds that is not one is a 400 naming it", "[stream]") {
  auto server = quiet_server();
  const auto viewer = server->token("viewer");
  HttpRequest junk_id;
  junk_id.target = "/api/v1/stream";
  junk_id.token = viewer;
  junk_id.headers["Last-Event-ID"] = "12; DROP TABLE changes";
  const auto bad_id = http_request(server->port(), junk_id);
  CHECK(bad_id.status == 400);
  CHECK(bad_id.json()["detail"].get<std::string>().find("Last-Event-ID") != std::string::npos);
  CHECK(http_get(server->port(), "/api/v1/stream?kinds=nodes", viewer).status == 400);
  CHECK(http_get(server->port(), "/api/v1/stream?kind=node", viewer).status == 400);
  // An id that is well-formed but was never sent is a reset, not an error.
  SseClient unknown(server->port(), "/api/v1/stream", viewer, {{"Last-Event-ID", "999999999"}});
  CHECK(unknown.next().type == "stream.reset");
}

TEST_CASE("a change made through one instance reaches a stream on another", "[stream]") {
  auto a = quiet_server();
  SecondInstance b(*a);
  const auto viewer = a->token("viewer");  // tokens live in the shared database
  const auto admin = a->token("admin");
  SseClient on_b(b.port(), "/api/v1/stream", viewer);
  REQUIRE(on_b.status() == 200);

  const std::string id = enroll_node(*a, admin, "gpu-s06");
  const auto created = on_b.next();
  CHECK(created.type == "node.updated");
  CHECK(created.json()["id"] == id);
  patch_node(*a, admin, id, {{"maintenance", true}});
  const auto updated = on_b.next();
  CHECK(updated.json()["maintenance"] == true);

  // And the ids are the deployment's, not the instance's: B's id resumes on A.
  patch_node(*a, admin, id, {{"maintenance", false}});
  SseClient on_a(a->port(), "/api/v1/stream", viewer, {{"Last-Event-ID", updated.id}});
  CHECK(on_a.next().id == on_b.next().id);
}

TEST_CASE("?kinds= sends only the kinds asked for", "[stream]") {
  auto server = quiet_server();
  const auto viewer = server->token("viewer");
  const auto admin = server->token("admin");
  SseClient tasks_only(server->port(), "/api/v1/stream?kinds=task", viewer);
  REQUIRE(tasks_only.status() == 200);
  const std::string id = enroll_node(*server, admin, "gpu-s07");
  patch_node(*server, admin, id, {{"tags", {{"pool", "batch"}}}});
  const auto power = http_send(server->port(), "POST", "/api/v1/nodes/" + id + "/power",
                               {{"action", "off"}}, admin);
  INFO(power.body);
  REQUIRE(power.status == 202);
  // Both node changes came first and were left out.
  const auto first = tasks_only.next();
  CHECK(first.type == "task.updated");
  CHECK(first.json()["id"] == power.json()["id"]);
}

TEST_CASE("an HTTP/1.0 client gets the stream unchunked, ended by the connection's close",
          "[stream]") {
  auto server = quiet_server();
  const auto viewer = server->token("viewer");
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket socket(io);
  socket.connect({boost::asio::ip::make_address("127.0.0.1"), server->port()});
  const std::string request =
      "GET /api/v1/stream HTTP/1.0\r\nAuthorization: Bearer " + viewer + "\r\n\r\n";
  boost::asio::write(socket, boost::asio::buffer(request));
  std::string received;
  char piece[4096];
  while (received.find(": connected\n\n") == std::string::npos) {
    const auto n = socket.read_some(boost::asio::buffer(piece));
    received.append(piece, n);
  }
  CHECK(received.rfind("HTTP/1.0 200", 0) == 0);
  CHECK(received.find("Transfer-Encoding") == std::string::npos);
  CHECK(received.find("Content-Length") == std::string::npos);
  server->stop();
  boost::system::error_code ec;
  while (!ec) received.append(piece, socket.read_some(boost::asio::buffer(piece), ec));
  CHECK(ec == boost::asio::error::eof);
}

TEST_CASE("stopping the service ends open streams cleanly and does not wait on them", "[stream]") {
  auto server = quiet_server();
  const auto viewer = server->token("viewer");
  SseClient stream(server->port(), "/api/v1/stream", viewer);
  stream.until_comment("connected");
  SseClient resuming(server->port(), "/api/v1/stream?kinds=node", viewer);
  auto stopping = std::async(std::launch::async, [&server] { server->stop(); });
  CHECK(stream.ends_cleanly());
  CHECK(resuming.ends_cleanly());
  // Far below the ten-second grace period a hung stream would need: a cap, not a measurement.
  REQUIRE(stopping.wait_for(60s) == std::future_status::ready);
}

}  // namespace change_stream_test
