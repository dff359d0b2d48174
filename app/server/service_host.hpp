#pragma once
// The running service in one object: database pool, stores, API, HTTP server and the threads that
// carry them. `serve`, `demo` and the tests' TestServer all build one of these.
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bmc/ipmi/ipmi_driver.hpp"
#include "bmc/probe/bmc_prober.hpp"
#include "bmc/redfish/redfish_driver.hpp"
#include "inventory/alerts/alert_engine.hpp"
#include "inventory/cloud/cloud_sync.hpp"
#include "inventory/console/serial_console_hub.hpp"
#include "inventory/crypto/secret_box.hpp"
#include "inventory/crypto/url_signer.hpp"
#include "inventory/db/alert_store.hpp"
#include "inventory/db/audit_store.hpp"
#include "inventory/db/baseline_store.hpp"
#include "inventory/db/cloud_account_store.hpp"
#include "inventory/db/database.hpp"
#include "inventory/db/firmware_image_store.hpp"
#include "inventory/db/hardware_store.hpp"
#include "inventory/db/lifecycle_store.hpp"
#include "inventory/db/maintenance.hpp"
#include "inventory/db/node_store.hpp"
#include "inventory/db/poll_store.hpp"
#include "inventory/db/project_store.hpp"
#include "inventory/db/provisioning_store.hpp"
#include "inventory/db/rollout_store.hpp"
#include "inventory/db/serial_console_store.hpp"
#include "inventory/db/sign_in_throttle.hpp"
#include "inventory/db/task_store.hpp"
#include "inventory/db/token_store.hpp"
#include "inventory/db/user_store.hpp"
#include "inventory/events/event_subscriber.hpp"
#include "inventory/poller/poller.hpp"
#include "inventory/tasks/password_rotation.hpp"
#include "inventory/tasks/rollout_runner.hpp"
#include "inventory/tasks/task_engine.hpp"
#include "web/api.hpp"
#include "web/auth/directory.hpp"
#include "web/auth/identity_config.hpp"
#include "web/auth/oidc_service.hpp"
#include "web/redirect_server.hpp"
#include "web/server.hpp"

namespace ironhold::app {

struct ServiceConfig {
  std::string database_url;  // the runtime role's connection string
  // A direct connection for the change feed's LISTEN when database_url goes through PgBouncer in
  // transaction mode (--listen-database); empty: database_url.
  std::string listen_database_url;
  // Where exports read (--export-database: a read replica); empty: database_url.
  std::string export_database_url;
  // This instance's name: in its leases (polls, tasks, account syncs) and in pg_stat_activity
  // ("<name> pool", "<name> export", "<name> listen"). Empty: a random "ironhold-<hex>".
  std::string instance_name;
  crypto::Key master_key{};
  // The file it came from: read again every second, so that a rotation (`ironhold keys rotate`)
  // reaches a running service. Empty: the key above only.
  std::filesystem::path master_key_file;
  // Seals the audit chain (see inventory/audit/seal.hpp); kept beside the master key.
  crypto::Key audit_key{};
  // The cost of new password hashes (scrypt); tests lower it, production keeps the default.
  crypto::PasswordHashParams password_hashing{};
  // The file the audit chain's head is anchored in, outside the database (empty: none), and how
  // often a moved head is appended to it.
  std::filesystem::path audit_anchor_file;
  std::chrono::milliseconds upkeep_interval{1000};
  // How often the heap's free pages go back to the system (app/server/heap.hpp); 0: never.
  std::chrono::milliseconds heap_trim_interval{30000};
  std::string listen = "127.0.0.1:8080";
  // With TLS (server.tls): plain HTTP here only redirects to HTTPS; empty: no such listener.
  std::string http_redirect_listen;
  int io_threads = 2;  // one per core
  // The HTTP client of the Redfish driver (--bmc-http-client).
  bmc::http::BmcHttpClient::Options::Transport bmc_http_client =
      bmc::http::BmcHttpClient::Options::Transport::asio;
  int database_connections = 4;  // and as many threads for database work
  // The hottest reads prepared once per connection (--no-prepared-statements: off, for PgBouncer
  // before 1.21 in transaction mode).
  bool prepared_statements = true;
  int export_connections = 2;  // a pool of its own: exports running at once
  web::ServerOptions server;
  bmc::ProbeOptions probe;  // how enrolling a bare host (driver auto) probes it
  db::RetentionPolicy retention;
  std::chrono::milliseconds maintenance_interval{std::chrono::hours(1)};
  // The poller keeps the inventory current from the BMCs. Off in tests that enroll addresses
  // nothing answers on.
  bool poller_enabled = true;
  PollerOptions poller;
  // The cloud sync lists the cloud accounts' instances. Off in tests that want accounts untouched.
  bool cloud_sync_enabled = true;
  CloudSyncOptions cloud_sync;
  // The task engine carries out power, boot and identify tasks. Off in tests that want tasks to
  // stay queued (another instance, or a restart, carries them out).
  bool tasks_enabled = true;
  TaskEngineOptions tasks;
  // How often firmware rollouts are moved on (runs with the task engine).
  std::chrono::milliseconds rollout_interval{2000};
  // How often the projects' BMC password rotation policies are checked (runs with the engine).
  std::chrono::milliseconds password_rotation_interval{std::chrono::minutes(10)};
  // Alerts: evaluated and notified by every instance (one evaluates at a time).
  bool alerts_enabled = true;
  alerts::AlertEngineOptions alerts;
  // Subscriptions on the Redfish BMCs' EventServices, so that they push their events (needs an
  // advertised URL the BMCs reach). Every instance takes pushed events either way.
  bool event_subscriptions_enabled = true;
  events::EventSubscriberOptions event_subscriber;
  // The base URL BMCs and installers reach this service at (--advertise-url). Empty: the listen
  // address when it is a specific one; a service listening on every address then cannot
  // reprovision owned servers (it cannot tell which address installers reach).
  std::string advertise_url;
  // Sign-in through the organisation's directory (--identity-config); nullopt: local users and
  // tokens only.
  std::optional<web::auth::IdentityConfig> identity;
};

class ServiceHost {
 public:
  explicit ServiceHost(const ServiceConfig& config);
  ~ServiceHost();

  // Binds and starts serving on the I/O threads; returns the bound address (port 0 → a free one).
  boost::asio::ip::tcp::endpoint start();
  // Graceful: in-flight requests finish, then the threads are joined. Idempotent.
  void stop();

  db::Database& database() { return *database_; }
  const std::string& instance_name() const { return config_.instance_name; }
  // The executor the network work runs on (for callers that start coroutines on it: tests).
  boost::asio::any_io_executor io_executor() { return io_.get_executor(); }
  // Where --http-redirect listens, once started (port 0 picks one).
  std::optional<boost::asio::ip::tcp::endpoint> redirect_endpoint() const {
    return redirect_endpoint_;
  }
  db::NodeStore& nodes() { return *nodes_; }
  db::TokenStore& tokens() { return *tokens_; }
  db::UserStore& users() { return *users_; }
  db::ProjectStore& projects() { return *projects_; }
  db::AuditStore& audit() { return *audit_; }
  web::Api& api() { return *api_; }
  db::PollStore& polls() { return *polls_; }
  db::HardwareStore& hardware() { return *hardware_; }
  db::CloudAccountStore& cloud_accounts() { return *cloud_accounts_; }
  db::GpuCatalogueStore& gpu_catalogue() { return *gpu_catalogue_; }
  db::PriceStore& prices() { return *prices_; }
  // Signs people in through `directory`, their groups mapped to roles by `groups` (tests hand in
  // a directory the same way --identity-config does).
  void use_directory(std::unique_ptr<web::auth::Directory> directory,
                     std::vector<RoleMapping> groups);
  // Signs people in through an OpenID Connect provider (the console's code flow, and Bearer JWTs
  // from scripts), its claim values mapped to roles by `roles`.
  void use_oidc(web::auth::OidcConfig config, std::vector<RoleMapping> roles);
  // Null when the cloud sync is disabled.
  CloudSync* cloud_sync() { return cloud_sync_.get(); }
  // Null when the poller is disabled.
  Poller* poller() { return poller_.get(); }
  db::TaskStore& tasks() { return *tasks_; }
  // Null when the task engine is disabled.
  TaskEngine* task_engine() { return task_engine_.get(); }
  bmc::redfish::RedfishDriver& redfish() { return *redfish_; }
  bmc::ipmi::IpmiDriver& ipmi() { return *ipmi_; }
  const crypto::UrlSigner& url_signer() const { return url_signer_; }
  db::FirmwareImageStore& firmware_images() { return *firmware_images_; }

 private:
  void schedule_maintenance(std::chrono::milliseconds delay);
  // Every second: the audit head anchored, the master key file read again.
  void schedule_upkeep(std::chrono::milliseconds delay);
  void schedule_heap_trim();
  void anchor_audit_head();
  void advertise(const boost::asio::ip::tcp::endpoint& bound);
  std::map<std::string, CloudDriver*> make_cloud_drivers();

  ServiceConfig config_;
  std::unique_ptr<db::Database> database_;
  // Exports' own pool; declared early so that it outlives the threads a cursor may be freed on.
  std::unique_ptr<db::Database> export_database_;
  std::unique_ptr<db::ExportManifestStore> export_manifests_;
  crypto::SecretBox box_;
  std::unique_ptr<db::NodeStore> nodes_;
  std::unique_ptr<db::TokenStore> tokens_;
  std::unique_ptr<db::UserStore> users_;
  std::unique_ptr<db::ProjectStore> projects_;
  std::unique_ptr<db::AuditStore> audit_;
  std::unique_ptr<db::PollStore> polls_;
  std::unique_ptr<db::HardwareStore> hardware_;
  std::unique_ptr<db::CloudAccountStore> cloud_accounts_;
  std::unique_ptr<db::TaskStore> tasks_;
  std::unique_ptr<db::LifecycleStore> lifecycle_;
  std::unique_ptr<db::ProvisioningStore> provisioning_;
  std::unique_ptr<db::FirmwareImageStore> firmware_images_;
  std::unique_ptr<db::FirmwareImageStore> boot_images_;
  std::unique_ptr<db::RolloutStore> rollouts_;
  std::unique_ptr<db::BaselineStore> baselines_;
  std::unique_ptr<db::BiosStore> bios_;
  std::unique_ptr<db::CapacityStore> capacity_;
  std::unique_ptr<db::PriceStore> prices_;
  std::unique_ptr<db::CostStore> cost_;
  std::unique_ptr<web::auth::Directory> directory_;
  std::vector<RoleMapping> directory_groups_;
  std::unique_ptr<web::auth::OidcService> oidc_;
  std::unique_ptr<db::SessionStore> sessions_;
  std::unique_ptr<db::SignInThrottle> sign_in_throttle_;
  crypto::UrlSigner url_signer_;
  crypto::KeyedDigest request_digest_;
  // An io_context whose shutdown (destroying every operation and coroutine still pending) can run
  // before the drivers and stores those coroutines refer to are destroyed, not after them.
  struct IoContext : boost::asio::io_context {
    using boost::asio::execution_context::shutdown;
    using boost::asio::io_context::io_context;
  };

  IoContext io_;
  boost::asio::thread_pool blocking_pool_;
  bmc::BmcProber prober_;
  std::unique_ptr<bmc::redfish::RedfishDriver> redfish_;
  std::unique_ptr<bmc::ipmi::IpmiDriver> ipmi_;
  std::vector<std::unique_ptr<CloudDriver>> cloud_drivers_;
  std::unique_ptr<Poller> poller_;
  std::unique_ptr<CloudSync> cloud_sync_;
  std::unique_ptr<TaskEngine> task_engine_;
  std::unique_ptr<RolloutRunner> rollout_runner_;
  std::unique_ptr<PasswordRotation> password_rotation_;
  std::unique_ptr<db::AlertStore> alert_store_;
  std::unique_ptr<alerts::WebhookSender> webhook_sender_;
  std::unique_ptr<alerts::AlertEngine> alert_engine_;
  std::unique_ptr<db::EventSubscriptionStore> event_subscriptions_;
  std::unique_ptr<db::GpuCatalogueStore> gpu_catalogue_;
  std::unique_ptr<db::SerialConsoleStore> serial_consoles_;
  std::unique_ptr<SerialConsoleHub> console_hub_;
  std::unique_ptr<events::EventSubscriber> event_subscriber_;
  std::unique_ptr<web::Services> services_;
  std::unique_ptr<web::Api> api_;
  std::unique_ptr<web::Server> server_;
  std::unique_ptr<web::RedirectServer> redirect_;
  std::optional<boost::asio::ip::tcp::endpoint> redirect_endpoint_;
  boost::asio::steady_timer maintenance_timer_{io_};
  std::unique_ptr<audit::AnchorFile> audit_anchor_;
  web::ExportBudget export_budget_;
  boost::asio::steady_timer upkeep_timer_{io_};
  boost::asio::steady_timer heap_trim_timer_{io_};
  std::vector<std::thread> threads_;
  std::atomic<bool> stopped_{false};
};

}  // namespace ironhold::app
