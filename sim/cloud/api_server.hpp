#pragma once
// The socket side of a simulated cloud provider API (sim/cloud/openstack, ec2, bcc): a Beast
// coroutine HTTP server on loopback, keep-alive, read with a timeout and a body limit. Each request
// goes to the provider's handler, which answers synchronously with the reply and, optionally, how
// long to wait before sending it (injected latency). Handlers run on the server's io_context
// threads; a provider guards its own state.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ironhold::sim::cloud {

struct ApiRequest {
  std::string method;  // "GET", "POST", ...
  std::string target;  // path and query, as sent ("/v2/instance?marker=x")
  std::vector<std::pair<std::string, std::string>> headers;  // as sent, in order
  std::string body;
  std::string host;  // the Host header ("127.0.0.1:8774")

  // The first header called `name` (case-insensitive).
  std::optional<std::string> header(std::string_view name) const;
  std::string_view path() const;   // target up to '?'
  std::string_view query() const;  // after '?', "" when none
};

struct ApiReply {
  unsigned status = 200;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::chrono::milliseconds delay{0};  // wait this long before answering (latency faults)
};

using ApiHandler = std::function<ApiReply(const ApiRequest&)>;

class ApiServer {
 public:
  ApiServer(boost::asio::io_context& io, ApiHandler handler);
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  // Binds (port 0 picks a free one) and starts accepting; returns the bound endpoint. Throws
  // ironhold::Error (invalid) when the address cannot be bound.
  boost::asio::ip::tcp::endpoint listen(const boost::asio::ip::tcp::endpoint& endpoint);
  void close();

  struct State;

 private:
  std::shared_ptr<State> state_;
};

// "a=1&b=x%20y" -> {{"a","1"},{"b","x y"}} ('+' is a space in form bodies; percent-decoded).
std::vector<std::pair<std::string, std::string>> parse_form(std::string_view text);

}  // namespace ironhold::sim::cloud
