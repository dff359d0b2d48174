#include "inventory/console/serial_console_hub.hpp"

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <vector>

#include "inventory/error.hpp"
#include "inventory/util/log.hpp"
#include "inventory/util/on_pool.hpp"

namespace ironhold {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;
using Strand = asio::strand<asio::any_io_executor>;

struct Line;

struct SerialConsoleHub::Attachment::State {
  std::shared_ptr<SerialConsoleHub::Impl> hub;
  std::weak_ptr<Line> line;
  ConsoleViewer viewer;
  std::string node_id, node_name, project, protocol;
  long long session_id = 0;
  std::atomic<bool> writer{false};
  std::atomic<bool> attached{true};
  std::atomic<std::uint64_t> bytes_in{0}, bytes_out{0};
  Clock::time_point opened = Clock::now();
};

using ViewerState = SerialConsoleHub::Attachment::State;

// One node's open console and who watches it; touched on the hub's strand only.
struct Line {
  explicit Line(const Strand& strand)
      : flush_timer(strand), opened(strand, Clock::time_point::max()) {}
  std::string node_id, node_name, project;
  std::string protocol;
  std::shared_ptr<NodeConsole> console;
  bool opening = true, ended = false;
  std::optional<Error> open_error;
  std::vector<std::shared_ptr<ViewerState>> viewers;
  std::string pending_log;
  asio::steady_timer flush_timer;
  bool flush_scheduled = false;
  asio::steady_timer opened;  // waiters for the opening sleep on it until it is cancelled
};

struct SerialConsoleHub::Impl : std::enable_shared_from_this<SerialConsoleHub::Impl> {
  Impl(asio::any_io_executor executor, std::map<std::string, NodeDriver*> d,
       db::SerialConsoleStore& s, db::AuditStore& a, asio::thread_pool& p,
       SerialConsoleHubOptions o)
      : strand(asio::make_strand(std::move(executor))),
        drivers(std::move(d)),
        store(s),
        audit(a),
        pool(p),
        options(o) {}

  Strand strand;
  std::map<std::string, NodeDriver*> drivers;
  db::SerialConsoleStore& store;
  db::AuditStore& audit;
  asio::thread_pool& pool;
  SerialConsoleHubOptions options;
  std::map<std::string, std::shared_ptr<Line>> lines;
  std::atomic<std::size_t> open_count{0};
  bool stopping = false;

  asio::awaitable<std::shared_ptr<SerialConsoleHub::Attachment>> attach(db::SerialConsoleTarget t,
                                                                        ConsoleViewer viewer);
  asio::awaitable<void> open_line(std::shared_ptr<Line> line, db::SerialConsoleTarget t,
                                  NodeDriver& driver, std::string principal);
  // The BMC's SSH host key, pinned at its first console like its TLS certificate.
  void pin_on_first_use(const db::SerialConsoleTarget& t, const std::string& host_key,
                        const std::string& principal);
  void on_output(const std::shared_ptr<Line>& line, std::string bytes);
  void on_ended(const std::shared_ptr<Line>& line, const std::string& why);
  void flush(Line& line);
  void schedule_flush(const std::shared_ptr<Line>& line);
  asio::awaitable<void> detach(std::shared_ptr<ViewerState> viewer, std::string reason);
  void record_end(const ViewerState& viewer, const std::string& reason);
  void forget(const std::shared_ptr<Line>& line);
};

namespace {

db::AuditEntry audit_entry(const ViewerState& v, const std::string& action) {
  db::AuditEntry e;
  e.actor = v.viewer.principal;
  e.action = action;
  e.target_type = "node";
  e.target_id = v.node_id;
  e.target_name = v.node_name;
  e.outcome = "ok";
  e.project = v.project;
  e.details = {{"writer", v.writer.load()}, {"protocol", v.protocol}, {"session", v.session_id}};
  return e;
}

// Database work the console must not wait for, nor fail by: logged when it fails.
template <class Fn>
void in_background(asio::thread_pool& pool, const char* what, Fn fn) {
  asio::post(pool, [what, fn = std::move(fn)]() mutable {
    try {
      fn();
    } catch (const std::exception& e) {
      log::warn(what, {{"error", e.what()}});
    }
  });
}

}  // namespace

asio::awaitable<void> SerialConsoleHub::Impl::open_line(std::shared_ptr<Line> line,
                                                        db::SerialConsoleTarget t,
                                                        NodeDriver& driver, std::string principal) {
  std::weak_ptr<Line> weak = line;
  auto self = shared_from_this();
  ConsoleEvents events;
  events.output = [self, weak](std::string_view bytes) {
    asio::post(self->strand, [self, weak, data = std::string(bytes)]() mutable {
      if (auto l = weak.lock()) self->on_output(l, std::move(data));
    });
  };
  events.ended = [self, weak](const DriverError& why) {
    asio::post(self->strand, [self, weak, message = why.message] {
      if (auto l = weak.lock()) self->on_ended(l, message);
    });
  };
  auto opening = driver.open_console(t.target, t.system_id, std::move(events));
  ConsoleOpenReport report = co_await std::move(opening);
  // Back on the hub's strand for the bookkeeping.
  co_await asio::post(strand, asio::use_awaitable);
  line->opening = false;
  if (report.error || !report.console) {
    const std::string why = report.error ? report.error->message : "the driver opened nothing";
    const bool unsupported = report.error && report.error->code == DriverErrorCode::unsupported;
    line->open_error = Error(unsupported ? ErrorKind::unprocessable : ErrorKind::unavailable,
                             "cannot open the serial console of " + t.node_name + ": " + why);
    forget(line);
  } else {
    line->console = std::move(report.console);
    line->protocol = report.protocol;
    ++open_count;
    if (report.ssh_host_key && !t.target.pinned_ssh_host_key)
      pin_on_first_use(t, *report.ssh_host_key, principal);
  }
  line->opened.cancel();
}

void SerialConsoleHub::Impl::pin_on_first_use(const db::SerialConsoleTarget& t,
                                              const std::string& host_key,
                                              const std::string& principal) {
  db::AuditEntry e;
  e.actor = principal;
  e.action = "serial_console.ssh_host_key_pinned";
  e.target_type = "node";
  e.target_id = t.target.node_id;
  e.target_name = t.target.node_name;
  e.outcome = "ok";
  e.project = t.project;
  e.details = {{"ssh_host_key", host_key}};
  in_background(pool, "cannot pin a BMC's SSH host key",
                [&s = store, &a = audit, bmc = t.target.node_id, host_key, e = std::move(e)] {
                  // A pin another console made first stays, and this one is not audited.
                  if (s.pin_ssh_host_key(bmc, host_key)) a.record(e);
                });
}

asio::awaitable<std::shared_ptr<SerialConsoleHub::Attachment>> SerialConsoleHub::Impl::attach(
    db::SerialConsoleTarget t, ConsoleViewer viewer) {
  if (t.cloud)
    throw unprocessable("node " + t.node_name +
                        " is a cloud instance: its serial console is the provider's");
  if (t.retired) throw conflict("node " + t.node_name + " is retired");
  const auto driver = drivers.find(t.driver);
  if (driver == drivers.end() || !driver->second)
    throw unprocessable("this server has no driver \"" + t.driver + "\" for node " + t.node_name);
  if (stopping) throw Error(ErrorKind::unavailable, "the service is stopping");

  std::shared_ptr<Line> line;
  if (auto it = lines.find(t.node_id); it != lines.end()) {
    line = it->second;
  } else {
    // A login now could use the password the BMC is being moved off (a refusal it counts).
    if (t.rotating)
      throw conflict("the BMC password of node " + t.node_name +
                     " is being rotated; open its console again when the rotation has ended "
                     "(a minute or two)");
    line = std::make_shared<Line>(strand);
    line->node_id = t.node_id;
    line->node_name = t.node_name;
    line->project = t.project;
    lines.emplace(t.node_id, line);
    asio::co_spawn(strand, open_line(line, t, *driver->second, viewer.principal), asio::detached);
  }
  while (line->opening) {
    boost::system::error_code ec;
    co_await line->opened.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  if (line->open_error) throw *line->open_error;
  if (line->ended) throw Error(ErrorKind::unavailable, "the serial console ended while opening");

  auto state = std::make_shared<ViewerState>();
  state->hub = shared_from_this();
  state->line = line;
  state->node_id = line->node_id;
  state->node_name = line->node_name;
  state->project = line->project;
  state->protocol = line->protocol;
  bool has_writer = false;
  for (const auto& v : line->viewers) has_writer = has_writer || v->writer;
  state->writer = viewer.wants_writer && !has_writer;
  state->viewer = std::move(viewer);
  line->viewers.push_back(state);
  // The session row first: the audit names it.
  const std::string node = state->node_id, project = state->project,
                    principal = state->viewer.principal, protocol = state->protocol;
  const bool writer = state->writer;
  auto& consoles = store;
  // Named, never a temporary inside the co_await expression (GCC 12 destroys those twice).
  auto open_row = [&consoles, node, project, principal, writer, protocol] {
    return consoles.open_session(node, project, principal, writer, protocol);
  };
  auto opening = on_pool(pool, std::move(open_row));
  state->session_id = co_await std::move(opening);
  co_await asio::post(strand, asio::use_awaitable);
  in_background(
      pool, "cannot audit a serial console session",
      [&a = audit, entry = audit_entry(*state, "serial_console.open")] { a.record(entry); });
  co_return std::make_shared<SerialConsoleHub::Attachment>(std::move(state));
}

void SerialConsoleHub::Impl::on_output(const std::shared_ptr<Line>& line, std::string bytes) {
  if (line->ended || bytes.empty()) return;
  for (const auto& v : line->viewers) {
    if (!v->attached) continue;
    v->bytes_out += bytes.size();
    if (v->viewer.output) v->viewer.output(bytes);
  }
  line->pending_log += bytes;
  if (line->pending_log.size() >= options.flush_bytes)
    flush(*line);
  else
    schedule_flush(line);
}

void SerialConsoleHub::Impl::flush(Line& line) {
  if (line.pending_log.empty()) return;
  in_background(pool, "cannot keep serial console output",
                [&s = store, node = line.node_id, data = std::move(line.pending_log)] {
                  s.append(node, data);
                });
  line.pending_log.clear();
}

void SerialConsoleHub::Impl::schedule_flush(const std::shared_ptr<Line>& line) {
  if (line->flush_scheduled) return;
  line->flush_scheduled = true;
  line->flush_timer.expires_after(options.flush_every);
  line->flush_timer.async_wait([self = shared_from_this(), line](boost::system::error_code) {
    line->flush_scheduled = false;
    self->flush(*line);
  });
}

void SerialConsoleHub::Impl::record_end(const ViewerState& v, const std::string& reason) {
  const auto seconds =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - v.opened).count() /
      1000.0;
  auto entry = audit_entry(v, "serial_console.close");
  entry.details["reason"] = reason;
  entry.details["duration_seconds"] = seconds;
  entry.details["bytes_in"] = v.bytes_in.load();
  entry.details["bytes_out"] = v.bytes_out.load();
  in_background(pool, "cannot record the end of a serial console session",
                [&s = store, &a = audit, id = v.session_id, reason, in = v.bytes_in.load(),
                 out = v.bytes_out.load(), entry = std::move(entry)] {
                  s.close_session(id, reason, static_cast<long long>(in),
                                  static_cast<long long>(out));
                  a.record(entry);
                });
}

void SerialConsoleHub::Impl::forget(const std::shared_ptr<Line>& line) {
  if (auto it = lines.find(line->node_id); it != lines.end() && it->second == line) lines.erase(it);
}

void SerialConsoleHub::Impl::on_ended(const std::shared_ptr<Line>& line, const std::string& why) {
  if (line->ended) return;
  line->ended = true;
  flush(*line);
  line->flush_timer.cancel();
  if (line->console) --open_count;
  forget(line);
  for (const auto& v : line->viewers) {
    if (!v->attached.exchange(false)) continue;
    record_end(*v, why);
    if (v->viewer.ended) v->viewer.ended(why);
  }
  line->viewers.clear();
}

asio::awaitable<void> SerialConsoleHub::Impl::detach(std::shared_ptr<ViewerState> viewer,
                                                     std::string reason) {
  if (!viewer->attached.exchange(false)) co_return;
  record_end(*viewer, reason);
  auto line = viewer->line.lock();
  if (!line || line->ended) co_return;
  std::erase(line->viewers, viewer);
  if (!line->viewers.empty()) co_return;
  // The last one out closes the BMC's console, so that others (ipmitool, a vendor UI) get it.
  line->ended = true;
  flush(*line);
  line->flush_timer.cancel();
  forget(line);
  if (line->console) {
    --open_count;
    co_await line->console->close();
  }
}

SerialConsoleHub::SerialConsoleHub(asio::any_io_executor executor,
                                   std::map<std::string, NodeDriver*> drivers,
                                   db::SerialConsoleStore& store, db::AuditStore& audit,
                                   asio::thread_pool& pool, SerialConsoleHubOptions options)
    : impl_(std::make_shared<Impl>(std::move(executor), std::move(drivers), store, audit, pool,
                                   options)) {}

SerialConsoleHub::~SerialConsoleHub() = default;

asio::awaitable<std::shared_ptr<SerialConsoleHub::Attachment>> SerialConsoleHub::attach(
    db::SerialConsoleTarget target, ConsoleViewer viewer) {
  auto impl = impl_;
  auto work = impl->attach(std::move(target), std::move(viewer));
  co_return co_await asio::co_spawn(impl->strand, std::move(work), asio::use_awaitable);
}

std::size_t SerialConsoleHub::open_consoles() const {
  return impl_->open_count;
}

namespace {

asio::awaitable<void> shutdown_on_strand(std::shared_ptr<SerialConsoleHub::Impl> impl) {
  impl->stopping = true;
  auto lines = impl->lines;
  for (auto& [id, line] : lines) {
    auto console = line->console;
    impl->on_ended(line, "the service is stopping");
    if (console) co_await console->close();
  }
}

}  // namespace

asio::awaitable<void> SerialConsoleHub::shutdown() {
  auto work = shutdown_on_strand(impl_);
  co_await asio::co_spawn(impl_->strand, std::move(work), asio::use_awaitable);
}

// --- a viewer's handle ---

SerialConsoleHub::Attachment::~Attachment() {
  if (state_->attached)
    asio::co_spawn(state_->hub->strand, state_->hub->detach(state_, "the viewer went away"),
                   asio::detached);
}

bool SerialConsoleHub::Attachment::writer() const {
  return state_->writer;
}

bool SerialConsoleHub::Attachment::write(std::string_view keys) {
  if (!state_->writer || !state_->attached) return false;
  auto line = state_->line.lock();
  // The console pointer is set once, before any viewer exists, and never reset: safe to read.
  if (!line || !line->console || !line->console->write(keys)) return false;
  state_->bytes_in += keys.size();
  return true;
}

void SerialConsoleHub::Attachment::send_break() {
  if (!state_->writer || !state_->attached) return;
  if (auto line = state_->line.lock(); line && line->console) line->console->send_break();
}

asio::awaitable<void> SerialConsoleHub::Attachment::detach(std::string reason) {
  auto hub = state_->hub;
  auto work = hub->detach(state_, std::move(reason));
  co_await asio::co_spawn(hub->strand, std::move(work), asio::use_awaitable);
}

long long SerialConsoleHub::Attachment::session_id() const {
  return state_->session_id;
}

const std::string& SerialConsoleHub::Attachment::protocol() const {
  return state_->protocol;
}

}  // namespace ironhold
