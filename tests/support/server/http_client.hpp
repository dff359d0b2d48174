#pragma once
// A small synchronous HTTP/1.1 client over a real loopback socket, for tests.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace ironhold::test {

struct HttpResult {
  int status = 0;
  // Lower-case names; a header sent several times (Set-Cookie) has its values one per line.
  std::map<std::string, std::string> headers;
  std::string body;
  nlohmann::json json() const;  // throws if the body is not JSON
  std::string header(const std::string& name) const;
};

struct HttpRequest {
  std::string method = "GET";
  std::string target = "/";
  std::string body;
  std::optional<std::string> token;
  std::string content_type = "application/json";
  std::map<std::string, std::string> headers;
};

HttpResult http_request(unsigned short port, const HttpRequest& request);

// Shorthands.
HttpResult http_get(unsigned short port, const std::string& target,
                    const std::optional<std::string>& token);
HttpResult http_send(unsigned short port, const std::string& method, const std::string& target,
                     const nlohmann::json& body, const std::optional<std::string>& token);

// Percent-encodes a query value.
std::string url_encode(const std::string& value);

}  // namespace ironhold::test
