// The CLI's HTTP client against a real TCP peer on 127.0.0.1: a tiny HTTP/1.1 responder that
// records each request and plays back a canned answer, so headers, methods, bodies and the
// mapping of problem+json answers to errors can be checked without the Ironhold server.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <charconv>
#include <string>
#include <thread>

#include "app/cli/http_client.hpp"
#include "inventory/util/concat.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace cli_http_client_test {

using namespace ironhold::cli;

namespace {

class CannedServer {
 public:
  // Serves one connection per answer, in order, then stops.
  explicit CannedServer(std::vector<std::string> answers) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    REQUIRE(::listen(fd_, 8) == 0);
    // A test that fails before making all its requests must not hang in accept() for ever.
    timeval timeout{.tv_sec = 10, .tv_usec = 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    thread_ = std::thread([this, answers = std::move(answers)] {
      for (const auto& answer : answers) serve(answer);
    });
  }
  ~CannedServer() {
    thread_.join();
    ::close(fd_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Requests as received (head and body), in order; read after the client calls returned.
  const std::vector<std::string>& requests() const { return requests_; }

 private:
  void serve(const std::string& answer) {
    const int c = ::accept(fd_, nullptr, nullptr);
    if (c < 0) return;
    std::string req;
    char buf[4096];
    std::size_t need = std::string::npos;
    while (need == std::string::npos || req.size() < need) {
      const ssize_t n = ::read(c, buf, sizeof buf);
      if (n <= 0) break;
      req.append(buf, static_cast<std::size_t>(n));
      const auto end = req.find("\r\n\r\n");
      if (need == std::string::npos && end != std::string::npos) {
        std::size_t body = 0;
        if (auto cl = req.find("Content-Length: "); cl != std::string::npos && cl < end)
          std::from_chars(req.data() + cl + 16, req.data() + end, body);
        need = end + 4 + body;
      }
    }
    requests_.push_back(req);
    // MSG_NOSIGNAL: a client that gives up half-way must not SIGPIPE the test process.
    (void)!::send(c, answer.data(), answer.size(), MSG_NOSIGNAL);
    ::close(c);
  }

  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::vector<std::string> requests_;
};

std::string answer(int status, std::string content_type, std::string body) {
  return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Type: " + content_type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
         body;
}

int closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);  // nobody listens there now
  return ntohs(addr.sin_port);
}

}  // namespace

TEST_CASE("http client: sends the token and JSON, parses JSON answers", "[cli][http]") {
  CannedServer server({answer(200, "application/json", R"({"items":[],"next":null})"),
                       answer(201, "application/json", R"({"id":"n1"})"),
                       answer(200, "application/json", R"({"id":"n1","name":"b"})"),
                       answer(204, "application/json", "")});
  {
    HttpClient client({.base_url = server.url() + "/", .token = "tok-123"});
    CHECK(client.get("/api/v1/nodes?limit=5")["items"].is_array());
    CHECK(client.post("/api/v1/nodes", {{"name", "a"}})["id"] == "n1");
    CHECK(client.patch("/api/v1/nodes/a", {{"name", "b"}})["name"] == "b");
    CHECK(client.del("/api/v1/nodes/b").is_null());
  }
  const auto& r = server.requests();
  REQUIRE(r.size() == 4);
  CHECK(r[0].starts_with("GET /api/v1/nodes?limit=5 HTTP/1.1\r\n"));
  CHECK(r[0].find("Authorization: Bearer tok-123\r\n") != std::string::npos);
  CHECK(r[1].starts_with("POST /api/v1/nodes HTTP/1.1\r\n"));
  CHECK(r[1].find("Content-Type: application/json\r\n") != std::string::npos);
  CHECK(r[1].ends_with("\r\n\r\n{\"name\":\"a\"}"));
  CHECK(r[2].starts_with("PATCH /api/v1/nodes/a HTTP/1.1\r\n"));
  CHECK(r[2].ends_with("{\"name\":\"b\"}"));
  CHECK(r[3].starts_with("DELETE /api/v1/nodes/b HTTP/1.1\r\n"));
}

TEST_CASE("http client: a problem answer becomes ApiError with its detail", "[cli][http]") {
  CannedServer server(
      {answer(409, "application/problem+json",
              R"({"type":"about:blank","title":"Conflict","status":409,)"
              R"("detail":"a node named gpu-a01 already exists","field":"name",)"
              R"("request_id":"r-42"})"),
       answer(401, "application/problem+json", R"({"title":"Unauthorized","status":401})"),
       answer(502, "text/plain", "upstream down"), answer(500, "text/html", "<html>oops</html>")});
  HttpClient client({.base_url = server.url()});
  try {
    client.post("/api/v1/nodes", {{"name", "gpu-a01"}});
    FAIL("no error");
  } catch (const ApiError& e) {
    CHECK(std::string(e.what()) == "a node named gpu-a01 already exists");
    CHECK(e.status() == 409);
    CHECK(e.kind() == ironhold::ErrorKind::conflict);
    CHECK(e.field() == "name");
    CHECK(e.request_id() == "r-42");
  }
  CHECK_THROWS_WITH(client.get("/x"), "Unauthorized");
  CHECK_THROWS_WITH(client.get("/x"), "the server answered HTTP 502: upstream down");
  CHECK_THROWS_WITH(client.get("/x"), "the server answered HTTP 500");
}

TEST_CASE("http client: a success answer that is not JSON is an error", "[cli][http]") {
  CannedServer server({answer(200, "text/html", "<html>login page</html>")});
  HttpClient client({.base_url = server.url()});
  CHECK_THROWS_WITH(client.get("/api/v1/nodes"),
                    Catch::Contains("with something that is not JSON (HTTP 200, text/html)"));
}

TEST_CASE("http client: an unreachable server is named in the error", "[cli][http]") {
  const std::string url = "http://127.0.0.1:" + std::to_string(closed_port());
  HttpClient client({.base_url = url});
  try {
    client.get("/api/v1/nodes");
    FAIL("no error");
  } catch (const TransportError& e) {
    CHECK_THAT(e.what(), Catch::StartsWith("cannot reach " + url + ": "));
    CHECK(e.kind() == ironhold::ErrorKind::unavailable);
  }
}

TEST_CASE("http client: an answer over the size limit is refused", "[cli][http]") {
  CannedServer server({answer(200, "application/json",
                              ironhold::util::concat("[", std::string(4 << 20, ' '), "]"))});
  HttpClient client({.base_url = server.url(), .max_body = 1 << 20});
  CHECK_THROWS_AS(client.get("/big"), TransportError);
}

TEST_CASE("url_encode keeps unreserved characters only", "[cli][http]") {
  CHECK(url_encode("gpu-a01_x.~") == "gpu-a01_x.~");
  CHECK(url_encode("a b/c?d&e=f:g%") == "a%20b%2Fc%3Fd%26e%3Df%3Ag%25");
  CHECK(url_encode("\xC3\xBC") == "%C3%BC");
  CHECK(url_encode("") == "");
}

}  // namespace cli_http_client_test
