#pragma once
// A real Ironhold HTTP service on 127.0.0.1:<ephemeral port> over a fresh test database, with a
// random master key: what the web and CLI tests talk to over real loopback HTTP.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "app/server/service_host.hpp"
#include "tests/support/test_database.hpp"

namespace ironhold::test {

class TestServer {
 public:
  // `probe` sets the ports and timeout of the driver-auto probe, so that tests can point it at
  // peers on unprivileged ports. The poller runs only when `poller` is given: most tests enroll
  // addresses nothing answers on (and must send nothing off loopback). The cloud sync runs only
  // when `cloud_sync` is given, for the same reason. The task engine runs unless `tasks` is
  // nullopt.
  explicit TestServer(web::ServerOptions options = {}, bmc::ProbeOptions probe = {},
                      std::optional<PollerOptions> poller = std::nullopt,
                      std::optional<CloudSyncOptions> cloud_sync = std::nullopt,
                      std::optional<TaskEngineOptions> tasks = fast_tasks());
  // The task engine as tests run it: quick claims and verification readings. nullopt: no engine
  // (tasks stay queued).
  static TaskEngineOptions fast_tasks();
  ~TestServer();

  std::string url() const;  // "http://127.0.0.1:PORT"
  unsigned short port() const { return port_; }
  // A new API token of that role ("viewer", "operator", "admin", "auditor").
  std::string token(std::string_view role);
  app::ServiceHost& host() { return *host_; }
  TestDatabase& database() { return database_; }
  // Where the audit chain's head is anchored, outside the database.
  std::filesystem::path anchor_file() const { return state_dir_ / "audit-anchor"; }
  // Stops the service gracefully (requests in flight finish); the destructor does it too.
  void stop();

 private:
  std::filesystem::path state_dir_;  // the instance's files (the audit anchor); removed at the end
  TestDatabase database_;
  std::unique_ptr<app::ServiceHost> host_;
  unsigned short port_ = 0;
  int tokens_made_ = 0;
};

}  // namespace ironhold::test
