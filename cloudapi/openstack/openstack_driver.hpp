#pragma once
// The OpenStack CloudDriver: Keystone v3 tokens (password or application credential) cached per
// account until shortly before they expire and renewed once on a 401; Nova's compute endpoint
// from the token's catalog; the microversion negotiated once per account; servers/detail page by
// page, with flavors (and their extra specs, for GPUs) looked up and cached when the server is
// too old to embed them; start/stop/reboot/rebuild as server actions.
#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "bmc/http/bmc_http_client.hpp"
#include "cloudapi/openstack/keystone.hpp"
#include "cloudapi/openstack/nova_json.hpp"
#include "inventory/drivers/cloud_driver.hpp"

namespace ironhold::cloudapi::openstack {

struct OpenStackDriverOptions {
  // Several requests in flight per cloud endpoint; retries (with Retry-After) on 429/5xx.
  bmc::http::BmcHttpClient::Options http = default_http_options();
  std::chrono::milliseconds request_timeout{30'000};
  std::chrono::seconds refresh_margin{300};  // renew a token this long before it expires
  // After Keystone refuses an account's credentials, the same credentials are not tried again
  // for this long (repeated failures lock accounts); edited credentials are tried at once.
  std::chrono::seconds auth_failure_backoff{60};
  std::size_t max_pages = 1000;  // servers/detail pages per listing
  // Deleted servers vanish from Nova's listing; changes-since shows those deleted since the last
  // listing (or within this window for an account's first) so they can be reported as gone.
  std::chrono::seconds deleted_window{3600};
  std::function<SystemTime()> now = [] { return std::chrono::system_clock::now(); };

  static bmc::http::BmcHttpClient::Options default_http_options();
};

class OpenStackDriver final : public CloudDriver {
 public:
  explicit OpenStackDriver(boost::asio::any_io_executor executor,
                           OpenStackDriverOptions options = {});

  boost::asio::awaitable<InstanceListing> list_instances(
      const CloudAccountTarget& account) override;
  boost::asio::awaitable<InstanceReport> describe_instance(const CloudAccountTarget& account,
                                                           std::string provider_id) override;
  boost::asio::awaitable<ActionReport> power(const CloudAccountTarget& account,
                                             std::string provider_id, PowerAction action) override;
  boost::asio::awaitable<ActionReport> rebuild(const CloudAccountTarget& account,
                                               std::string provider_id,
                                               RebuildRequest request) override;
  void forget(const std::string& account_id) override;
  boost::asio::awaitable<void> shutdown() override;

  // A Nova answer, or why there is none (transport failure, credentials refused).
  struct NovaReply {
    std::optional<DriverError> error;
    long status = 0;
    std::string body;
  };

 private:
  struct Session {
    std::string token;
    SystemTime refresh_at;
    std::string compute_url;  // from the catalog, without a trailing '/'
    std::optional<Microversion> microversion;
  };
  struct SessionResult {
    std::optional<DriverError> error;
    Session session;
  };
  struct AccountCache {
    std::string fingerprint;  // of endpoint, region, options and credentials: a change re-auths
    std::optional<Session> session;
    bool authenticating = false;  // one re-auth at a time per account; others wait for it
    bool negotiated = false;
    std::optional<Microversion> microversion;
    std::map<std::string, Flavor> flavors;  // by id, for servers that do not embed theirs
    std::optional<SystemTime> last_listing;
    std::optional<DriverError> auth_failure;  // Keystone's last refusal, repeated until...
    SystemTime auth_failure_until;            // ...this time
  };
  class AuthTurn;

  // A usable session: the cached one, or a new token (after `stale_token` was refused).
  boost::asio::awaitable<SessionResult> session_for(const CloudAccountTarget& account,
                                                    std::optional<std::string> stale_token);
  boost::asio::awaitable<SessionResult> authenticate(const CloudAccountTarget& account);
  boost::asio::awaitable<std::optional<DriverError>> negotiate(const CloudAccountTarget& account,
                                                               const Session& session,
                                                               std::optional<Microversion>& out);
  // One Nova call with the account's token, re-authenticating once on a 401.
  // Arguments are references to the caller's locals (GCC 12 miscompiles temporaries with
  // destructors inside a co_await expression).
  boost::asio::awaitable<NovaReply> nova(const CloudAccountTarget& account, std::string_view method,
                                         const std::string& path, const std::string& body);
  // The flavor of a server that names it only by id (cached per account; absent when unknown).
  boost::asio::awaitable<std::optional<Flavor>> flavor_by_id(const CloudAccountTarget& account,
                                                             const std::string& id);
  // The server as an instance, its flavor resolved.
  boost::asio::awaitable<CloudInstance> to_instance(const CloudAccountTarget& account,
                                                    const nlohmann::json& server);
  boost::asio::awaitable<ActionReport> send_action(const CloudAccountTarget& account,
                                                   const std::string& provider_id,
                                                   const nlohmann::json& body,
                                                   const std::string& detail);
  // Servers deleted since the last listing (changes-since), as gone instances.
  boost::asio::awaitable<void> add_deleted(const CloudAccountTarget& account, SystemTime since,
                                           InstanceListing& listing);

  std::string fingerprint(const CloudAccountTarget& account) const;
  AccountCache& cache_locked(const CloudAccountTarget& account);  // holds mutex_

  OpenStackDriverOptions options_;
  bmc::http::BmcHttpClient client_;
  boost::asio::any_io_executor executor_;
  std::mutex mutex_;
  std::map<std::string, AccountCache> accounts_;
};

}  // namespace ironhold::cloudapi::openstack
