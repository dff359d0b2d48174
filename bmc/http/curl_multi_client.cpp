#include "bmc/http/curl_multi_client.hpp"

#include <curl/curl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/async_result.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cctype>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "bmc/http/abandoned_waits.hpp"
#include "bmc/http/header_text.hpp"
#include "bmc/http/resumer.hpp"

namespace ironhold::bmc::http {
namespace asio = boost::asio;
using boost::system::error_code;

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

using http_detail::make_resumer;
using http_detail::Resumer;

void global_init_once() {
  // curl_global_init is not thread-safe against itself; a function-local static runs it once.
  static const CURLcode code = curl_global_init(CURL_GLOBAL_DEFAULT);
  (void)code;
}

// One request: the easy handle and everything its callbacks write into. Owned by a shared_ptr
// held both by the awaiting coroutine and the multi handle's table, so neither outlives it.
struct Transfer {
  HttpRequest request;
  CURL* easy = nullptr;
  curl_slist* header_list = nullptr;
  curl_mime* form = nullptr;
  TlsVerifyState tls;
  HttpResponse response;
  bool overflow = false;
  bool fingerprint_checked = false;
  char error_buffer[CURL_ERROR_SIZE] = "";
  std::optional<HttpResult> result;
  std::unique_ptr<Resumer> resumer;
  asio::any_io_executor caller;  // where the awaiting coroutine resumes

  Transfer() = default;
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;
  ~Transfer() {
    if (easy != nullptr) curl_easy_cleanup(easy);
    curl_slist_free_all(header_list);
    curl_mime_free(form);
  }
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t bytes = size * count;
  if (t->response.body.size() + bytes > t->request.max_body) {
    t->overflow = true;
    return 0;  // anything but `bytes` aborts the transfer (CURLE_WRITE_ERROR)
  }
  t->response.body.append(data, bytes);
  return bytes;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t bytes = size * count;
  const std::string_view line(data, bytes);
  if (line.substr(0, 5) == "HTTP/") {
    t->response.headers.clear();  // a new response (after a 100 Continue, say)
    if (!t->fingerprint_checked && t->request.tls.mode != TlsPolicy::Mode::none) {
      t->fingerprint_checked = true;
      t->response.peer_fingerprint = connection_fingerprint(t->easy);
      // A reused connection was verified by the transfer that opened it, possibly against
      // another pin: refuse to read an answer from a certificate this request did not accept.
      const auto& pin = t->request.tls.pinned_sha256_hex;
      if (t->request.tls.mode == TlsPolicy::Mode::pin && pin &&
          t->response.peer_fingerprint != pin) {
        t->tls.pin_mismatch = true;
        t->tls.leaf_sha256_hex = t->response.peer_fingerprint;
        return 0;
      }
    }
    return bytes;
  }
  const auto colon = line.find(':');
  if (colon != std::string_view::npos)
    t->response.headers.emplace_back(std::string(trim(line.substr(0, colon))),
                                     std::string(trim(line.substr(colon + 1))));
  return bytes;
}

// The request's form as a libcurl MIME body; an error message, or empty when it is set.
std::string configure_form(Transfer& t) {
  t.form = curl_mime_init(t.easy);
  if (t.form == nullptr) return "out of memory";
  for (const FormPart& p : t.request.form) {
    if (p.name.empty() || has_line_break(p.name) || has_line_break(p.filename) ||
        has_line_break(p.content_type))
      return "invalid form part";
    curl_mimepart* part = curl_mime_addpart(t.form);
    if (part == nullptr) return "out of memory";
    CURLcode code = curl_mime_name(part, p.name.c_str());
    // libcurl opens the file when the transfer starts: a missing one fails it then, with a
    // read error naming nothing useful, so check here and say which file.
    if (!p.file.empty() && code == CURLE_OK) {
      code = curl_mime_filedata(part, p.file.c_str());
      if (code == CURLE_READ_ERROR) return "cannot read " + p.file;
    } else if (code == CURLE_OK) {
      code = curl_mime_data(part, p.data.data(), p.data.size());
    }
    // curl_mime_filedata names the part after the file's base name: use the one asked for.
    if (code == CURLE_OK)
      code = curl_mime_filename(part, p.filename.empty() ? nullptr : p.filename.c_str());
    if (code == CURLE_OK && !p.content_type.empty())
      code = curl_mime_type(part, p.content_type.c_str());
    if (code != CURLE_OK) return std::string("form part refused: ") + curl_easy_strerror(code);
  }
  return curl_easy_setopt(t.easy, CURLOPT_MIMEPOST, t.form) == CURLE_OK
             ? std::string()
             : std::string("libcurl refused the form");
}

// Returns an error message, or empty when the handle is ready.
std::string configure(Transfer& t) {
  CURL* e = t.easy;
  const HttpRequest& r = t.request;
  bool ok = true;
  const auto set = [&ok](CURLcode code) { ok = ok && code == CURLE_OK; };
  set(curl_easy_setopt(e, CURLOPT_PRIVATE, &t));
  set(curl_easy_setopt(e, CURLOPT_URL, r.url.c_str()));
  set(curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L));
  if (getenv("IH_CURL_VERBOSE")) set(curl_easy_setopt(e, CURLOPT_VERBOSE, 1L));
  set(curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t.error_buffer));
  // A BMC that redirects in a loop (some do, on their login pages) must not keep us busy.
  set(curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L));
  set(curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(r.connect_timeout.count())));
  set(curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(r.total_timeout.count())));
  set(curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L));
  // libcurl 7.88 walks its whole DNS cache on every transfer to expire entries: with one entry
  // per BMC that made each request cost O(fleet). Names are resolved only for new connections,
  // and those are rare with keep-alive, so the cache is not worth keeping.
  set(curl_easy_setopt(e, CURLOPT_DNS_CACHE_TIMEOUT, 0L));
  // HTTP/1.1 only: BMC firmware's HTTP/2 is rarely tested, and one request per connection at a
  // time is what the per-host limit assumes.
  set(curl_easy_setopt(e, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1)));
  // Refuses a declared Content-Length past the cap before reading it; on_body catches the rest.
  set(curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(r.max_body)));
  set(curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body));
  set(curl_easy_setopt(e, CURLOPT_WRITEDATA, &t));
  set(curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header));
  set(curl_easy_setopt(e, CURLOPT_HEADERDATA, &t));
  // libcurl 7.88 copies every HTTPS request through an upload buffer of the handle's, 64 KiB
  // unless told otherwise, held while the transfer runs: 64 MB of heap for 1,000 polls in flight
  // (heaptrack, bench/redfish_sweep, 2,000 BMCs: peak heap 175 MB, 127 MB with 16 KiB), though
  // only the pages a request touches become resident. Requests here are a few hundred bytes; a
  // multipart firmware upload keeps the larger buffer.
  if (r.form.empty()) set(curl_easy_setopt(e, CURLOPT_UPLOAD_BUFFERSIZE, 16L * 1024));
  if (r.method == "GET") {
    set(curl_easy_setopt(e, CURLOPT_HTTPGET, 1L));
  } else if (r.method == "HEAD") {
    set(curl_easy_setopt(e, CURLOPT_NOBODY, 1L));
  } else {
    if (r.method.empty() || has_line_break(r.method) || r.method.find(' ') != std::string::npos)
      return "invalid method";
    if (!r.form.empty()) {
      if (auto error = configure_form(t); !error.empty()) return error;
    } else if (!r.body.empty() || r.method == "POST" || r.method == "PUT" || r.method == "PATCH") {
      set(curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size())));
      set(curl_easy_setopt(e, CURLOPT_POSTFIELDS, r.body.data()));
    }
    set(curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r.method.c_str()));
  }
  // No "Expect: 100-continue" round trip: bodies are small and some BMCs never send the 100.
  t.header_list = curl_slist_append(t.header_list, "Expect:");
  for (const auto& [name, value] : r.headers) {
    if (name.empty() || has_line_break(name) || has_line_break(value) ||
        name.find(':') != std::string::npos)
      return "invalid header";
    const std::string line = name + ": " + value;
    curl_slist* grown = curl_slist_append(t.header_list, line.c_str());
    if (grown == nullptr) return "out of memory";
    t.header_list = grown;
  }
  set(curl_easy_setopt(e, CURLOPT_HTTPHEADER, t.header_list));
  if (!apply_tls_policy(e, r.tls, t.tls)) return "TLS options refused by libcurl";
  return ok ? std::string() : std::string("libcurl refused an option");
}

HttpResult classify(Transfer& t, CURLcode code) {
  if (code == CURLE_OK) {
    curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &t.response.status);
    return std::move(t.response);
  }
  HttpError error;
  long request_size = 0;
  curl_easy_getinfo(t.easy, CURLINFO_REQUEST_SIZE, &request_size);
  error.request_sent = request_size > 0;
  error.message = t.error_buffer[0] != '\0' ? t.error_buffer : curl_easy_strerror(code);
  if (t.tls.pin_mismatch) {
    error.kind = HttpErrorKind::tls_pin_mismatch;
    error.message = "certificate " + t.tls.leaf_sha256_hex.value_or("?") +
                    " does not match the pinned " + t.request.tls.pinned_sha256_hex.value_or("?");
    return error;
  }
  if (t.overflow || code == CURLE_FILESIZE_EXCEEDED) {
    error.kind = HttpErrorKind::too_large;
    error.message = "response body larger than " + std::to_string(t.request.max_body) + " bytes";
    return error;
  }
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
      error.kind = HttpErrorKind::connect_failed;
      break;
    case CURLE_OPERATION_TIMEDOUT:
      error.kind = HttpErrorKind::timeout;
      break;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
      error.kind = HttpErrorKind::tls_failed;
      break;
    case CURLE_ABORTED_BY_CALLBACK:
      error.kind = HttpErrorKind::cancelled;
      break;
    default:
      error.kind = HttpErrorKind::protocol;
      break;
  }
  return error;
}

}  // namespace

std::optional<std::string> HttpResponse::header(std::string_view name) const {
  for (const auto& [n, v] : headers)
    if (same_header_name(n, name)) return v;
  return std::nullopt;
}

std::string_view to_string(HttpErrorKind kind) {
  switch (kind) {
    case HttpErrorKind::connect_failed:
      return "connect_failed";
    case HttpErrorKind::timeout:
      return "timeout";
    case HttpErrorKind::tls_pin_mismatch:
      return "tls_pin_mismatch";
    case HttpErrorKind::tls_failed:
      return "tls_failed";
    case HttpErrorKind::too_large:
      return "too_large";
    case HttpErrorKind::protocol:
      return "protocol";
    case HttpErrorKind::cancelled:
      return "cancelled";
  }
  return "unknown";
}

// The multi handle and the Asio objects that drive it. Every member is touched on `strand` only
// (or in the destructor, when nothing else refers to it). Asio handlers hold a shared_ptr to it,
// so it lives until the last of them has run.
class CurlMultiClient::Impl : public std::enable_shared_from_this<Impl> {
 public:
  Impl(asio::any_io_executor executor, const Options& options)
      : strand(asio::make_strand(executor)), timer_(strand) {
    global_init_once();
    multi_ = curl_multi_init();
    if (multi_ == nullptr) throw std::runtime_error("curl_multi_init failed");
    curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &Impl::on_socket);
    curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &Impl::on_timer);
    curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
    curl_multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS, options.max_host_connections);
    curl_multi_setopt(multi_, CURLMOPT_MAX_TOTAL_CONNECTIONS, options.max_total_connections);
    if (options.max_idle_connections > 0)
      curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, options.max_idle_connections);
  }

  ~Impl() {
    // curl_multi_cleanup closes cached connections and would call back into a half-destroyed
    // object: silence the callbacks first. The descriptors are released (never closed) by ~Socket.
    curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, nullptr);
    curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, nullptr);
    for (auto& [easy, transfer] : transfers_) curl_multi_remove_handle(multi_, easy);
    for (CURL* easy : idle_easy_) curl_easy_cleanup(easy);
    sockets_.clear();
    closing_ = true;
    curl_multi_cleanup(multi_);
  }

  void start(const std::shared_ptr<Transfer>& t) {
    if (stopped_)
      return complete(t, HttpError{HttpErrorKind::cancelled, "client shut down", false});
    t->easy = take_easy();
    if (t->easy == nullptr)
      return complete(t, HttpError{HttpErrorKind::protocol, "curl_easy_init failed", false});
    if (std::string problem = configure(*t); !problem.empty())
      return complete(t, HttpError{HttpErrorKind::protocol, std::move(problem), false});
    curl_easy_setopt(t->easy, CURLOPT_OPENSOCKETFUNCTION, &Impl::on_open_socket);
    curl_easy_setopt(t->easy, CURLOPT_OPENSOCKETDATA, this);
    curl_easy_setopt(t->easy, CURLOPT_CLOSESOCKETFUNCTION, &Impl::on_close_socket);
    curl_easy_setopt(t->easy, CURLOPT_CLOSESOCKETDATA, this);
    transfers_[t->easy] = t;
    if (curl_multi_add_handle(multi_, t->easy) != CURLM_OK) {
      transfers_.erase(t->easy);
      complete(t, HttpError{HttpErrorKind::protocol, "curl_multi_add_handle failed", false});
    }
  }

  void shutdown() {
    stopped_ = true;
    timer_.cancel();
    auto transfers = std::move(transfers_);
    transfers_.clear();
    for (auto& [easy, t] : transfers) {
      curl_multi_remove_handle(multi_, easy);
      complete(t, HttpError{HttpErrorKind::cancelled, "client shut down", false});
    }
    for (auto& [fd, socket] : sockets_) socket->forget();
    sockets_.clear();
  }

  // The context shuts down with transfers in flight: nothing will run their completions, so their
  // coroutines are dropped unresumed (Asio unwinds them with the context's other pending work).
  // The frames hold this object and their transfers hold the frames; this breaks that cycle.
  void abandon() {
    stopped_ = true;
    auto transfers = std::move(transfers_);
    transfers_.clear();
    for (auto& [easy, t] : transfers) {
      curl_multi_remove_handle(multi_, easy);
      t->resumer.reset();
    }
  }

  asio::strand<asio::any_io_executor> strand;
  AbandonedWaits::Registration abandoned;

 private:
  // A socket libcurl opened and asked us to watch. libcurl owns the fd: the descriptor is only
  // released, never closed, or libcurl would later close a number that may be reused by then.
  struct Socket {
    explicit Socket(asio::strand<asio::any_io_executor> ex) : descriptor(std::move(ex)) {}
    ~Socket() { forget(); }
    void forget() {
      removed = true;
      if (descriptor.is_open()) descriptor.release();  // aborts pending waits
    }
    asio::posix::stream_descriptor descriptor;
    int wanted = 0;  // CURL_POLL_IN / OUT / INOUT
    bool reading = false;
    bool writing = false;
    bool removed = false;
  };

  static int on_socket(CURL* /*easy*/, curl_socket_t fd, int what, void* user, void* /*socketp*/) {
    static_cast<Impl*>(user)->update_socket(fd, what);
    return 0;
  }

  static int on_timer(CURLM* /*multi*/, long timeout_ms, void* user) {
    static_cast<Impl*>(user)->update_timer(timeout_ms);
    return 0;
  }

  // libcurl stops watching a kept-alive connection between requests (CURL_POLL_REMOVE) and
  // watches it again for the next one. The socket stays registered with the reactor meanwhile,
  // parked: only libcurl's close (on_close_socket) unregisters it. Registering it anew for every
  // request cost two epoll_ctl calls and an allocation per poll.
  void update_socket(curl_socket_t fd, int what) {
    if (what == CURL_POLL_REMOVE) {
      if (auto it = sockets_.find(fd); it != sockets_.end()) park(*it->second);
      return;
    }
    auto& socket = sockets_[fd];
    if (!socket) {
      socket = std::make_shared<Socket>(strand);
      error_code ec;
      socket->descriptor.assign(fd, ec);
      if (ec) {
        sockets_.erase(fd);
        return;  // the transfer will time out; nothing else can be done from inside libcurl
      }
    }
    socket->wanted = what;
    arm(socket, fd);
  }

  static void park(Socket& socket) {
    socket.wanted = 0;
    if (socket.reading || socket.writing) {
      error_code ignored;
      socket.descriptor.cancel(ignored);  // the aborted waits see wanted == 0 and stop there
    }
  }

  // Descriptor numbers are reused as soon as they are closed: whatever we knew about `fd` is
  // forgotten before libcurl closes it (and again when a socket is opened, in case libcurl ever
  // closed one without telling us).
  void forget_socket(curl_socket_t fd) {
    if (auto it = sockets_.find(fd); it != sockets_.end()) {
      it->second->forget();
      sockets_.erase(it);
    }
  }

  static curl_socket_t on_open_socket(void* user, curlsocktype /*purpose*/,
                                      curl_sockaddr* address) {
    const curl_socket_t fd = ::socket(address->family, address->socktype, address->protocol);
    if (fd != CURL_SOCKET_BAD) static_cast<Impl*>(user)->forget_socket(fd);
    return fd;
  }

  static int on_close_socket(void* user, curl_socket_t fd) {
    auto* self = static_cast<Impl*>(user);
    if (!self->closing_) self->forget_socket(fd);
    return ::close(fd);
  }

  void arm(const std::shared_ptr<Socket>& socket, curl_socket_t fd) {
    if ((socket->wanted & CURL_POLL_IN) && !socket->reading) wait(socket, fd, false);
    if ((socket->wanted & CURL_POLL_OUT) && !socket->writing) wait(socket, fd, true);
  }

  void wait(const std::shared_ptr<Socket>& socket, curl_socket_t fd, bool write) {
    (write ? socket->writing : socket->reading) = true;
    auto on_ready = [self = shared_from_this(), socket, fd, write](error_code ec) {
      self->socket_ready(socket, fd, write, ec);
    };
    socket->descriptor.async_wait(write ? asio::posix::stream_descriptor::wait_write
                                        : asio::posix::stream_descriptor::wait_read,
                                  std::move(on_ready));
  }

  void socket_ready(const std::shared_ptr<Socket>& socket, curl_socket_t fd, bool write,
                    error_code ec) {
    (write ? socket->writing : socket->reading) = false;
    if (socket->removed || stopped_) return;
    // An aborted wait (the socket was parked) acts on nothing, but libcurl may have asked for
    // the socket again before the abort arrived: arm() below then waits anew.
    if (ec != asio::error::operation_aborted) {
      const int flags = ec ? CURL_CSELECT_ERR : (write ? CURL_CSELECT_OUT : CURL_CSELECT_IN);
      act(fd, flags);
    }
    // libcurl may have removed the socket, or changed what it wants, while it ran.
    if (!socket->removed && !stopped_) arm(socket, fd);
  }

  void update_timer(long timeout_ms) {
    if (timeout_ms < 0) {
      timer_.cancel();
      return;
    }
    // Never call curl_multi_socket_action from inside a libcurl callback: always via the timer.
    timer_.expires_after(std::chrono::milliseconds(timeout_ms));
    auto on_expiry = [self = shared_from_this()](error_code ec) {
      if (!ec && !self->stopped_) self->act(CURL_SOCKET_TIMEOUT, 0);
    };
    timer_.async_wait(std::move(on_expiry));
  }

  void act(curl_socket_t fd, int flags) {
    int running = 0;
    curl_multi_socket_action(multi_, fd, flags, &running);
    collect_finished();
  }

  void collect_finished() {
    int left = 0;
    while (CURLMsg* message = curl_multi_info_read(multi_, &left)) {
      if (message->msg != CURLMSG_DONE) continue;
      CURL* easy = message->easy_handle;
      const CURLcode code = message->data.result;  // `message` dies with remove_handle
      auto it = transfers_.find(easy);
      if (it == transfers_.end()) continue;
      std::shared_ptr<Transfer> t = std::move(it->second);
      transfers_.erase(it);
      curl_multi_remove_handle(multi_, easy);
      HttpResult result = classify(*t, code);
      recycle(*t);
      complete(t, std::move(result));
    }
  }

  // Easy handles are reused: a fresh one costs a few allocations (its state and a 16 KiB
  // receive buffer) that showed in the profile of a steady sweep.
  CURL* take_easy() {
    if (idle_easy_.empty()) return curl_easy_init();
    CURL* easy = idle_easy_.back();
    idle_easy_.pop_back();
    return easy;
  }

  void recycle(Transfer& t) {
    if (idle_easy_.size() >= kMaxIdleEasy) return;  // ~Transfer cleans it up
    curl_easy_reset(t.easy);                        // forgets every option, keeps the buffers
    // The form was made for this handle: it goes before the handle serves another transfer.
    curl_mime_free(std::exchange(t.form, nullptr));
    idle_easy_.push_back(std::exchange(t.easy, nullptr));
  }

  // Hands the result to the awaiting coroutine through its own executor, never inline on the
  // strand: resuming it here would run the caller's code inside libcurl's bookkeeping.
  static void complete(const std::shared_ptr<Transfer>& t, HttpResult result) {
    t->result.emplace(std::move(result));
    auto resume = [resumer = std::move(t->resumer)] { resumer->resume(); };
    asio::post(t->caller, std::move(resume));
  }

  static constexpr std::size_t kMaxIdleEasy = 32;

  CURLM* multi_ = nullptr;
  std::vector<CURL*> idle_easy_;
  asio::steady_timer timer_;
  std::map<curl_socket_t, std::shared_ptr<Socket>> sockets_;
  std::map<CURL*, std::shared_ptr<Transfer>> transfers_;
  bool stopped_ = false;
  bool closing_ = false;  // in the destructor: libcurl's closes need no bookkeeping
};

CurlMultiClient::CurlMultiClient(asio::any_io_executor executor)
    : CurlMultiClient(std::move(executor), Options{}) {}

namespace {

// A connection limit shared out over `shards` handles (0, "no limit", stays 0).
long per_shard(long limit, std::size_t shards) {
  if (limit <= 0) return limit;
  const long count = static_cast<long>(shards);
  return std::max(1L, (limit + count - 1) / count);
}

}  // namespace

CurlMultiClient::CurlMultiClient(asio::any_io_executor executor, Options options) {
  const std::size_t count = std::max<std::size_t>(1, options.shards);
  Options shard = options;
  shard.max_total_connections = per_shard(options.max_total_connections, count);
  shard.max_idle_connections = per_shard(options.max_idle_connections, count);
  shards_.reserve(count);
  AbandonedWaits& abandoned = AbandonedWaits::of(executor);
  for (std::size_t i = 0; i < count; ++i) {
    auto impl = std::make_shared<Impl>(executor, shard);
    impl->abandoned = abandoned.add([weak = std::weak_ptr<Impl>(impl)] {
      if (auto alive = weak.lock()) alive->abandon();
    });
    shards_.push_back(std::move(impl));
  }
}

CurlMultiClient::~CurlMultiClient() {
  for (const auto& impl : shards_) {
    auto stop = [impl] { impl->shutdown(); };
    asio::post(impl->strand, std::move(stop));
  }
}

std::string_view url_origin(std::string_view url) {
  const auto scheme = url.find("://");
  if (scheme == std::string_view::npos) return url;
  const auto end = url.find_first_of("/?#", scheme + 3);
  return url.substr(0, end);
}

CurlMultiClient::Impl& CurlMultiClient::shard_for(std::string_view url) const {
  const std::size_t hash = std::hash<std::string_view>{}(url_origin(url));
  return *shards_[hash % shards_.size()];
}

namespace {

// Starts a transfer on its shard's strand. If the context shuts down first, Asio destroys this
// unrun, and with it the last thing that could break the cycle between the transfer (whose
// resumer holds the awaiting coroutine) and that coroutine's frame (which holds the transfer):
// the shard's abandon() only sees transfers already started. So it drops the resumer itself.
template <class Impl>
class StartTransfer {
 public:
  StartTransfer(std::shared_ptr<Impl> impl, std::shared_ptr<Transfer> transfer)
      : impl_(std::move(impl)), transfer_(std::move(transfer)) {}
  StartTransfer(StartTransfer&&) noexcept = default;
  StartTransfer& operator=(StartTransfer&&) noexcept = default;
  StartTransfer(const StartTransfer&) = delete;  // a copy's destruction would drop the resumer
  StartTransfer& operator=(const StartTransfer&) = delete;
  ~StartTransfer() {
    if (transfer_) transfer_->resumer.reset();
  }

  void operator()() { impl_->start(std::exchange(transfer_, nullptr)); }

 private:
  std::shared_ptr<Impl> impl_;
  std::shared_ptr<Transfer> transfer_;
};

}  // namespace

asio::awaitable<HttpResult> CurlMultiClient::request(HttpRequest request) {
  auto transfer = std::make_shared<Transfer>();
  std::shared_ptr<Impl> impl = shard_for(request.url).shared_from_this();
  transfer->request = std::move(request);
  transfer->caller = co_await asio::this_coro::executor;
  // Named, not written inside the co_await: GCC 12 mishandles temporaries with destructors
  // there (a double free we have hit).
  auto initiate = [impl, transfer](auto handler) {
    transfer->resumer = make_resumer(std::move(handler));
    asio::post(impl->strand, StartTransfer<Impl>(impl, transfer));
  };
  co_await asio::async_initiate<const asio::use_awaitable_t<>, void()>(initiate,
                                                                       asio::use_awaitable);
  co_return std::move(*transfer->result);
}

}  // namespace ironhold::bmc::http
