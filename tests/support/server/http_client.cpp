#include "tests/support/server/http_client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

namespace ironhold::test {

namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

nlohmann::json HttpResult::json() const {
  return nlohmann::json::parse(body);
}

std::string HttpResult::header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

HttpResult http_request(unsigned short port, const HttpRequest& r) {
  boost::asio::io_context io;
  tcp::socket socket(io);
  socket.connect({boost::asio::ip::make_address("127.0.0.1"), port});
  http::request<http::string_body> req{http::string_to_verb(r.method), r.target, 11};
  req.set(http::field::host, "127.0.0.1");
  if (r.token) req.set(http::field::authorization, "Bearer " + *r.token);
  if (!r.body.empty() || r.method == "POST" || r.method == "PATCH")
    req.set(http::field::content_type, r.content_type);
  for (const auto& [k, v] : r.headers) req.set(k, v);
  req.body() = r.body;
  req.prepare_payload();
  req.keep_alive(false);
  http::write(socket, req);
  boost::beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(256 * 1024 * 1024);
  http::read(socket, buffer, parser);
  auto res = parser.release();
  HttpResult out;
  out.status = res.result_int();
  for (const auto& field : res) {
    std::string name(field.name_string());
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // A header sent several times (Set-Cookie) keeps every value, one per line.
    auto& kept = out.headers[name];
    kept += (kept.empty() ? "" : "\n") + std::string(field.value());
  }
  out.body = res.body();
  boost::system::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_both, ignored);
  return out;
}

HttpResult http_get(unsigned short port, const std::string& target,
                    const std::optional<std::string>& token) {
  HttpRequest r;
  r.target = target;
  r.token = token;
  return http_request(port, r);
}

HttpResult http_send(unsigned short port, const std::string& method, const std::string& target,
                     const nlohmann::json& body, const std::optional<std::string>& token) {
  HttpRequest r;
  r.method = method;
  r.target = target;
  r.body = body.is_null() ? std::string() : body.dump();
  r.token = token;
  return http_request(port, r);
}

std::string url_encode(const std::string& value) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace ironhold::test
