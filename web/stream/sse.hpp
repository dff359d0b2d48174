#pragma once
// The text/event-stream format (HTML Living Standard, "Server-sent events"): pure functions that
// build the blocks a stream is made of.
#include <string>
#include <string_view>

namespace ironhold::web::sse {

// "id: 42\nevent: node.updated\ndata: {...}\n\n". Every line of `data` goes on a data: line of its
// own (a line break inside a field would end it); the client joins them with "\n" again.
std::string event(std::string_view id, std::string_view type, std::string_view data);
// An id and no data: the client's last event id moves (its Last-Event-ID on reconnection) without
// an event being dispatched. An empty id clears it.
std::string id_only(std::string_view id);
// A comment, which clients ignore: the keep-alive that lets proxies and clients notice a dead
// connection.
std::string comment(std::string_view text);

}  // namespace ironhold::web::sse
