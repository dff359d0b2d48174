#include "tests/support/server/test_server.hpp"

#include <stdexcept>

#include "inventory/crypto/primitives.hpp"

namespace ironhold::test {

TestServer::TestServer(web::ServerOptions options, bmc::ProbeOptions probe,
                       std::optional<PollerOptions> poller,
                       std::optional<CloudSyncOptions> cloud_sync,
                       std::optional<TaskEngineOptions> tasks) {
  app::ServiceConfig config;
  config.database_url = database_.url();
  crypto::random_bytes(config.master_key);
  crypto::random_bytes(config.audit_key);
  std::array<std::uint8_t, 8> tag{};
  crypto::random_bytes(tag);
  state_dir_ =
      std::filesystem::temp_directory_path() / ("ironhold-test-server-" + crypto::to_hex(tag));
  std::filesystem::create_directories(state_dir_);
  config.audit_anchor_file = state_dir_ / "audit-anchor";
  config.listen = "127.0.0.1:0";
  config.io_threads = 2;
  config.database_connections = 4;
  config.server = options;
  config.probe = probe;
  config.poller_enabled = poller.has_value();
  if (poller) config.poller = *poller;
  config.cloud_sync_enabled = cloud_sync.has_value();
  if (cloud_sync) config.cloud_sync = *cloud_sync;
  config.tasks_enabled = tasks.has_value();
  if (tasks) config.tasks = *tasks;
  config.rollout_interval = std::chrono::milliseconds(200);
  config.password_rotation_interval = std::chrono::milliseconds(300);
  // No subscriptions on the tests' BMCs: their simulators count every request. The pushed-event
  // tests run `ironhold serve` (tests/app/redfish_events_test.cpp).
  config.event_subscriptions_enabled = false;
  // Cheap password hashes (scrypt N = 2^10): sign-ins are many here and the sanitizers are slow;
  // the stored parameters are read back per hash, so every code path is the production one.
  config.password_hashing = {.log2_n = 10, .r = 8, .p = 1};
  // Alerts evaluated and sent without the production pauses.
  config.alerts.evaluate_every = std::chrono::milliseconds(200);
  config.alerts.deliver_every = std::chrono::milliseconds(200);
  config.alerts.retry_base = std::chrono::milliseconds(300);
  host_ = std::make_unique<app::ServiceHost>(config);
  port_ = host_->start().port();
}

TaskEngineOptions TestServer::fast_tasks() {
  TaskEngineOptions o;
  o.idle_wait = std::chrono::milliseconds(100);
  o.verify_interval = std::chrono::milliseconds(200);
  return o;
}

void TestServer::stop() {
  if (host_) host_->stop();
}

TestServer::~TestServer() {
  stop();
  std::error_code ignored;
  std::filesystem::remove_all(state_dir_, ignored);
}

std::string TestServer::url() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

std::string TestServer::token(std::string_view role_name) {
  const auto role = parse_enum<Role>(role_name);
  if (!role) throw std::invalid_argument("unknown role " + std::string(role_name));
  const std::string name = std::string(role_name) + "-" + std::to_string(++tokens_made_);
  return host_->tokens().create({.name = name, .role = *role, .created_by = "test"}).secret;
}

}  // namespace ironhold::test
