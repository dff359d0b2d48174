// GET /api/v1/stream: the live change stream, Server-Sent Events. Each change to a node, task,
// firmware rollout or cloud account (whoever made it, on whichever instance) arrives as an event
// named for it (node.updated, task.updated, ...) whose data is the resource as its GET answers;
// Last-Event-ID resumes without loss after a reconnection, on any instance (docs/stream.md).
#include <boost/asio/this_coro.hpp>

#include "inventory/stream/change_feed.hpp"
#include "inventory/stream/change_renderer.hpp"
#include "web/request_context.hpp"
#include "web/routes/routes.hpp"
#include "web/stream/change_stream.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

// The service's change feed and what it renders with. Adopted by the Api: it stops (its thread,
// its subscriptions) once the server has drained, while the database is still there.
class ChangeStreaming {
 public:
  explicit ChangeStreaming(Services& s)
      : store_(s.database),
        renderer_({s.nodes, s.tasks, s.rollouts, s.cloud_accounts, s.alerts}),
        feed_(std::make_shared<stream::ChangeFeed>(
            store_, s.database.listen_url(),
            [this](const db::ChangeRow& change) { return render(change); })) {}
  ~ChangeStreaming() { feed_->stop(); }
  ChangeStreaming(const ChangeStreaming&) = delete;
  ChangeStreaming& operator=(const ChangeStreaming&) = delete;

  const std::shared_ptr<stream::ChangeFeed>& feed() const { return feed_; }

 private:
  std::optional<std::string> render(const db::ChangeRow& change) const {
    auto data = renderer_.render(change);
    if (!data) return std::nullopt;
    // BMCs send text that is not always UTF-8: replaced, never a failed event.
    return data->dump(-1, ' ', false, json::error_handler_t::replace);
  }

  db::ChangeStore store_;
  stream::ChangeRenderer renderer_;
  std::shared_ptr<stream::ChangeFeed> feed_;
};

asio::awaitable<Response> open_stream(ChangeStreaming& streaming, Services& s,
                                      RequestContext& ctx) {
  ctx.only_query({"kinds", "last_event_id"});
  const auto header = ctx.request["Last-Event-ID"];
  StreamRequest request =
      parse_stream_request(std::string_view(header.data(), header.size()),
                           ctx.query_value("last_event_id"), ctx.query_value("kinds"));
  request.scope = ctx.scope(cap_read);
  auto opening = open_change_stream(s, streaming.feed(), std::move(request));
  std::shared_ptr<BodySource> body = co_await std::move(opening);
  // No Content-Length: the server sends the body chunked, as the events come.
  Response res{http::status::ok, ctx.request.version()};
  res.set(http::field::content_type, "text/event-stream");
  res.set(http::field::cache_control, "no-store");
  res.set("X-Accel-Buffering", "no");  // nginx would otherwise hold events back in its buffer
  ctx.body_source = std::move(body);
  co_return res;
}

json stream_parameters() {
  return json::array(
      {{{"name", "kinds"},
        {"in", "query"},
        {"required", false},
        {"description",
         "only these kinds of change, comma-separated: node, task, rollout, cloud_account "
         "(default: all)"},
        {"schema", {{"type", "string"}}}},
       {{"name", "Last-Event-ID"},
        {"in", "header"},
        {"required", false},
        {"description",
         "resume after this event: every change since comes first, then the live ones "
         "(EventSource sends it when it reconnects); an event no longer kept gives stream.reset"},
        {"schema", {{"type", "string"}}}},
       {{"name", "last_event_id"},
        {"in", "query"},
        {"required", false},
        {"description",
         "the same as Last-Event-ID, for clients that cannot set headers; the "
         "header wins"},
        {"schema", {{"type", "string"}}}}});
}

}  // namespace

void register_stream_routes(Api& api) {
  Services& s = api.services();
  auto streaming = std::make_shared<ChangeStreaming>(s);
  api.adopt(streaming);
  ChangeStreaming& c = *streaming;
  api.router().add(
      {http::verb::get,
       "/api/v1/stream",
       Access::viewer,
       [&c, &s](RequestContext& ctx) { return open_stream(c, s, ctx); },
       {"The live change stream (Server-Sent Events): node.updated, node.deleted, task.updated, "
        "rollout.updated, cloud_account.updated and cloud_account.deleted, each with the "
        "resource's JSON as its GET answers (a rollout without its node list), in commit order; "
        "stream.reset when a Last-Event-ID can no longer be resumed from",
        stream_parameters(),
        nullptr,
        200,
        {{"type", "string"},
         {"description",
          "text/event-stream: \"id: <change id>\\nevent: <kind>\\ndata: <JSON>\\n\\n\""
          " per change, and \": keep-alive\" comments"}},
        "text/event-stream"}});
}

}  // namespace ironhold::web
