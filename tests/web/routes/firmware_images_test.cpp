// Firmware images through the real HTTP service: a streamed upload bigger than the request body
// limit, stored in chunks and hashed; checksums that do not match; downloads through signed URLs
// without a token; who may do what; and an upload that breaks off leaving nothing behind.
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <catch2/catch.hpp>
#include <random>
#include <thread>

#include "inventory/crypto/primitives.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace firmware_images_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;

namespace {

std::string random_image(std::size_t size, unsigned seed) {
  std::mt19937 rng(seed);
  std::string out(size, '\0');
  for (auto& c : out) c = static_cast<char>(rng() & 0xff);
  return out;
}

HttpResult upload(TestServer& server, const std::string& token, const std::string& query,
                  const std::string& bytes, const std::string& checksum = "") {
  HttpRequest r;
  r.method = "POST";
  r.target = "/api/v1/firmware/images?" + query;
  r.body = bytes;
  r.token = token;
  r.content_type = "application/octet-stream";
  if (!checksum.empty()) r.headers["X-Checksum-SHA256"] = checksum;
  return http_request(server.port(), r);
}

std::string sha256_hex(const std::string& bytes) {
  return crypto::to_hex(crypto::sha256(bytes));
}

// The path and query of a URL the server handed out ("http://127.0.0.1:PORT/api/...").
std::string target_of(const std::string& url) {
  const auto scheme = url.find("://");
  return url.substr(url.find('/', scheme + 3));
}

}  // namespace

TEST_CASE("a firmware image is uploaded streamed, listed, and downloaded through a signed URL",
          "[web][firmware]") {
  TestServer server;
  const auto admin = server.token("admin");
  // Three and a half chunks, and more than three times the request body limit.
  const std::string image = random_image((7u << 20) / 2, 1);
  const auto created =
      upload(server, admin,
             "name=bmc-2.1.0.bin&version=2.1.0&component=BMC&model=" + url_encode("HGX H100 8-GPU"),
             image, sha256_hex(image));
  INFO(created.body.substr(0, 500));
  REQUIRE(created.status == 201);
  const json body = created.json();
  const std::string id = body["id"];
  CHECK(created.header("location") == "/api/v1/firmware/images/" + id);
  CHECK(body["size"] == image.size());
  CHECK(body["sha256"] == sha256_hex(image));
  CHECK(body["component"] == "BMC");
  CHECK(body["model"] == "HGX H100 8-GPU");
  CHECK(server.database().execute("SELECT count(*) FROM firmware_image_chunks WHERE image_id = '" +
                                  id + "'") == "4");

  const auto viewer = server.token("viewer");
  const json listed = http_get(server.port(), "/api/v1/firmware/images", viewer).json();
  REQUIRE(listed["items"].size() == 1);
  CHECK(listed["items"][0]["id"] == id);

  // The signed URL needs no token, and gives the very bytes uploaded.
  const auto operator_token = server.token("operator");
  const auto signed_url = http_send(server.port(), "POST", "/api/v1/firmware/images/" + id + "/url",
                                    {{"expires_in_s", 600}}, operator_token);
  INFO(signed_url.body);
  REQUIRE(signed_url.status == 200);
  const std::string url = signed_url.json()["url"];
  CHECK(url.rfind(server.url() + "/api/v1/firmware/images/" + id + "/content?", 0) == 0);
  const auto download = http_get(server.port(), target_of(url), std::nullopt);
  REQUIRE(download.status == 200);
  CHECK(download.body.size() == image.size());
  CHECK(download.body == image);
  CHECK(download.header("x-checksum-sha256") == sha256_hex(image));

  // Any change to the URL breaks the signature: another expiry, another image, no signature.
  std::string later = target_of(url);
  const auto expires_at = later.find("expires=") + 8;
  later.replace(expires_at, 1, later[expires_at] == '9' ? "8" : "9");
  CHECK(http_get(server.port(), later, std::nullopt).status == 403);
  CHECK(
      http_get(server.port(), "/api/v1/firmware/images/" + id + "/content", std::nullopt).status ==
      403);

  // Deleted: gone from the list, and its URL serves nothing.
  const auto removed =
      http_send(server.port(), "DELETE", "/api/v1/firmware/images/" + id, nullptr, admin);
  CHECK(removed.status == 204);
  CHECK(http_get(server.port(), "/api/v1/firmware/images/" + id, viewer).status == 404);
  CHECK(http_get(server.port(), target_of(url), std::nullopt).status == 404);
  CHECK(server.database().execute("SELECT count(*) FROM firmware_image_chunks") == "0");
}

TEST_CASE("uploads that are wrong are refused and leave nothing behind", "[web][firmware]") {
  TestServer server;
  const auto admin = server.token("admin");
  const std::string image = random_image(300'000, 2);
  const std::string query = "name=bios.bin&version=1.0&component=BIOS";

  // A checksum that does not match: 422, and the bytes are gone.
  const auto mismatch = upload(server, admin, query, image, std::string(64, '0'));
  CHECK(mismatch.status == 422);
  CHECK(mismatch.json()["detail"].get<std::string>().find(sha256_hex(image)) != std::string::npos);
  CHECK(upload(server, admin, query, image, "not-hex").status == 400);
  CHECK(upload(server, admin, query, "").status == 422);
  CHECK(upload(server, admin, "name=bios.bin&component=BIOS", image).status == 400);
  CHECK(upload(server, admin, "name=a/b.bin&version=1&component=BIOS", image).status == 400);
  CHECK(upload(server, server.token("operator"), query, image).status == 403);
  CHECK(server.database().execute("SELECT count(*) FROM firmware_images") == "0");
  CHECK(server.database().execute("SELECT count(*) FROM firmware_image_chunks") == "0");

  // A client that says 3 MiB and goes away after 1: the partial upload is discarded.
  {
    boost::asio::io_context io;
    boost::asio::ip::tcp::socket socket(io);
    socket.connect({boost::asio::ip::make_address("127.0.0.1"), server.port()});
    const std::string head =
        "POST /api/v1/firmware/images?" + query +
        " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + admin +
        "\r\nContent-Type: application/octet-stream\r\nContent-Length: " + std::to_string(3 << 20) +
        "\r\n\r\n";
    boost::asio::write(socket, boost::asio::buffer(head));
    boost::asio::write(socket, boost::asio::buffer(random_image(1 << 20, 3)));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  bool cleaned = false;
  for (int i = 0; i < 100 && !cleaned; ++i) {
    cleaned = server.database().execute("SELECT count(*) FROM firmware_images") == "0";
    if (!cleaned) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(cleaned);
  CHECK(server.database().execute("SELECT count(*) FROM firmware_image_chunks") == "0");
}

}  // namespace firmware_images_test
