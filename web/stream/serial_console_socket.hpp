#pragma once
// The viewer's end of a node's serial console (GET /api/v1/nodes/{id}/console): a WebSocket whose
// binary messages carry the bytes both ways (the host's output to the viewer, keystrokes to the
// host) and whose text messages are JSON control messages (docs/serial-console.md):
//   to the viewer:  {"type":"attached", ...}  {"type":"refused","reason":...}
//                   {"type":"ended","reason":...} (then the close frame)
//   from the viewer: {"type":"break"}
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "inventory/console/serial_console_hub.hpp"
#include "web/connection_upgrade.hpp"
#include "web/http.hpp"

namespace ironhold::net {
class WebSocket;
}

namespace ironhold::web {

struct SerialConsoleSocketOptions {
  // Output a viewer has not taken yet, past which it is cut off rather than holding memory for a
  // stalled client.
  std::size_t max_backlog = 4u << 20;
  std::chrono::seconds idle_timeout{60};
};

class SerialConsoleSocket final : public ConnectionUpgrade,
                                  public std::enable_shared_from_this<SerialConsoleSocket> {
 public:
  struct Outbox;

  SerialConsoleSocket(http::request_header<> upgrade_request,
                      SerialConsoleSocketOptions options = {});
  ~SerialConsoleSocket() override;

  // Joins the node's console as `principal` (the hub's viewer), before the upgrade is answered so
  // that a refusal is an HTTP error. Throws what SerialConsoleHub::attach throws.
  asio::awaitable<void> attach(SerialConsoleHub& hub, db::SerialConsoleTarget target,
                               std::string principal, bool wants_writer);

  asio::awaitable<void> run(net::ByteStream& stream) override;
  void stop() override;

 private:
  // The viewer's messages: keys for the host, a break.
  asio::awaitable<void> read_keys(net::WebSocket& ws);
  // Sends what the outbox holds until the console, the viewer or the service ends it; returns why
  // it ended, for the session's record.
  asio::awaitable<std::string> write_output(net::WebSocket& ws);

  http::request_header<> request_;
  SerialConsoleSocketOptions options_;
  std::shared_ptr<Outbox> outbox_;
  std::shared_ptr<SerialConsoleHub::Attachment> attachment_;
  // The writer sleeps on it between messages; anything added to the outbox cancels it. On the
  // connection's executor; shared with the nudges posted there.
  std::shared_ptr<asio::steady_timer> timer_;
};

}  // namespace ironhold::web
