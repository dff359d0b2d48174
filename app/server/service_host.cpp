#include "app/server/service_host.hpp"

#include <algorithm>
#include <array>
#include <boost/asio/co_spawn.hpp>
#include <future>

#include "app/server/curl_webhook_sender.hpp"
#include "app/server/heap.hpp"
#include "app/server/url_host.hpp"
#include "cloudapi/bcc/bcc_driver.hpp"
#include "cloudapi/ec2/ec2_driver.hpp"
#include "cloudapi/openstack/openstack_driver.hpp"
#include "inventory/crypto/primitives.hpp"
#include "inventory/util/concat.hpp"
#include "inventory/util/lease_owner.hpp"
#include "inventory/util/log.hpp"
#include "web/auth/ldap_directory.hpp"

namespace ironhold::app {
namespace {

// One name for the instance everywhere: the leases it takes and its database connections, so that
// a lease in a table leads to the instance's connections in pg_stat_activity.
ServiceConfig named_instance(ServiceConfig config) {
  if (config.instance_name.empty()) config.instance_name = random_lease_owner();
  for (std::string* owner : {&config.poller.owner, &config.tasks.owner, &config.cloud_sync.owner})
    if (owner->empty()) *owner = config.instance_name;
  return config;
}

}  // namespace

ServiceHost::ServiceHost(const ServiceConfig& config)
    : config_(named_instance(config)),
      database_(std::make_unique<db::Database>(
          db::DatabaseOptions{.url = config.database_url,
                              .pool_size = config.database_connections,
                              .prepared_statements = config.prepared_statements,
                              .audit_key = config.audit_key,
                              .application_name = config_.instance_name + " pool",
                              .listen_url = config.listen_database_url,
                              .listen_application_name = config_.instance_name + " listen"})),
      box_(config.master_key),
      nodes_(std::make_unique<db::NodeStore>(*database_, box_)),
      tokens_(std::make_unique<db::TokenStore>(*database_)),
      users_(std::make_unique<db::UserStore>(*database_, config.password_hashing)),
      projects_(std::make_unique<db::ProjectStore>(*database_)),
      audit_(std::make_unique<db::AuditStore>(*database_)),
      polls_(std::make_unique<db::PollStore>(*database_, box_)),
      hardware_(std::make_unique<db::HardwareStore>(*database_)),
      cloud_accounts_(std::make_unique<db::CloudAccountStore>(*database_, box_)),
      tasks_(std::make_unique<db::TaskStore>(*database_, box_)),
      lifecycle_(std::make_unique<db::LifecycleStore>(*database_, box_, *nodes_)),
      provisioning_(std::make_unique<db::ProvisioningStore>(*database_)),
      firmware_images_(std::make_unique<db::FirmwareImageStore>(*database_)),
      boot_images_(std::make_unique<db::FirmwareImageStore>(*database_, "boot")),
      rollouts_(std::make_unique<db::RolloutStore>(*database_, box_, *tasks_)),
      baselines_(std::make_unique<db::BaselineStore>(*database_)),
      bios_(std::make_unique<db::BiosStore>(*database_)),
      capacity_(std::make_unique<db::CapacityStore>(*database_)),
      prices_(std::make_unique<db::PriceStore>(*database_)),
      cost_(std::make_unique<db::CostStore>(*database_)),
      sessions_(std::make_unique<db::SessionStore>(*database_)),
      sign_in_throttle_(std::make_unique<db::SignInThrottle>(*database_)),
      url_signer_(config.master_key),
      request_digest_(config.master_key, "ironhold idempotency v1"),
      io_(config.io_threads),
      blocking_pool_(static_cast<std::size_t>(config.database_connections)),
      prober_(config.probe) {
  if (!config.master_key_file.empty()) {
    // Mid-rotation the file holds an older key too: every value opens from the start.
    box_.set_source([file = config.master_key_file]() -> std::optional<crypto::Keyring> {
      try {
        return crypto::load_master_keyring(file, false);
      } catch (const std::exception& e) {
        log::warn("cannot read the master key file again", {{"error", e.what()}});
        return std::nullopt;
      }
    });
    box_.refresh();
  }
  bmc::redfish::RedfishDriverOptions redfish_options;
  redfish_options.http.transport_kind = config.bmc_http_client;
  redfish_ = std::make_unique<bmc::redfish::RedfishDriver>(io_.get_executor(), redfish_options);
  ipmi_ = std::make_unique<bmc::ipmi::IpmiDriver>(io_.get_executor());
  if (config.poller_enabled) {
    std::map<std::string, NodeDriver*> drivers{{"redfish", redfish_.get()}, {"ipmi", ipmi_.get()}};
    poller_ = std::make_unique<Poller>(io_.get_executor(), blocking_pool_, *polls_,
                                       std::move(drivers), config_.poller);
  }
  if (config.cloud_sync_enabled)
    cloud_sync_ = std::make_unique<CloudSync>(io_.get_executor(), blocking_pool_, *cloud_accounts_,
                                              make_cloud_drivers(), config_.cloud_sync);
  if (config.tasks_enabled) {
    // The same drivers as the poller's: one session per BMC, whoever asks.
    std::map<std::string, NodeDriver*> drivers{{"redfish", redfish_.get()}, {"ipmi", ipmi_.get()}};
    task_engine_ = std::make_unique<TaskEngine>(io_.get_executor(), blocking_pool_, *tasks_,
                                                std::move(drivers), cloud_sync_.get(), polls_.get(),
                                                provisioning_.get(), config_.tasks);
    rollout_runner_ =
        std::make_unique<RolloutRunner>(io_.get_executor(), blocking_pool_, *rollouts_,
                                        task_engine_.get(), config.rollout_interval);
    password_rotation_ =
        std::make_unique<PasswordRotation>(io_.get_executor(), blocking_pool_, *tasks_,
                                           task_engine_.get(), config.password_rotation_interval);
  }
  services_ = std::make_unique<web::Services>(web::Services{*database_,
                                                            *nodes_,
                                                            *tokens_,
                                                            *users_,
                                                            *audit_,
                                                            blocking_pool_,
                                                            &prober_,
                                                            hardware_.get(),
                                                            polls_.get(),
                                                            poller_ ? &poller_->metrics() : nullptr,
                                                            cloud_accounts_.get(),
                                                            cloud_sync_.get(),
                                                            tasks_.get(),
                                                            task_engine_.get(),
                                                            lifecycle_.get(),
                                                            provisioning_.get(),
                                                            {},
                                                            firmware_images_.get(),
                                                            &url_signer_,
                                                            rollouts_.get(),
                                                            baselines_.get(),
                                                            sessions_.get()});
  services_->sign_in_throttle = sign_in_throttle_.get();
  services_->request_digest = &request_digest_;
  services_->boot_images = boot_images_.get();
  services_->bios = bios_.get();
  services_->capacity = capacity_.get();
  services_->prices = prices_.get();
  services_->cost = cost_.get();
  if (config.identity && config.identity->ldap) {
    log::info("people sign in through LDAP",
              {{"directory", web::auth::describe(*config.identity->ldap)},
               {"group_mappings", config.identity->ldap_groups.size()}});
    use_directory(std::make_unique<web::auth::LdapDirectory>(*config.identity->ldap),
                  config.identity->ldap_groups);
  }
  if (config.identity && config.identity->oidc)
    use_oidc(*config.identity->oidc, config.identity->oidc_roles);
  services_->projects = projects_.get();
  alert_store_ = std::make_unique<db::AlertStore>(*database_, box_);
  services_->alerts = alert_store_.get();
  if (config.alerts_enabled) {
    webhook_sender_ = std::make_unique<CurlWebhookSender>(io_.get_executor());
    // The instance's name in the outbox's leases too, as in every other lease it takes.
    alert_engine_ = std::make_unique<alerts::AlertEngine>(io_.get_executor(), blocking_pool_,
                                                          *database_, box_, *webhook_sender_,
                                                          config_.instance_name, config.alerts);
  }
  event_subscriptions_ = std::make_unique<db::EventSubscriptionStore>(*database_, box_);
  services_->event_subscriptions = event_subscriptions_.get();
  gpu_catalogue_ = std::make_unique<db::GpuCatalogueStore>(*database_);
  services_->gpu_catalogue = gpu_catalogue_.get();
  {
    // Serial consoles go through the same drivers as everything else: one RMCP+ client, one
    // credential back-off per BMC (a console still gets a session of its own).
    std::map<std::string, NodeDriver*> drivers{{"redfish", redfish_.get()}, {"ipmi", ipmi_.get()}};
    serial_consoles_ = std::make_unique<db::SerialConsoleStore>(*database_, box_);
    console_hub_ = std::make_unique<SerialConsoleHub>(io_.get_executor(), std::move(drivers),
                                                      *serial_consoles_, *audit_, blocking_pool_);
    services_->serial_consoles = serial_consoles_.get();
    services_->console_hub = console_hub_.get();
  }
  if (config.event_subscriptions_enabled) {
    // Redfish only: IPMI has no subscriptions (its SEL is polled).
    std::map<std::string, NodeDriver*> drivers{{"redfish", redfish_.get()}};
    auto options = config.event_subscriber;
    if (options.owner.empty()) options.owner = config_.instance_name;
    event_subscriber_ = std::make_unique<events::EventSubscriber>(
        io_.get_executor(), blocking_pool_, *event_subscriptions_, std::move(drivers), options);
  }
  if (config.export_connections > 0) {
    // A read replica serves exports as well (--export-database): they read one snapshot and
    // write nothing there (their manifests go to the primary, through the main pool).
    export_database_ = std::make_unique<db::Database>(
        db::DatabaseOptions{.url = config.export_database_url.empty() ? config.database_url
                                                                      : config.export_database_url,
                            .pool_size = config.export_connections,
                            .application_name = config_.instance_name + " export"});
    export_manifests_ = std::make_unique<db::ExportManifestStore>(*database_);
    export_budget_.limit = config.export_connections;
    services_->export_database = export_database_.get();
    services_->export_manifests = export_manifests_.get();
    services_->export_budget = &export_budget_;
  }
  if (!config.audit_anchor_file.empty()) {
    audit_anchor_ = std::make_unique<audit::AnchorFile>(config.audit_anchor_file);
    services_->audit_anchor = audit_anchor_.get();
  }
  api_ = std::make_unique<web::Api>(*services_);
  web::register_all_routes(*api_);
  server_ = std::make_unique<web::Server>(io_, *api_, config.server);
}

// One driver per cloud provider, shared by every account of that provider.
std::map<std::string, CloudDriver*> ServiceHost::make_cloud_drivers() {
  cloud_drivers_.push_back(
      std::make_unique<cloudapi::openstack::OpenStackDriver>(io_.get_executor()));
  CloudDriver* openstack = cloud_drivers_.back().get();
  // Options named rather than defaulted: destroying the default argument's temporary made GCC 12
  // at -O3 warn that its strings may be used uninitialized (-Wmaybe-uninitialized, false).
  cloudapi::ec2::Ec2DriverOptions ec2_options;
  cloud_drivers_.push_back(
      std::make_unique<cloudapi::ec2::Ec2Driver>(io_.get_executor(), std::move(ec2_options)));
  CloudDriver* ec2 = cloud_drivers_.back().get();
  cloud_drivers_.push_back(std::make_unique<cloudapi::bcc::BccDriver>(io_.get_executor()));
  CloudDriver* bcc = cloud_drivers_.back().get();
  return {{"openstack", openstack}, {"ec2", ec2}, {"bcc", bcc}};
}

ServiceHost::~ServiceHost() {
  stop();
}

boost::asio::ip::tcp::endpoint ServiceHost::start() {
  auto endpoint = server_->listen(web::parse_listen_address(config_.listen));
  if (!config_.http_redirect_listen.empty()) {
    redirect_ = std::make_unique<web::RedirectServer>(io_, endpoint.port());
    redirect_endpoint_ = redirect_->listen(web::parse_listen_address(config_.http_redirect_listen));
  }
  advertise(endpoint);
  schedule_maintenance(std::chrono::milliseconds(0));
  if (audit_anchor_ || !config_.master_key_file.empty()) schedule_upkeep(config_.upkeep_interval);
  if (config_.heap_trim_interval.count() > 0) schedule_heap_trim();
  if (poller_) poller_->start();
  if (cloud_sync_) cloud_sync_->start();
  if (task_engine_) task_engine_->start();
  if (rollout_runner_) rollout_runner_->start();
  if (password_rotation_) password_rotation_->start();
  if (alert_engine_) alert_engine_->start();
  if (event_subscriber_) event_subscriber_->start();
  for (int i = 0; i < std::max(1, config_.io_threads); ++i)
    threads_.emplace_back([this] { io_.run(); });
  return endpoint;
}

// The URL installers call back to: as configured, else the address this service listens on when
// that is one address (on every address, it cannot tell which one installers reach).
void ServiceHost::advertise(const boost::asio::ip::tcp::endpoint& bound) {
  std::string url = config_.advertise_url;
  if (url.empty() && !bound.address().is_unspecified()) {
    url = util::concat(config_.server.tls ? "https://" : "http://", host_port(bound));
  }
  services_->advertise_url = url;
  if (alert_engine_) alert_engine_->set_external_url(url);
  if (event_subscriber_) event_subscriber_->set_advertise_url(url);
  // BMCs that take pushed images get them without a URL; the others' updates fail saying that
  // the service needs an --advertise-url.
  if (task_engine_)
    task_engine_->serve_firmware(
        tasks::FirmwareDownloads{&url_signer_, url},
        std::make_shared<tasks::FirmwareSpool>(*firmware_images_, blocking_pool_,
                                               tasks::FirmwareSpool::default_dir()));
  if (url.empty()) {
    tasks_->refuse_owned_reprovisioning(
        "this server listens on every address and has no --advertise-url, so an installer would "
        "not know where to call back; start it with --advertise-url (or IRONHOLD_ADVERTISE_URL)");
    log::info("owned servers cannot be reprovisioned: no --advertise-url");
  } else {
    log::info("installers and BMCs reach this server at", {{"advertise_url", url}});
  }
}

// Housekeeping runs on the blocking pool, never on an I/O thread; a failure is logged and retried
// at the next interval.
void ServiceHost::schedule_maintenance(std::chrono::milliseconds delay) {
  maintenance_timer_.expires_after(delay);
  maintenance_timer_.async_wait([this](boost::system::error_code ec) {
    if (ec) return;
    boost::asio::post(blocking_pool_, [this] {
      try {
        const auto report = db::run_maintenance(*database_, config_.retention);
        sign_in_throttle_->prune();
        if (report.partitions_created || report.partitions_dropped ||
            report.idempotency_keys_expired || report.uploads_discarded ||
            report.sessions_removed || report.changes_pruned || report.console_log_pruned)
          log::info("database maintenance",
                    {{"partitions_created", report.partitions_created},
                     {"partitions_dropped", report.partitions_dropped},
                     {"idempotency_keys_expired", report.idempotency_keys_expired},
                     {"uploads_discarded", report.uploads_discarded},
                     {"sessions_removed", report.sessions_removed},
                     {"changes_pruned", report.changes_pruned},
                     {"console_log_pruned", report.console_log_pruned}});
      } catch (const std::exception& e) {
        log::warn("database maintenance failed; retrying later", {{"error", e.what()}});
      }
      boost::asio::post(io_, [this] {
        if (!stopped_) schedule_maintenance(config_.maintenance_interval);
      });
    });
  });
}

// The audit chain's head, appended to the anchor file whenever it moved: deleting the newest
// entries (and rewinding the head in the database) is then caught by the verifier, up to the last
// interval. And the master key file, read again: a rotation's new key is sealed with, and its old
// one still opens, within a second.
void ServiceHost::schedule_upkeep(std::chrono::milliseconds delay) {
  upkeep_timer_.expires_after(delay);
  upkeep_timer_.async_wait([this](boost::system::error_code ec) {
    if (ec) return;
    boost::asio::post(blocking_pool_, [this] {
      if (audit_anchor_) anchor_audit_head();
      if (!config_.master_key_file.empty() && box_.refresh())
        log::info("master keys read again", {{"current_key_id", box_.key_id()}});
      boost::asio::post(io_, [this] {
        if (!stopped_) schedule_upkeep(config_.upkeep_interval);
      });
    });
  });
}

// On the blocking pool: the trim holds the allocator's locks for a few milliseconds.
void ServiceHost::schedule_heap_trim() {
  heap_trim_timer_.expires_after(config_.heap_trim_interval);
  heap_trim_timer_.async_wait([this](boost::system::error_code ec) {
    if (ec) return;
    boost::asio::post(blocking_pool_, [this] {
      release_free_heap();
      boost::asio::post(io_, [this] {
        if (!stopped_) schedule_heap_trim();
      });
    });
  });
}

void ServiceHost::anchor_audit_head() {
  try {
    const db::ChainHead head = audit_->head();
    if (head.seq > 0) audit_anchor_->append({head.seq, head.mac_hex, head.at});
  } catch (const std::exception& e) {
    log::warn("cannot anchor the audit chain's head; retrying", {{"error", e.what()}});
  }
}

void ServiceHost::stop() {
  if (stopped_) return;
  stopped_ = true;
  // How long each part took to stop, logged at the end: a slow stop says where it waited.
  nlohmann::json took = nlohmann::json::object();
  auto mark = std::chrono::steady_clock::now();
  const auto timed = [&](const char* part, auto&& stop_part) {
    stop_part();
    const auto now = std::chrono::steady_clock::now();
    took[part] = std::chrono::duration_cast<std::chrono::milliseconds>(now - mark).count();
    mark = now;
  };
  const auto started = mark;
  if (!threads_.empty()) {
    timed("http_ms", [&] {
      if (redirect_) redirect_->close();
      std::promise<void> drained;
      server_->shutdown([&drained] { drained.set_value(); });
      drained.get_future().wait();
    });
  }
  // Consoles the viewers left open end, their last output written and their sessions closed,
  // while the drivers and the database are there.
  if (!threads_.empty())
    timed("consoles_ms", [&] {
      std::promise<void> ended;
      boost::asio::co_spawn(io_, console_hub_->shutdown(),
                            [&ended](std::exception_ptr) { ended.set_value(); });
      ended.get_future().wait();
    });
  // Tasks stop at a step boundary and are handed back first: they use the drivers that the
  // poller and the cloud sync shut down next. Together they get the grace period the HTTP
  // requests had (one deadline, not one period each: a stop stays bounded however many parts
  // are busy).
  const auto deadline = std::chrono::steady_clock::now() + config_.server.shutdown_grace;
  auto left = [deadline] {
    return std::max(std::chrono::milliseconds(0),
                    std::chrono::duration_cast<std::chrono::milliseconds>(
                        deadline - std::chrono::steady_clock::now()));
  };
  if (!threads_.empty()) {
    if (rollout_runner_) timed("rollouts_ms", [&] { rollout_runner_->stop(left()); });
    if (password_rotation_)
      timed("password_rotation_ms", [&] { password_rotation_->stop(left()); });
    if (alert_engine_) timed("alerts_ms", [&] { alert_engine_->stop(left()); });
    if (event_subscriber_)
      timed("event_subscriptions_ms", [&] { event_subscriber_->stop(left()); });
    if (task_engine_) timed("tasks_ms", [&] { task_engine_->stop(left()); });
    // Polls in flight finish (briefly) and are recorded; the drivers log out of the BMCs.
    if (poller_) timed("poller_ms", [&] { poller_->stop(left()); });
    if (cloud_sync_) timed("cloud_sync_ms", [&] { cloud_sync_->stop(left()); });
  }
  // What the routes run on threads of their own (discovery) stops while the database is up.
  timed("adopted_ms", [&] { api_->release_adopted(); });
  boost::asio::post(io_, [this] {
    maintenance_timer_.cancel();
    upkeep_timer_.cancel();
    heap_trim_timer_.cancel();
  });
  timed("threads_ms", [&] {
    io_.stop();
    for (auto& t : threads_) t.join();
    threads_.clear();
    blocking_pool_.join();
  });
  // What was audited up to the end, anchored.
  if (audit_anchor_) timed("audit_anchor_ms", [&] { anchor_audit_head(); });
  // Whatever still waits now (requests to BMCs that did not answer within the grace periods) is
  // destroyed here, while what those coroutines refer to exists; the io_context's destructor
  // would do it after the drivers are gone.
  timed("pending_ms", [&] { io_.shutdown(); });
  took["total_ms"] = std::chrono::duration_cast<std::chrono::milliseconds>(mark - started).count();
  log::info("service stopped", took);
}

void ServiceHost::use_oidc(web::auth::OidcConfig config, std::vector<RoleMapping> roles) {
  log::info("people sign in through OpenID Connect",
            {{"provider", web::auth::describe(config)}, {"role_mappings", roles.size()}});
  oidc_ = std::make_unique<web::auth::OidcService>(std::move(config), std::move(roles),
                                                   config_.master_key, *database_);
  services_->oidc = oidc_.get();
}

void ServiceHost::use_directory(std::unique_ptr<web::auth::Directory> directory,
                                std::vector<RoleMapping> groups) {
  directory_ = std::move(directory);
  directory_groups_ = std::move(groups);
  services_->directory = directory_.get();
  services_->directory_groups = &directory_groups_;
}

}  // namespace ironhold::app
