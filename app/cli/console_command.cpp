// `ironhold console NODE`: a node's serial console in this terminal, over the WebSocket
// GET /api/v1/nodes/{id}/console. A terminal is put in raw mode, so that every key goes to the
// host as typed (Ctrl-C included); escapes at the start of a line, as ssh and ipmitool have them:
// "~." leaves, "~B" sends a serial break, "~~" sends one "~", "~?" lists them.
#include "app/cli/console_command.hpp"

#include <termios.h>
#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/rfc/pchars.hpp>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "app/cli/client_options.hpp"
#include "app/cli/table.hpp"
#include "web/impl/byte_stream.hpp"
#include "web/impl/websocket.hpp"

namespace ironhold::cli {
namespace {

namespace asio = boost::asio;
using nlohmann::json;
using tcp = asio::ip::tcp;
constexpr auto as_tuple_awaitable = asio::as_tuple(asio::use_awaitable);

// The terminal in raw mode while the console runs, restored however the command ends.
class RawTerminal {
 public:
  RawTerminal() {
    if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_) != 0) return;
    termios raw = saved_;
    cfmakeraw(&raw);
    if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0) active_ = true;
  }
  ~RawTerminal() {
    if (active_) tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
  }
  RawTerminal(const RawTerminal&) = delete;
  RawTerminal& operator=(const RawTerminal&) = delete;

 private:
  termios saved_{};
  bool active_ = false;
};

// A note for the person at the terminal, on stderr, on a line of its own (raw mode: \r\n).
void note(const std::string& text) {
  std::cerr << "\r\n[" << terminal_safe(text) << "]\r\n" << std::flush;
}

void write_out(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(STDOUT_FILENO, bytes.data(), bytes.size());
    if (n <= 0) return;  // stdout closed: nothing more to show
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

// What the keys typed mean once the escapes are read out of them.
struct Typed {
  std::string keys;  // for the host
  bool send_break = false;
  bool leave = false;
  bool help = false;
};

// The escapes ("~." and friends) count only right after a line ended, as in ssh.
class EscapeReader {
 public:
  Typed read(std::string_view input) {
    Typed out;
    for (const char c : input) {
      if (out.leave) break;
      if (tilde_) {
        tilde_ = false;
        if (c == '.') {
          out.leave = true;
          continue;
        }
        if (c == 'B') {
          out.send_break = true;
          continue;
        }
        if (c == '?') {
          out.help = true;
          continue;
        }
        if (c != '~') out.keys += '~';
      } else if (line_start_ && c == '~') {
        tilde_ = true;
        continue;
      }
      out.keys += c;
      line_start_ = c == '\r' || c == '\n';
    }
    return out;
  }

 private:
  bool line_start_ = true;
  bool tilde_ = false;
};

struct ConsoleTarget {
  bool tls = false;
  std::string host, port, path_prefix;
};

ConsoleTarget parse_base_url(const std::string& base_url) {
  const auto parsed = boost::urls::parse_uri(base_url);
  if (!parsed) throw UsageError("--url is not a URL: \"" + base_url + "\"");
  ConsoleTarget t;
  t.tls = parsed->scheme() == "https";
  t.host = std::string(parsed->encoded_host_address());
  if (t.host.size() > 2 && t.host.front() == '[') t.host = t.host.substr(1, t.host.size() - 2);
  t.port = parsed->has_port() ? std::string(parsed->port()) : (t.tls ? "443" : "80");
  t.path_prefix = std::string(parsed->encoded_path());
  while (!t.path_prefix.empty() && t.path_prefix.back() == '/') t.path_prefix.pop_back();
  return t;
}

// The stdin keys, read by a thread of their own (a terminal, a pipe or a file alike) and handed
// to the session through a queue.
struct Keyboard {
  std::mutex mutex;
  std::string pending;
  bool closed = false;  // end of stdin
  std::function<void()> wake;

  void add(std::string_view keys, bool end) {
    std::function<void()> nudge;
    {
      std::lock_guard lock(mutex);
      pending.append(keys);
      closed = closed || end;
      nudge = wake;
    }
    if (nudge) nudge();
  }
};

struct Outcome {
  int exit_code = kExitOk;
  std::optional<std::string> error;  // a failure to report after the terminal is restored
};

class ConsoleSession {
 public:
  ConsoleSession(asio::io_context& io, const Args& args, ConsoleTarget target, std::string token,
                 std::string node, std::shared_ptr<Keyboard> keyboard)
      : io_(io),
        args_(args),
        target_(std::move(target)),
        token_(std::move(token)),
        node_(std::move(node)),
        timer_(io),
        keyboard_(std::move(keyboard)) {}

  asio::awaitable<void> run() {
    auto running = attach_and_relay();
    try {
      co_await std::move(running);
    } catch (const std::exception& e) {
      outcome_.exit_code = kExitFailure;
      outcome_.error = e.what();
    }
  }

  const Outcome& outcome() const { return outcome_; }

 private:
  asio::awaitable<void> attach_and_relay() {
    const ConsoleTarget& target = target_;
    tcp::resolver resolver(io_);
    auto [resolve_ec, endpoints] =
        co_await resolver.async_resolve(target.host, target.port, as_tuple_awaitable);
    if (resolve_ec)
      throw Error(ErrorKind::unavailable,
                  "cannot resolve " + target.host + ": " + resolve_ec.message());
    boost::beast::tcp_stream tcp_stream(io_);
    tcp_stream.expires_after(std::chrono::seconds(10));
    auto [connect_ec, connected] = co_await tcp_stream.async_connect(endpoints, as_tuple_awaitable);
    (void)connected;
    if (connect_ec)
      throw Error(ErrorKind::unavailable, "cannot connect to " + target.host + ":" + target.port +
                                              ": " + connect_ec.message());
    tcp_stream.expires_never();
    std::unique_ptr<net::ByteStream> stream;
    if (target.tls) {
      tls_ = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_client);
      tls_->set_verify_mode(asio::ssl::verify_peer);
      if (const auto ca = args_.get("cacert"))
        tls_->load_verify_file(*ca);
      else
        tls_->set_default_verify_paths();
      tls_->set_verify_callback(asio::ssl::host_name_verification(target.host));
      stream = net::tls_stream(std::move(tcp_stream), *tls_);
      stream->lowest().expires_after(std::chrono::seconds(10));
      const auto handshake_ec = co_await stream->handshake(/*as_server=*/false, target.host);
      stream->lowest().expires_never();
      if (handshake_ec)
        throw Error(ErrorKind::unavailable,
                    "TLS with " + target.host + " failed: " + handshake_ec.message());
    } else {
      stream = net::plain_stream(std::move(tcp_stream));
    }

    net::WebSocket ws(*stream);
    const std::string path = target.path_prefix + "/api/v1/nodes/" +
                             boost::urls::encode(node_, boost::urls::pchars) + "/console" +
                             (args_.flag("read-only") ? "?mode=read" : "");
    boost::beast::http::response<boost::beast::http::string_body> refusal;
    const auto host = target.host + ":" + target.port;
    const std::vector<std::pair<std::string, std::string>> headers{
        {"Authorization", "Bearer " + token_}};
    const auto handshake_ec = co_await ws.handshake(host, path, headers, &refusal);
    if (handshake_ec) throw refused(refusal, handshake_ec);

    asio::co_spawn(io_, show_output(ws), [this](std::exception_ptr) {
      output_done_ = true;
      timer_.cancel();
    });
    co_await send_keys(ws);
    stream->lowest().close();
  }

  Error refused(const boost::beast::http::response<boost::beast::http::string_body>& answer,
                boost::system::error_code ec) const {
    if (answer.result_int() == 0)
      return Error(ErrorKind::unavailable, "the console did not open: " + ec.message());
    const json problem = json::parse(answer.body(), nullptr, false);
    std::string why =
        problem.is_object() && problem.contains("detail") && problem["detail"].is_string()
            ? problem["detail"].get<std::string>()
            : std::string(answer.reason());
    return Error(ErrorKind::unavailable, "the server refused the console of " + node_ + " (HTTP " +
                                             std::to_string(answer.result_int()) + "): " + why);
  }

  // The host's output to stdout, the service's notes to stderr, until the WebSocket closes.
  asio::awaitable<void> show_output(net::WebSocket& ws) {
    for (;;) {
      auto message = co_await ws.read();
      if (!message) break;
      if (message->binary) {
        write_out(message->data);
        continue;
      }
      const json control = json::parse(message->data, nullptr, false);
      const std::string type = control.is_object() ? control.value("type", "") : "";
      if (type == "attached") {
        writer_ = control.value("writer", false);
        note("connected to " + control.value("node_name", node_) + " over " +
             control.value("protocol", "?") +
             (writer_ ? ": you have the keyboard" : ": read-only, someone else is typing") +
             "; ~. leaves, ~? for more");
      } else if (type == "refused") {
        note("refused: " + control.value("reason", ""));
      } else if (type == "ended") {
        ended_ = control.value("reason", "");
      }
    }
    if (!leaving_) {
      const auto close = ws.peer_close();
      const std::string why = ended_ ? *ended_ : close ? close->reason : "the connection was lost";
      note("the console ended: " + why);
      outcome_.exit_code = kExitFailure;
    }
  }

  // Keys to the host, escapes read out, until the person leaves or the console ends.
  asio::awaitable<void> send_keys(net::WebSocket& ws) {
    {
      std::lock_guard lock(keyboard_->mutex);
      keyboard_->wake = [this] { asio::post(io_, [this] { timer_.cancel(); }); };
    }
    auto sending = relay_keys(ws);
    co_await std::move(sending);
    // The stdin thread outlives this session: it must not wake it any more.
    std::lock_guard lock(keyboard_->mutex);
    keyboard_->wake = nullptr;
  }

  asio::awaitable<void> relay_keys(net::WebSocket& ws) {
    EscapeReader escapes;
    for (;;) {
      std::string keys;
      bool end = false;
      {
        std::lock_guard lock(keyboard_->mutex);
        keys.swap(keyboard_->pending);
        end = keyboard_->closed;
      }
      if (output_done_) co_return;
      const Typed typed = escapes.read(keys);
      if (!typed.keys.empty() && co_await ws.write(typed.keys, /*binary=*/true)) co_return;
      if (typed.send_break) {
        const std::string request = json{{"type", "break"}}.dump();
        if (co_await ws.write(request, /*binary=*/false)) co_return;
      }
      if (typed.help) note("~. leave   ~B send a break   ~~ send ~   (at the start of a line)");
      if (typed.leave || end) {
        // The end of a piped stdin: what it asked for had a moment to be answered.
        if (end && !typed.leave) {
          timer_.expires_after(std::chrono::seconds(1));
          co_await timer_.async_wait(as_tuple_awaitable);
        }
        leaving_ = true;
        co_await ws.close(1000, "the viewer left");
        while (!output_done_) {
          timer_.expires_after(std::chrono::seconds(10));
          auto [ec] = co_await timer_.async_wait(as_tuple_awaitable);
          if (!ec) break;  // the service did not answer the close: leave anyway
        }
        co_return;
      }
      {
        std::lock_guard lock(keyboard_->mutex);
        if (!keyboard_->pending.empty() || keyboard_->closed) continue;
      }
      timer_.expires_at(asio::steady_timer::time_point::max());
      co_await timer_.async_wait(as_tuple_awaitable);
    }
  }

  asio::io_context& io_;
  const Args& args_;
  ConsoleTarget target_;
  std::string token_;
  std::string node_;
  asio::steady_timer timer_;
  std::unique_ptr<asio::ssl::context> tls_;
  std::shared_ptr<Keyboard> keyboard_;
  bool writer_ = false;
  bool leaving_ = false;
  bool output_done_ = false;
  std::optional<std::string> ended_;
  Outcome outcome_;
};

int console(const Args& a) {
  if (a.positional().size() != 1) throw UsageError("give exactly one NODE (its id or name)");
  const HttpClient checked = make_client(a);  // --url and --token checked as every command does
  (void)checked;
  ConsoleTarget target = parse_base_url(a.value_or("url", "http://127.0.0.1:8080"));
  const auto token = a.get("token");
  if (!token) throw UsageError("give --token (or IRONHOLD_TOKEN): the console needs an operator");
  asio::io_context io;
  auto keyboard = std::make_shared<Keyboard>();
  ConsoleSession session(io, a, std::move(target), *token, a.positional()[0], keyboard);
  std::optional<Outcome> outcome;
  {
    RawTerminal raw;
    // Keys from stdin, on a thread of its own: read() blocks on a terminal as on a pipe. It is left
    // behind at the end (it may be waiting for a key that never comes); the process exits anyway.
    std::thread([keyboard] {
      char buffer[4096];
      for (;;) {
        const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
        if (n <= 0) {
          keyboard->add("", true);
          return;
        }
        keyboard->add(std::string_view(buffer, static_cast<std::size_t>(n)), false);
      }
    }).detach();
    asio::signal_set stop(io, SIGTERM, SIGHUP);
    stop.async_wait([keyboard](boost::system::error_code ec, int) {
      if (!ec) keyboard->add("\r~.", false);
    });
    asio::co_spawn(io, session.run(), [&](std::exception_ptr) {
      boost::system::error_code ignored;
      stop.cancel(ignored);
    });
    io.run();
    outcome = session.outcome();
  }
  if (outcome->error) throw Error(ErrorKind::unavailable, *outcome->error);
  return outcome->exit_code;
}

}  // namespace

int run_console_command(std::span<const std::string> argv) {
  const std::string command = "ironhold console";
  return run_guarded(command, [&] {
    std::vector<Option> options;
    options.push_back(
        make_option("read-only", "", "Only watch, even when nobody else has the keyboard."));
    Args args(command, "NODE",
              "Attach this terminal to a node's serial console (IPMI Serial-over-LAN, or the "
              "BMC's SSH console). Keys go to the host as typed; at the start of a line ~. "
              "leaves, ~B sends a break, ~~ sends ~. Needs the operator role.",
              with_client_options(std::move(options)));
    args.parse(argv);
    if (args.help_requested()) {
      std::cout << args.help_text();
      return kExitOk;
    }
    return console(args);
  });
}

}  // namespace ironhold::cli
