#pragma once
// What the change stream tests share: a quiet service (no poller, sync or task engine writing on
// its own, so every change is the test's), a second instance of it on the same database, and
// node changes through the real API.
#include <catch2/catch.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "inventory/crypto/primitives.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/sse_client.hpp"
#include "tests/support/server/test_server.hpp"

namespace ironhold::test {

// A service whose only writer is the test.
inline std::unique_ptr<TestServer> quiet_server() {
  return std::make_unique<TestServer>(web::ServerOptions{}, bmc::ProbeOptions{}, std::nullopt,
                                      std::nullopt, std::nullopt);
}

// Another `ironhold serve` on the first one's database: another instance of the deployment.
class SecondInstance {
 public:
  explicit SecondInstance(TestServer& first) {
    app::ServiceConfig config;
    config.database_url = first.database().url();
    crypto::random_bytes(config.master_key);
    config.listen = "127.0.0.1:0";
    config.io_threads = 2;
    config.database_connections = 4;
    config.poller_enabled = false;
    config.cloud_sync_enabled = false;
    config.tasks_enabled = false;
    host_ = std::make_unique<app::ServiceHost>(config);
    port_ = host_->start().port();
  }
  ~SecondInstance() { host_->stop(); }
  unsigned short port() const { return port_; }

 private:
  std::unique_ptr<app::ServiceHost> host_;
  unsigned short port_ = 0;
};

inline std::string enroll_node(TestServer& server, const std::string& token,
                               const std::string& name) {
  const auto res = http_send(server.port(), "POST", "/api/v1/nodes",
                             {{"name", name},
                              {"driver", "redfish"},
                              {"endpoint", "https://10.1.2.3"},
                              {"credentials", {{"username", "root"}, {"password", "secret"}}}},
                             token);
  INFO(res.body);
  REQUIRE(res.status == 201);
  return res.json()["id"];
}

inline nlohmann::json patch_node(TestServer& server, const std::string& token,
                                 const std::string& id, const nlohmann::json& patch) {
  const auto res = http_send(server.port(), "PATCH", "/api/v1/nodes/" + id, patch, token);
  INFO(res.body);
  REQUIRE(res.status == 200);
  return res.json();
}

inline nlohmann::json get_json(TestServer& server, const std::string& token,
                               const std::string& target) {
  const auto res = http_get(server.port(), target, token);
  INFO(res.body);
  REQUIRE(res.status == 200);
  return res.json();
}

inline std::vector<std::string> ids_of(const std::vector<SseEvent>& events) {
  std::vector<std::string> ids;
  for (const auto& e : events) ids.push_back(e.id);
  return ids;
}

}  // namespace ironhold::test
