#include "bmc/http/asio_http_client.hpp"

#include <openssl/rand.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "bmc/http/header_text.hpp"
#include "bmc/http/http_connection.hpp"

namespace ironhold::bmc::http {

namespace asio = boost::asio;
namespace beast_http = boost::beast::http;
using Clock = std::chrono::steady_clock;
using Strand = HttpConnection::Strand;
using Connection = std::shared_ptr<HttpConnection>;

// Kept-alive connections by origin and trust, and those in use (so that a shutdown can end them).
struct AsioHttpClient::Pool {
  struct Idle {
    Connection connection;
    Clock::time_point since;
  };
  std::mutex mutex;
  std::map<std::string, std::vector<Idle>> idle;
  std::size_t idle_count = 0;
  std::size_t max_idle = 0;
  std::chrono::milliseconds max_idle_time{0};
  std::chrono::milliseconds prune_interval{0};
  Clock::time_point next_prune{};
  std::set<Connection> busy;
  std::atomic<bool> stopped{false};

  // A kept-alive connection for `key` that still works, now used on `strand`; or none.
  Connection take(const std::string& key, const Strand& strand) {
    std::vector<Connection> dropped;  // closed after the lock is released
    std::lock_guard lock(mutex);
    prune_if_due(dropped);
    auto it = idle.find(key);
    while (it != idle.end() && !it->second.empty()) {
      Idle entry = std::move(it->second.back());
      it->second.pop_back();
      --idle_count;
      if (!still_wanted(entry, Clock::now())) {
        dropped.push_back(std::move(entry.connection));
        continue;
      }
      Connection c = std::move(entry.connection);
      if (it->second.empty()) idle.erase(it);
      c->use_on(strand);
      busy.insert(c);
      return c;
    }
    if (it != idle.end() && it->second.empty()) idle.erase(it);
    return nullptr;
  }

  bool add_busy(const Connection& c) {
    std::lock_guard lock(mutex);
    if (stopped) return false;
    busy.insert(c);
    return true;
  }

  // The request is done with `c`; it waits for the next one if `keep` and there is room.
  void give_back(const Connection& c, const std::string& key, bool keep) {
    std::vector<Connection> dropped;
    std::lock_guard lock(mutex);
    busy.erase(c);
    prune_if_due(dropped);
    if (!keep || stopped || c->aborted() || idle_count >= max_idle) return;
    c->release_buffers();
    idle[key].push_back({c, Clock::now()});
    ++idle_count;
  }

  // At most every prune_interval, on the way of a request (no timer, so that an executor with no
  // requests left runs out of work): moves the idle connections that the server closed or that
  // waited longer than max_idle_time to `dropped`.
  void prune_if_due(std::vector<Connection>& dropped) {
    const Clock::time_point now = Clock::now();
    if (now < next_prune) return;
    next_prune = now + prune_interval;
    for (auto it = idle.begin(); it != idle.end();) {
      std::vector<Idle>& waiting = it->second;
      idle_count -= std::erase_if(waiting, [&](Idle& i) {
        if (still_wanted(i, now)) return false;
        dropped.push_back(std::move(i.connection));
        return true;
      });
      it = waiting.empty() ? idle.erase(it) : std::next(it);
    }
  }

  // Not idle too long, and not closed by the server meanwhile.
  bool still_wanted(const Idle& i, Clock::time_point now) const {
    return now - i.since <= max_idle_time && i.connection->still_usable();
  }

  void stop() {
    std::map<std::string, std::vector<Idle>> closing;
    std::lock_guard lock(mutex);
    stopped = true;
    closing.swap(idle);
    idle_count = 0;
    for (const Connection& c : busy) {
      auto abort = [c] { c->abort(); };
      asio::post(c->strand(), std::move(abort));
    }
    busy.clear();
  }
};

namespace {

bool valid_token(std::string_view s) {
  if (s.empty()) return false;
  for (const unsigned char c : s)
    if (c <= ' ' || c >= 127 ||
        std::string_view("\"(),/:;<=>?@[\\]{}").find(static_cast<char>(c)) !=
            std::string_view::npos)
      return false;
  return true;
}

// A request's deadline on its strand: when it passes, the connection in use is aborted, and
// every wait of the request ends.
struct Deadline {
  explicit Deadline(const Strand& strand) : timer(strand) {}
  asio::steady_timer timer;
  Connection watched;
  std::string what;  // "connect" or "answer": which limit it was
  bool fired = false;
  unsigned generation = 0;  // an expiry already queued when the timer was set again is stale

  static void arm(const std::shared_ptr<Deadline>& d, const Connection& c, Clock::time_point at,
                  std::string what) {
    d->watched = c;
    d->what = std::move(what);
    d->timer.expires_at(at);
    const unsigned generation = ++d->generation;
    d->timer.async_wait([d, generation](boost::system::error_code ec) {
      if (ec || d->fired || !d->watched || generation != d->generation) return;
      d->fired = true;
      d->watched->abort();
    });
  }
  void disarm() {
    ++generation;
    watched.reset();
    timer.cancel();
  }
};

// The multipart/form-data body of a request's form (RFC 7578): each part's head, then its data
// or its file's bytes, read while sending.
struct FormBody {
  struct Part {
    std::string head;
    const FormPart* source = nullptr;
    std::uintmax_t size = 0;
  };
  std::string boundary;
  std::vector<Part> parts;
  std::string tail;
  std::uintmax_t length = 0;
};

std::string form_quoted(std::string_view s) {
  std::string out;
  for (const char c : s) out += c == '"' ? std::string("%22") : std::string(1, c);
  return out;
}

// The form's body plan, or an error message.
std::variant<FormBody, std::string> plan_form(const std::vector<FormPart>& form) {
  FormBody body;
  unsigned char random[12];
  RAND_bytes(random, sizeof random);
  body.boundary = "------------------------";
  for (const unsigned char b : random) {
    static constexpr char kHex[] = "0123456789abcdef";
    body.boundary += kHex[b >> 4];
    body.boundary += kHex[b & 0x0F];
  }
  for (const FormPart& p : form) {
    if (p.name.empty() || has_line_break(p.name) || has_line_break(p.filename) ||
        has_line_break(p.content_type))
      return std::string("invalid form part");
    FormBody::Part part;
    part.source = &p;
    if (!p.file.empty()) {
      std::error_code ec;
      part.size = std::filesystem::file_size(p.file, ec);
      if (ec) return "cannot read " + p.file;
    } else {
      part.size = p.data.size();
    }
    part.head = "--" + body.boundary + "\r\nContent-Disposition: form-data; name=\"" +
                form_quoted(p.name) + "\"";
    if (!p.filename.empty()) part.head += "; filename=\"" + form_quoted(p.filename) + "\"";
    part.head += "\r\n";
    if (!p.content_type.empty())
      part.head += "Content-Type: " + p.content_type + "\r\n";
    else if (!p.file.empty())
      part.head += "Content-Type: application/octet-stream\r\n";
    part.head += "\r\n";
    body.length += part.head.size() + part.size + 2;  // its data, then CRLF
    body.parts.push_back(std::move(part));
  }
  body.tail = "--" + body.boundary + "--\r\n";
  body.length += body.tail.size();
  return body;
}

// The request line and headers.
std::string request_head(const HttpRequest& r, const Origin& origin,
                         std::optional<std::uintmax_t> body_length,
                         const std::string& content_type) {
  std::string head = r.method + " " + origin.target + " HTTP/1.1\r\n";
  bool host = false, accept = false;
  for (const auto& [name, value] : r.headers) {
    host = host || same_header_name(name, "Host");
    accept = accept || same_header_name(name, "Accept");
  }
  if (!host) head += "Host: " + origin.host_header + "\r\n";
  if (!accept) head += "Accept: */*\r\n";
  for (const auto& [name, value] : r.headers) {
    if (value.empty()) continue;  // as libcurl: a header without a value is not sent
    if (body_length &&
        (same_header_name(name, "Content-Length") || same_header_name(name, "Transfer-Encoding")))
      continue;  // the body's own length is what goes
    if (!content_type.empty() && same_header_name(name, "Content-Type")) continue;
    head += name + ": " + value + "\r\n";
  }
  if (!content_type.empty()) head += "Content-Type: " + content_type + "\r\n";
  if (body_length) head += "Content-Length: " + std::to_string(*body_length) + "\r\n";
  head += "\r\n";
  return head;
}

// Sends the form's parts, reading each file as it goes.
asio::awaitable<IoResult> send_form(HttpConnection& c, const FormBody& body, std::size_t& written) {
  std::vector<char> chunk;
  for (const FormBody::Part& part : body.parts) {
    IoResult r = co_await c.write_all(part.head, written);
    if (!r.ok()) co_return r;
    if (part.source->file.empty()) {
      r = co_await c.write_all(part.source->data, written);
      if (!r.ok()) co_return r;
    } else {
      std::ifstream in(part.source->file, std::ios::binary);
      if (!in) co_return IoResult{IoStatus::failed, "cannot read " + part.source->file};
      chunk.resize(64 * 1024);
      std::uintmax_t left = part.size;
      while (left > 0) {
        const auto want =
            static_cast<std::streamsize>(std::min<std::uintmax_t>(left, chunk.size()));
        in.read(chunk.data(), want);
        if (in.gcount() != want)
          co_return IoResult{IoStatus::failed, part.source->file + " changed while it was sent"};
        const std::string_view piece(chunk.data(), static_cast<std::size_t>(want));
        r = co_await c.write_all(piece, written);
        if (!r.ok()) co_return r;
        left -= static_cast<std::uintmax_t>(want);
      }
    }
    r = co_await c.write_all("\r\n", written);
    if (!r.ok()) co_return r;
  }
  IoResult r = co_await c.write_all(body.tail, written);
  co_return r;
}

struct Answer {
  std::optional<HttpResponse> response;
  std::optional<HttpError> error;
  IoResult io;            // the connection's failure, when that is what ended it
  bool received = false;  // any byte of an answer
  bool keep_alive = false;
};

// Reads one answer (after any 1xx interim ones) from `c`.
asio::awaitable<Answer> read_answer(HttpConnection& c, const HttpRequest& r) {
  Answer a;
  boost::beast::flat_buffer buffer;
  std::optional<beast_http::response_parser<beast_http::string_body>> parser;
  const auto fresh_parser = [&] {
    parser.emplace();
    parser->eager(true);
    parser->body_limit(r.max_body);
    parser->header_limit(64 * 1024);
    if (r.method == "HEAD") parser->skip(true);
  };
  fresh_parser();
  for (;;) {
    if (buffer.size() > 0) {
      boost::system::error_code ec;
      const std::size_t used = parser->put(buffer.data(), ec);
      buffer.consume(used);
      if (ec == beast_http::error::body_limit) {
        a.error =
            HttpError{HttpErrorKind::too_large,
                      "response body larger than " + std::to_string(r.max_body) + " bytes", true};
        co_return a;
      }
      if (ec && ec != beast_http::error::need_more) {
        a.error =
            HttpError{HttpErrorKind::protocol, "malformed HTTP answer: " + ec.message(), true};
        co_return a;
      }
      if (parser->is_done()) {
        const unsigned status = parser->get().result_int();
        if (status >= 100 && status < 200 && status != 101) {
          fresh_parser();  // an interim answer: the real one follows
          continue;
        }
        break;
      }
      if (!ec && used > 0 && buffer.size() > 0) continue;
    }
    const auto space = buffer.prepare(16 * 1024);
    std::size_t got = 0;
    IoResult io = co_await c.read_some(static_cast<char*>(space.data()), space.size(), got);
    if (io.status == IoStatus::eof) {
      boost::system::error_code ec;
      if (a.received) parser->put_eof(ec);
      if (a.received && !ec && parser->is_done()) break;
      a.io = io;
      if (a.received)
        a.error = HttpError{HttpErrorKind::protocol,
                            "the server closed the connection in the middle of its answer", true};
      co_return a;
    }
    if (!io.ok()) {
      a.io = io;
      co_return a;
    }
    buffer.commit(got);
    a.received = a.received || got > 0;
  }
  auto message = parser->release();
  HttpResponse response;
  response.status = static_cast<long>(message.result_int());
  for (const auto& field : message)
    response.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  response.body = std::move(message.body());
  a.keep_alive = message.keep_alive() && buffer.size() == 0;
  a.response = std::move(response);
  co_return a;
}

// What a failure of the connection itself means to the caller.
HttpError connection_failure(const IoResult& io, const Deadline& deadline, const HttpRequest& r,
                             bool sent, bool stopped) {
  switch (io.status) {
    case IoStatus::aborted:
      if (deadline.fired) {
        const bool connecting = deadline.what == "connect";
        return {
            HttpErrorKind::timeout,
            connecting
                ? "no connection within " + std::to_string(r.connect_timeout.count()) + " ms"
                : "no complete answer within " + std::to_string(r.total_timeout.count()) + " ms",
            sent};
      }
      return {HttpErrorKind::cancelled, stopped ? "client shut down" : "aborted", sent};
    case IoStatus::pin_mismatch:
      return {HttpErrorKind::tls_pin_mismatch, io.message, false};
    case IoStatus::tls_failed:
      return {HttpErrorKind::tls_failed, io.message, sent};
    case IoStatus::eof:
      return {HttpErrorKind::connect_failed,
              sent ? "the server closed the connection without answering"
                   : "the server closed the connection",
              sent};
    case IoStatus::failed:
    case IoStatus::ok:
      break;
  }
  return {HttpErrorKind::connect_failed, io.message, sent};
}

std::string pool_key(const Origin& origin, const TlsPolicy& tls) {
  std::string key = (origin.tls ? "https://" : "http://") + origin.host + "|" + origin.port;
  switch (tls.mode) {
    case TlsPolicy::Mode::pin:
    case TlsPolicy::Mode::insecure:
      // One pool for both: a pinned request checks the connection's certificate against its pin
      // before using it, and an insecure one takes any. So the connection that learned a new
      // BMC's certificate (trust on first use) carries the pinned polls after it.
      return key + "|unverified";
    case TlsPolicy::Mode::ca:
      return key + "|ca|" +
             sha256_hex(reinterpret_cast<const unsigned char*>(tls.ca_bundle_pem.data()),
                        tls.ca_bundle_pem.size());
    case TlsPolicy::Mode::none:
      break;
  }
  return key;
}

asio::awaitable<HttpResult> run(std::shared_ptr<AsioHttpClient::Pool> pool, HttpRequest r,
                                Strand strand) {
  std::string problem;
  const std::optional<Origin> origin = parse_origin(r.url, problem);
  if (!origin) co_return HttpError{HttpErrorKind::protocol, problem, false};
  if (origin->tls != (r.tls.mode != TlsPolicy::Mode::none))
    co_return HttpError{HttpErrorKind::protocol,
                        origin->tls ? "https refused: this BMC is configured for plain http"
                                    : "plain http refused: this BMC is configured for https",
                        false};
  if (!valid_token(r.method)) co_return HttpError{HttpErrorKind::protocol, "invalid method", false};
  for (const auto& [name, value] : r.headers)
    if (!valid_token(name) || has_line_break(value))
      co_return HttpError{HttpErrorKind::protocol, "invalid header", false};

  std::optional<FormBody> form;
  std::optional<std::uintmax_t> body_length;
  std::string content_type;
  if (!r.form.empty()) {
    auto planned = plan_form(r.form);
    if (auto* error = std::get_if<std::string>(&planned))
      co_return HttpError{HttpErrorKind::protocol, *error, false};
    form = std::move(std::get<FormBody>(planned));
    body_length = form->length;
    content_type = "multipart/form-data; boundary=" + form->boundary;
  } else if (!r.body.empty() || r.method == "POST" || r.method == "PUT" || r.method == "PATCH") {
    body_length = r.body.size();
  }
  const std::string head = request_head(r, *origin, body_length, content_type);
  const std::string key = pool_key(*origin, r.tls);
  const Clock::time_point start = Clock::now();
  const Clock::time_point answer_by = start + r.total_timeout;
  auto deadline = std::make_shared<Deadline>(strand);

  for (int attempt = 1;; ++attempt) {
    Connection c = pool->take(key, strand);
    const bool reused = c != nullptr;
    if (!reused) {
      c = std::make_shared<HttpConnection>(strand);
      if (!pool->add_busy(c))
        co_return HttpError{HttpErrorKind::cancelled, "client shut down", false};
      Deadline::arm(deadline, c, std::min(start + r.connect_timeout, answer_by), "connect");
      const IoResult opened = co_await c->open(*origin, r.tls);
      if (!opened.ok()) {
        deadline->disarm();
        pool->give_back(c, key, false);
        co_return connection_failure(opened, *deadline, r, false, pool->stopped);
      }
    }
    Deadline::arm(deadline, c, answer_by, "answer");
    const auto& pin = r.tls.pinned_sha256_hex;
    if (reused && r.tls.mode == TlsPolicy::Mode::pin && pin && c->fingerprint() != pin) {
      // Opened for another request that did not pin this certificate (or pinned an older one):
      // closed, and a new connection's handshake checks the pin.
      deadline->disarm();
      pool->give_back(c, key, false);
      --attempt;
      continue;
    }
    std::size_t written = 0;
    IoResult sent = co_await c->write_all(head, written);
    if (sent.ok() && form) {
      sent = co_await send_form(*c, *form, written);
    } else if (sent.ok() && !r.body.empty()) {
      sent = co_await c->write_all(r.body, written);
    }
    Answer answer;
    if (sent.ok()) answer = co_await read_answer(*c, r);
    const IoResult& failed = sent.ok() ? answer.io : sent;
    const bool connection_died = !failed.ok() && failed.status != IoStatus::aborted;
    if (reused && connection_died && !answer.received && attempt == 1 && !pool->stopped) {
      // The server closed the kept-alive connection as this request went out: a new one.
      pool->give_back(c, key, false);
      continue;
    }
    deadline->disarm();
    if (answer.response) {
      pool->give_back(c, key, answer.keep_alive);
      answer.response->peer_fingerprint = c->fingerprint();
      co_return std::move(*answer.response);
    }
    pool->give_back(c, key, false);
    if (answer.error && failed.ok()) co_return std::move(*answer.error);
    if (answer.error && failed.status == IoStatus::eof) co_return std::move(*answer.error);
    co_return connection_failure(failed, *deadline, r, written > 0, pool->stopped);
  }
}

}  // namespace

AsioHttpClient::AsioHttpClient(asio::any_io_executor executor)
    : AsioHttpClient(std::move(executor), Options{}) {}

AsioHttpClient::AsioHttpClient(asio::any_io_executor executor, Options options)
    : executor_(std::move(executor)), pool_(std::make_shared<Pool>()) {
  pool_->max_idle = options.max_idle_connections;
  pool_->max_idle_time = options.max_idle_time;
  pool_->prune_interval = options.prune_interval;
}

AsioHttpClient::~AsioHttpClient() {
  pool_->stop();
}

std::size_t AsioHttpClient::idle_connections() const {
  std::lock_guard lock(pool_->mutex);
  return pool_->idle_count;
}

asio::awaitable<HttpResult> AsioHttpClient::request(HttpRequest request) {
  Strand strand = asio::make_strand(executor_);
  auto work = run(pool_, std::move(request), strand);
  HttpResult result = co_await asio::co_spawn(strand, std::move(work), asio::use_awaitable);
  co_return result;
}

}  // namespace ironhold::bmc::http
