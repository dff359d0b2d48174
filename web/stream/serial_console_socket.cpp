#include "web/stream/serial_console_socket.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "web/impl/byte_stream.hpp"
#include "web/impl/websocket.hpp"

namespace ironhold::web {

using nlohmann::json;

namespace {

std::string control(const json& message) {
  return message.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string refused(const std::string& reason) {
  return control({{"type", "refused"}, {"reason", reason}});
}

}  // namespace

// What is waiting to go to the viewer. The hub fills it from its strand, the socket's reader from
// the connection's; the writer empties it. `wake` nudges the writer once the socket runs.
struct SerialConsoleSocket::Outbox {
  std::mutex mutex;
  std::vector<std::string> notices;  // control messages, sent before the output
  std::string output;                // the host's bytes not sent yet
  std::optional<std::string> ended;  // the console ended, or the viewer fell behind: why
  bool stopping = false;
  std::optional<std::string> reader_gone;  // the viewer closed or the connection broke: why
  std::function<void()> wake;
  std::size_t max_backlog = 0;

  void add(const std::function<void(Outbox&)>& change) {
    std::function<void()> nudge;
    {
      std::lock_guard lock(mutex);
      change(*this);
      nudge = wake;
    }
    if (nudge) nudge();
  }
};

SerialConsoleSocket::SerialConsoleSocket(http::request_header<> upgrade_request,
                                         SerialConsoleSocketOptions options)
    : request_(std::move(upgrade_request)), options_(options), outbox_(std::make_shared<Outbox>()) {
  outbox_->max_backlog = options_.max_backlog;
}

SerialConsoleSocket::~SerialConsoleSocket() = default;

asio::awaitable<void> SerialConsoleSocket::attach(SerialConsoleHub& hub,
                                                  db::SerialConsoleTarget target,
                                                  std::string principal, bool wants_writer) {
  ConsoleViewer viewer;
  viewer.principal = std::move(principal);
  viewer.wants_writer = wants_writer;
  // The hub may outlive this socket by a moment: the callbacks hold the outbox, not the socket.
  viewer.output = [outbox = outbox_](std::string_view bytes) {
    outbox->add([bytes](Outbox& o) {
      if (o.ended) return;
      if (o.output.size() + bytes.size() > o.max_backlog)
        o.ended = "the viewer did not keep up with the console's output";
      else
        o.output.append(bytes);
    });
  };
  viewer.ended = [outbox = outbox_](const std::string& why) {
    outbox->add([&why](Outbox& o) {
      if (!o.ended) o.ended = why;
    });
  };
  const std::string node_id = target.node_id, node_name = target.node_name;
  auto attaching = hub.attach(std::move(target), std::move(viewer));
  attachment_ = co_await std::move(attaching);
  const std::string hello = control({{"type", "attached"},
                                     {"node_id", node_id},
                                     {"node_name", node_name},
                                     {"writer", attachment_->writer()},
                                     {"session_id", attachment_->session_id()},
                                     {"protocol", attachment_->protocol()}});
  outbox_->add([&hello](Outbox& o) { o.notices.insert(o.notices.begin(), hello); });
}

void SerialConsoleSocket::stop() {
  outbox_->add([](Outbox& o) { o.stopping = true; });
}

asio::awaitable<void> SerialConsoleSocket::run(net::ByteStream& stream) {
  auto self = shared_from_this();  // the server holds the Reply only while this runs
  const auto executor = co_await asio::this_coro::executor;
  net::WebSocketOptions ws_options;
  ws_options.idle_timeout = options_.idle_timeout;
  ws_options.read_message_max = 64 * 1024;  // keys, pasted text at most
  net::WebSocket ws(stream, ws_options);
  const auto accepted = co_await ws.accept(request_);
  if (accepted) {
    const std::string why = "the WebSocket handshake failed: " + accepted.message();
    co_await attachment_->detach(why);
    co_return;
  }
  // The writer sleeps on this timer between messages; anything added to the outbox cancels it.
  timer_ = std::make_shared<asio::steady_timer>(executor);
  outbox_->add([timer = timer_](Outbox& o) {
    o.wake = [timer] { asio::post(timer->get_executor(), [timer] { timer->cancel(); }); };
  });
  asio::co_spawn(executor, read_keys(ws), [outbox = outbox_](std::exception_ptr failure) {
    outbox->add([&failure](Outbox& o) {
      if (!o.reader_gone) o.reader_gone = failure ? "the connection broke" : "closed by the viewer";
    });
  });
  auto writing = write_output(ws);
  const std::string why = co_await std::move(writing);
  // The reader ends with the closing handshake, or with the connection; the WebSocket it reads
  // lives in this frame, so wait for it.
  for (;;) {
    {
      std::lock_guard lock(outbox_->mutex);
      if (outbox_->reader_gone) break;
    }
    timer_->expires_at(asio::steady_timer::time_point::max());
    auto [ignored] = co_await timer_->async_wait(asio::as_tuple(asio::use_awaitable));
    (void)ignored;
  }
  outbox_->add([](Outbox& o) { o.wake = nullptr; });
  co_await attachment_->detach(why);
}

asio::awaitable<void> SerialConsoleSocket::read_keys(net::WebSocket& ws) {
  for (;;) {
    auto message = co_await ws.read();
    if (!message) break;
    std::optional<std::string> refusal;
    if (message->binary) {
      if (!attachment_->writer())
        refusal = "read-only: another viewer has the keyboard";
      else if (!attachment_->write(message->data))
        refusal = "the console did not take the keys (it is ending, or keys came too fast)";
    } else {
      const json request = json::parse(message->data, nullptr, /*allow_exceptions=*/false);
      const std::string type =
          request.is_object() && request.contains("type") && request["type"].is_string()
              ? request["type"].get<std::string>()
              : std::string();
      if (type == "break" && attachment_->writer())
        attachment_->send_break();
      else if (type == "break")
        refusal = "read-only: another viewer has the keyboard";
      else
        refusal =
            "unknown control message: text messages are JSON like {\"type\":\"break\"}; "
            "keys go in binary messages";
    }
    if (refusal) outbox_->add([&refusal](Outbox& o) { o.notices.push_back(refused(*refusal)); });
  }
  const std::string why = ws.peer_close() ? "closed by the viewer" : "the connection broke";
  outbox_->add([&why](Outbox& o) {
    if (!o.reader_gone) o.reader_gone = why;
  });
}

asio::awaitable<std::string> SerialConsoleSocket::write_output(net::WebSocket& ws) {
  for (;;) {
    std::vector<std::string> notices;
    std::string output;
    std::optional<std::string> ended, reader_gone;
    bool stopping = false;
    {
      std::lock_guard lock(outbox_->mutex);
      notices.swap(outbox_->notices);
      output.swap(outbox_->output);
      ended = outbox_->ended;
      stopping = outbox_->stopping;
      reader_gone = outbox_->reader_gone;
    }
    // (Strings are named before co_return and co_await: GCC 12 mishandles temporaries there.)
    const std::string broke = "the connection broke";
    if (reader_gone) co_return *reader_gone;
    for (const auto& notice : notices)
      if (co_await ws.write(notice, /*binary=*/false)) co_return broke;
    if (!output.empty() && co_await ws.write(output, /*binary=*/true)) co_return broke;
    if (ended || stopping) {
      const std::string why = ended ? *ended : std::string("the service is stopping");
      const std::string farewell = control({{"type", "ended"}, {"reason", why}});
      co_await ws.write(farewell, /*binary=*/false);
      co_await ws.close(ended ? 1000 : 1001, why);
      co_return why;
    }
    // Checked again under the lock: a nudge that came while a write was under way found no
    // sleeper to wake.
    {
      std::lock_guard lock(outbox_->mutex);
      if (!outbox_->notices.empty() || !outbox_->output.empty() || outbox_->ended ||
          outbox_->stopping || outbox_->reader_gone)
        continue;
    }
    timer_->expires_at(asio::steady_timer::time_point::max());
    auto [ignored] = co_await timer_->async_wait(asio::as_tuple(asio::use_awaitable));
    (void)ignored;
  }
}

}  // namespace ironhold::web
