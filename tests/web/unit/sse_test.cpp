// The text/event-stream blocks the change stream is made of, and the parsing of what a client asks
// of it (Last-Event-ID, ?kinds=), hostile input included.
#include "web/stream/sse.hpp"

#include <catch2/catch.hpp>

#include "inventory/error.hpp"
#include "web/stream/stream_request.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace sse_test {

using namespace ironhold::web;

TEST_CASE("an SSE event carries its id, type and data, ended by a blank line", "[stream][sse]") {
  CHECK(sse::event("42", "node.updated", R"({"id":"a"})") ==
        "id: 42\nevent: node.updated\ndata: {\"id\":\"a\"}\n\n");
}

TEST_CASE("multi-line data becomes one data: line per line, whatever the line ending",
          "[stream][sse]") {
  CHECK(sse::event("1", "x", "a\nb") == "id: 1\nevent: x\ndata: a\ndata: b\n\n");
  CHECK(sse::event("1", "x", "a\r\nb\rc") == "id: 1\nevent: x\ndata: a\ndata: b\ndata: c\n\n");
  CHECK(sse::event("1", "x", "a\n") == "id: 1\nevent: x\ndata: a\ndata: \n\n");
  CHECK(sse::event("1", "x", "\n\n") == "id: 1\nevent: x\ndata: \ndata: \ndata: \n\n");
  CHECK(sse::event("1", "x", "") == "id: 1\nevent: x\ndata: \n\n");
}

TEST_CASE("a line break in the id or type cannot start a field of its own", "[stream][sse]") {
  CHECK(sse::event("1\nevent: evil", "x\r\ndata: y", "z") ==
        "id: 1 event: evil\nevent: x  data: y\ndata: z\n\n");
  CHECK(sse::comment("a\nb") == ": a b\n\n");
}

TEST_CASE("an id-only block moves the client's last event id, an empty one clears it",
          "[stream][sse]") {
  CHECK(sse::id_only("17") == "id: 17\n\n");
  CHECK(sse::id_only("") == "id\n\n");
  CHECK(sse::comment("keep-alive") == ": keep-alive\n\n");
}

TEST_CASE("Last-Event-ID is a positive decimal change id and nothing else", "[stream][sse]") {
  CHECK(parse_event_id("1") == 1);
  CHECK(parse_event_id("000123") == 123);
  CHECK(parse_event_id("9223372036854775807") == 9223372036854775807LL);
  for (const char* junk : {"", "0", "-1", "+1", " 1", "1 ", "1.5", "1e3", "0x10", "abc", "12a",
                           "9223372036854775808", "99999999999999999999999", "１"})
    CHECK_FALSE(parse_event_id(junk).has_value());
}

TEST_CASE("the Last-Event-ID header wins over the query parameter, junk is a 400 naming it",
          "[stream][sse]") {
  CHECK(parse_stream_request("", std::nullopt, std::nullopt).last_event_id == std::nullopt);
  CHECK(parse_stream_request("", std::string("5"), std::nullopt).last_event_id == 5);
  CHECK(parse_stream_request("7", std::string("5"), std::nullopt).last_event_id == 7);
  CHECK(parse_stream_request("", std::string(""), std::nullopt).last_event_id == std::nullopt);
  try {
    parse_stream_request("abc", std::nullopt, std::nullopt);
    FAIL("junk was accepted");
  } catch (const ironhold::Error& e) {
    CHECK(e.kind() == ironhold::ErrorKind::invalid);
    CHECK(e.field() == "Last-Event-ID");
  }
  try {
    parse_stream_request("", std::string("-3"), std::nullopt);
    FAIL("junk was accepted");
  } catch (const ironhold::Error& e) {
    CHECK(e.field() == "last_event_id");
  }
}

TEST_CASE("?kinds= selects families of events, stream events always go", "[stream][sse]") {
  const auto all = parse_stream_request("", std::nullopt, std::nullopt);
  CHECK(all.wants("node.updated"));
  CHECK(all.wants("cloud_account.deleted"));
  const auto some = parse_stream_request("", std::nullopt, std::string("node, task"));
  CHECK(some.wants("node.updated"));
  CHECK(some.wants("node.deleted"));
  CHECK(some.wants("task.updated"));
  CHECK_FALSE(some.wants("rollout.updated"));
  CHECK_FALSE(some.wants("cloud_account.updated"));
  CHECK(some.wants("stream.reset"));
  for (const char* junk : {"", "node,", "nodes", "node.updated", ",", "node,,task", "NODE"})
    CHECK_THROWS_AS(parse_stream_request("", std::nullopt, std::string(junk)), ironhold::Error);
}

}  // namespace sse_test
