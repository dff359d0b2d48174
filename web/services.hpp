#pragma once
// What handlers reach: the stores, and a pool of threads for blocking database work, so that no
// network thread ever waits on PostgreSQL.
#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <type_traits>

#include "inventory/crypto/keyed_digest.hpp"
#include "inventory/crypto/url_signer.hpp"
#include "inventory/db/alert_store.hpp"
#include "inventory/db/audit_store.hpp"
#include "inventory/db/baseline_store.hpp"
#include "inventory/db/bios_store.hpp"
#include "inventory/db/capacity_store.hpp"
#include "inventory/db/cloud_account_store.hpp"
#include "inventory/db/cost_store.hpp"
#include "inventory/db/event_subscription_store.hpp"
#include "inventory/db/export_store.hpp"
#include "inventory/db/firmware_image_store.hpp"
#include "inventory/db/gpu_catalogue_store.hpp"
#include "inventory/db/hardware_store.hpp"
#include "inventory/db/lifecycle_store.hpp"
#include "inventory/db/node_store.hpp"
#include "inventory/db/poll_store.hpp"
#include "inventory/db/price_store.hpp"
#include "inventory/db/project_store.hpp"
#include "inventory/db/provisioning_store.hpp"
#include "inventory/db/rollout_store.hpp"
#include "inventory/db/serial_console_store.hpp"
#include "inventory/db/session_store.hpp"
#include "inventory/db/sign_in_throttle.hpp"
#include "inventory/db/task_store.hpp"
#include "inventory/db/token_store.hpp"
#include "inventory/db/user_store.hpp"
#include "inventory/drivers/endpoint_prober.hpp"
#include "inventory/model/role_mapping.hpp"
#include "inventory/poller/poll_metrics.hpp"
#include "inventory/util/on_pool.hpp"
#include "web/auth/directory.hpp"
#include "web/http.hpp"

namespace ironhold {
class CloudSync;
class SerialConsoleHub;
class TaskEngine;
}  // namespace ironhold

namespace ironhold::web {

namespace auth {
struct OidcService;
}

// How many exports run at once on this instance: as many as its export pool has connections.
struct ExportBudget {
  std::atomic<int> running{0};
  int limit = 2;
};

struct Services {
  db::Database& database;
  db::NodeStore& nodes;
  db::TokenStore& tokens;
  db::UserStore& users;
  db::AuditStore& audit;
  asio::thread_pool& blocking_pool;
  // Resolves driver "auto" with a bare host at enrollment; null: auto-detection is unavailable.
  // Last, so that aggregate initializations written before it still compile.
  EndpointProber* prober = nullptr;
  // What the poller recorded, its schedule and its measurements; null where a host runs no
  // poller (the routes then answer 503).
  db::HardwareStore* hardware = nullptr;
  db::PollStore* polls = nullptr;
  const PollMetrics* poll_metrics = nullptr;
  // Cloud accounts and the sync that lists their instances; null where a host has none (503).
  db::CloudAccountStore* cloud_accounts = nullptr;
  CloudSync* cloud_sync = nullptr;
  // Tasks (power, boot, identify, ...) and the engine that carries them out; null where a host
  // has none (503). Without an engine tasks are still queued, for another instance to run.
  db::TaskStore* tasks = nullptr;
  TaskEngine* task_engine = nullptr;
  db::LifecycleStore* lifecycle = nullptr;
  // Owned servers' reprovisioning over PXE: the sessions installers find, and the base URL they
  // reach this service at (--advertise-url; empty: installers could not call back, 503).
  db::ProvisioningStore* provisioning = nullptr;
  std::string advertise_url;
  // Firmware images, and the signer of the URLs BMCs download them from (null: 503).
  db::FirmwareImageStore* firmware_images = nullptr;
  const crypto::UrlSigner* url_signer = nullptr;
  // Staged firmware rollouts, and the baselines compliance is measured against (null: 503).
  db::RolloutStore* rollouts = nullptr;
  db::BaselineStore* baselines = nullptr;
  // Console sign-in sessions (cookies); null: only Bearer tokens are taken.
  db::SessionStore* sessions = nullptr;
  // Where this instance anchors the audit chain's head outside the database (null: nowhere); the
  // verifier checks the chain reaches the newest head anchored there.
  const audit::AnchorFile* audit_anchor = nullptr;
  // Failed console sign-ins per source (null: not throttled).
  db::SignInThrottle* sign_in_throttle = nullptr;
  // What an Idempotency-Key's request is kept as (web/idempotency.cpp); null: the key is refused.
  const crypto::KeyedDigest* request_digest = nullptr;
  // Exports read through a pool of their own, so that a long one never takes the connections the
  // poller and the API need (null: 503).
  db::Database* export_database = nullptr;
  db::ExportManifestStore* export_manifests = nullptr;
  ExportBudget* export_budget = nullptr;
  // Projects (tenants); null: the project routes answer 503.
  db::ProjectStore* projects = nullptr;
  // Alerts, silences and receivers; null: the alert routes answer 503.
  db::AlertStore* alerts = nullptr;
  // This service's subscriptions on the BMCs' EventServices, and the events they post (null:
  // 503).
  db::EventSubscriptionStore* event_subscriptions = nullptr;
  // The GPU catalogue: canonical models and their aliases (null: 503).
  db::GpuCatalogueStore* gpu_catalogue = nullptr;
  // Serial consoles: the sessions and output kept, and the hub sharing each node's console among
  // its viewers (null: 503).
  db::SerialConsoleStore* serial_consoles = nullptr;
  SerialConsoleHub* console_hub = nullptr;
  // Boot images (ISOs) a BMC mounts as virtual media to reprovision a node; kept like firmware
  // images, and downloaded through URLs the same signer signs (null: 503).
  db::FirmwareImageStore* boot_images = nullptr;
  // BIOS settings as recorded, and the per-model BIOS baselines (null: 503).
  db::BiosStore* bios = nullptr;
  // GPU capacity over time, from the node history (null: 503).
  db::CapacityStore* capacity = nullptr;
  // Prices, and the cost report that uses them (null: 503).
  db::PriceStore* prices = nullptr;
  db::CostStore* cost = nullptr;
  // The directory people sign in through besides the local accounts (LDAP), and how its groups
  // become roles here (null: local users and tokens only).
  auth::Directory* directory = nullptr;
  const std::vector<RoleMapping>* directory_groups = nullptr;
  // Sign-in through the organisation's OpenID Connect provider, for the console and for Bearer
  // JWTs (null: not configured).
  auth::OidcService* oidc = nullptr;

  // Runs fn() on the blocking pool (see on_pool).
  template <class Fn>
  asio::awaitable<std::invoke_result_t<Fn>> blocking(Fn fn) {
    return on_pool(blocking_pool, std::move(fn));
  }
};

}  // namespace ironhold::web
