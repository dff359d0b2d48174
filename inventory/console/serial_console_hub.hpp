#pragma once
// One serial console per node, shared by everyone watching it: the first viewer opens the BMC's
// console through the node's driver, later ones join it, the last one to leave closes it (the
// BMC's console is a single resource: opening it twice would take it from ourselves). One viewer
// at a time may type (the first who asks while nobody does); the others read. Everything the host
// prints goes to every viewer and, in batches, to serial_console_log; each viewer's session is a
// row of serial_console_sessions and two audit entries (serial_console.open, .close with how
// long), whatever way it ends.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "inventory/db/audit_store.hpp"
#include "inventory/db/serial_console_store.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold {

struct ConsoleViewer {
  std::string principal;  // the user or token, for the session row and the audit
  bool wants_writer = false;
  // The host's output, in order, from the hub's strand.
  std::function<void(std::string_view bytes)> output;
  // The console ended under this viewer (the BMC ended it, or the service is stopping); not
  // called after detach().
  std::function<void(const std::string& why)> ended;
};

struct SerialConsoleHubOptions {
  // Output is written to the log at least this often while it comes, and at once past
  // flush_bytes: a node that dies loses at most this much of what it printed last.
  std::chrono::milliseconds flush_every{250};
  std::size_t flush_bytes = 16 * 1024;
};

class SerialConsoleHub {
 public:
  struct Impl;
  class Attachment;

  SerialConsoleHub(boost::asio::any_io_executor executor,
                   std::map<std::string, NodeDriver*> drivers, db::SerialConsoleStore& store,
                   db::AuditStore& audit, boost::asio::thread_pool& pool,
                   SerialConsoleHubOptions options = {});
  ~SerialConsoleHub();
  SerialConsoleHub(const SerialConsoleHub&) = delete;
  SerialConsoleHub& operator=(const SerialConsoleHub&) = delete;

  // Joins the node's console, opening it first when nobody watches. Throws ironhold::Error:
  // unprocessable for a cloud instance or a node whose driver has no console here, conflict for
  // a retired node, unavailable when the BMC refused or did not answer (its reason in the message).
  boost::asio::awaitable<std::shared_ptr<Attachment>> attach(db::SerialConsoleTarget target,
                                                             ConsoleViewer viewer);

  // Consoles open now (one per node watched).
  std::size_t open_consoles() const;
  // Ends every console (viewers hear "the service is stopping") and writes what is pending.
  boost::asio::awaitable<void> shutdown();

 private:
  std::shared_ptr<Impl> impl_;
};

// A viewer's handle on a node's console; detach() (or the console ending) ends it.
class SerialConsoleHub::Attachment {
 public:
  struct State;
  explicit Attachment(std::shared_ptr<State> state) : state_(std::move(state)) {}
  ~Attachment();  // detaches, if detach() was not awaited

  bool writer() const;
  // Keystrokes for the host: false when this viewer may not type, or the console is gone or full.
  bool write(std::string_view keys);
  void send_break();
  boost::asio::awaitable<void> detach(std::string reason = "closed by the viewer");
  long long session_id() const;
  // How the BMC carries the console ("ipmi-sol", "ssh").
  const std::string& protocol() const;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace ironhold
