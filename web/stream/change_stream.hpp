#pragma once
// The body of GET /api/v1/stream: Server-Sent Events, one per change, written out by the server as
// the change feed delivers them. A client that resumes (Last-Event-ID) first gets what it missed,
// read from the database page by page at the pace it reads, then the live changes; the two meet at
// the position the feed had fanned out to when the client subscribed, so nothing is lost or sent
// twice.
#include <chrono>
#include <memory>

#include "inventory/stream/change_feed.hpp"
#include "web/body_stream.hpp"
#include "web/services.hpp"
#include "web/stream/stream_request.hpp"

namespace ironhold::web {

struct ChangeStreamOptions {
  // A comment this often when nothing else is sent, so that proxies keep the connection and the
  // client notices a dead one.
  std::chrono::milliseconds keep_alive{15'000};
  int catch_up_page = 200;  // changes read from the database at a time when resuming
};

// Finds where the client resumes, subscribes it to the feed and returns the body. The first piece
// of the body says where the client stands: after a Last-Event-ID that is no longer kept, a
// stream.reset event; for a new client, the id of the last change (so that a reconnection before
// any event still resumes without loss). Throws Error(unavailable) when the database is down.
asio::awaitable<std::shared_ptr<BodySource>> open_change_stream(
    Services& services, std::shared_ptr<stream::ChangeFeed> feed, StreamRequest request,
    ChangeStreamOptions options = {});

}  // namespace ironhold::web
