#pragma once
// A plain-HTTP/1.1 peer on 127.0.0.1 for the transport tests, where TlsTestServer (one
// connection at a time, Connection: close, no custom headers) cannot show what is checked:
// keep-alive, concurrency per host, Retry-After, a server that never answers. One thread per
// connection, keep-alive honoured; it counts connections, requests and the most requests it
// ever had in flight at once.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace ironhold::test {

struct PeerResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::chrono::milliseconds delay{0};  // before answering, to let concurrent requests overlap
  bool hang = false;                   // never answer
  bool close = false;                  // close the connection after answering
};

class HttpPeer {
 public:
  // The handler gets the request line ("GET /x HTTP/1.1").
  using Handler = std::function<PeerResponse(const std::string&)>;

  explicit HttpPeer(Handler handler) : handler_(std::move(handler)) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = 0;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listener_, 256) != 0)
      throw std::runtime_error("HttpPeer: cannot listen");
    socklen_t length = sizeof addr;
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &length);
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
  }

  ~HttpPeer() {
    stop_ = true;
    acceptor_.join();
    std::vector<std::thread> threads;
    {
      std::lock_guard lock(mutex_);
      threads.swap(connections_);
    }
    for (auto& t : threads) t.join();
    ::close(listener_);
  }

  HttpPeer(const HttpPeer&) = delete;
  HttpPeer& operator=(const HttpPeer&) = delete;

  unsigned short port() const { return port_; }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  int connections() const { return connection_count_; }
  // Every request so far, exactly as it arrived (head, blank line and body).
  std::vector<std::string> received() {
    std::lock_guard lock(heads_mutex_);
    return heads_;
  }
  int requests() const { return request_count_; }
  int max_in_flight() const { return max_in_flight_; }

 private:
  void accept_loop() {
    while (!stop_) {
      pollfd p{listener_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      ++connection_count_;
      std::lock_guard lock(mutex_);
      connections_.emplace_back([this, client] {
        serve(client);
        ::close(client);
      });
    }
  }

  // Reads more into `buffer`; false when the peer is gone or the test is over.
  bool read_more(int fd, std::string& buffer) {
    while (!stop_) {
      pollfd p{fd, POLLIN, 0};
      const int ready = ::poll(&p, 1, 20);
      if (ready < 0) return false;
      if (ready == 0) continue;
      char chunk[4096];
      const ssize_t got = ::recv(fd, chunk, sizeof chunk, 0);
      if (got <= 0) return false;
      buffer.append(chunk, static_cast<std::size_t>(got));
      return true;
    }
    return false;
  }

  static std::size_t content_length(const std::string& head) {
    std::string lower = head;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const auto at = lower.find("\r\ncontent-length:");
    return at == std::string::npos ? 0 : std::stoul(lower.substr(at + 17));
  }

  void serve(int fd) {
    std::string buffer;
    for (;;) {
      std::size_t end;
      while ((end = buffer.find("\r\n\r\n")) == std::string::npos)
        if (!read_more(fd, buffer)) return;
      const std::string head = buffer.substr(0, end);
      const std::size_t total = end + 4 + content_length(head);
      while (buffer.size() < total)
        if (!read_more(fd, buffer)) return;
      {
        std::lock_guard lock(heads_mutex_);
        heads_.push_back(buffer.substr(0, total));
      }
      buffer.erase(0, total);
      ++request_count_;
      const int now = ++in_flight_;
      for (int seen = max_in_flight_;
           now > seen && !max_in_flight_.compare_exchange_weak(seen, now);) {
      }
      const PeerResponse response = handler_(head.substr(0, head.find("\r\n")));
      if (response.hang) {
        --in_flight_;
        while (read_more(fd, buffer)) {
        }
        return;
      }
      std::this_thread::sleep_for(response.delay);
      std::string out = "HTTP/1.1 " + std::to_string(response.status) + " Status\r\n";
      for (const auto& [name, value] : response.headers) out += name + ": " + value + "\r\n";
      out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n\r\n" + response.body;
      --in_flight_;  // before the answer leaves, so a client's next request cannot overlap it
      if (::send(fd, out.data(), out.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(out.size()))
        return;
      if (response.close) return;
    }
  }

  Handler handler_;
  std::mutex heads_mutex_;
  std::vector<std::string> heads_;  // every request as received: head and body
  int listener_ = -1;
  unsigned short port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connection_count_{0};
  std::atomic<int> request_count_{0};
  std::atomic<int> in_flight_{0};
  std::atomic<int> max_in_flight_{0};
  std::mutex mutex_;
  std::vector<std::thread> connections_;
  std::thread acceptor_;
};

}  // namespace ironhold::test
