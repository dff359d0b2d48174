#pragma once
// The Redfish NodeDriver: crawls a BMC's service through an authenticated connection (sessions
// cached per address + user + password hash), normalizes what it read, and sends the actions.
// One instance serves every Redfish node of the service; it remembers per node the System paths
// (so the 30-second status poll is one GET per System) and the log entries already reported.
#include <boost/asio/any_io_executor.hpp>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "bmc/http/bmc_http_client.hpp"
#include "bmc/redfish/actions.hpp"
#include "bmc/redfish/redfish_transport.hpp"
#include "bmc/redfish/session_cache.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold::bmc::redfish {

struct RedfishDriverOptions {
  // per_host_limit 1 and one connection per BMC by default (BMCs are small); retries; a BMC that
  // refuses a burst is paced from then on. Through AsioHttpClient: 8,000 kept-alive BMC
  // connections took some 140 MB more through libcurl.
  http::BmcHttpClient::Options http{.transport_kind = http::BmcHttpClient::Options::Transport::asio,
                                    .learn_from_refusals = true};
  TransportOptions transport;  // timeouts and body/JSON caps per request
  // After rejected credentials: how long before the same credentials are tried again.
  AuthBackoffOptions auth_backoff;
  ActionOptions actions;             // the power-cycle fallback's wait for Off
  std::size_t max_documents = 2000;  // per crawl
  std::size_t max_pages = 50;        // nextLink pages per collection
  // The clock of the auth backoff (tests move it).
  std::function<SessionCache::Clock::time_point()> now = [] { return SessionCache::Clock::now(); };
};

class RedfishDriver final : public NodeDriver {
 public:
  RedfishDriver(boost::asio::any_io_executor executor, RedfishDriverOptions options = {});

  boost::asio::awaitable<StatusReport> poll_status(const DriverTarget& target) override;
  boost::asio::awaitable<SensorReport> poll_sensors(const DriverTarget& target) override;
  boost::asio::awaitable<InspectionReport> inspect(const DriverTarget& target) override;

  boost::asio::awaitable<ActionReport> power(const DriverTarget& target, std::string system_id,
                                             PowerAction action) override;
  boost::asio::awaitable<ActionReport> set_boot(const DriverTarget& target, std::string system_id,
                                                BootRequest boot) override;
  boost::asio::awaitable<ActionReport> identify(const DriverTarget& target, std::string system_id,
                                                bool on) override;
  boost::asio::awaitable<ActionReport> reset_controller(const DriverTarget& target) override;
  boost::asio::awaitable<FirmwareUpdateReport> start_firmware_update(
      const DriverTarget& target, FirmwareUpdateRequest request) override;
  boost::asio::awaitable<FirmwareUpdateReport> firmware_update_status(const DriverTarget& target,
                                                                      std::string monitor) override;
  boost::asio::awaitable<FirmwareUpdateReport> find_firmware_update(const DriverTarget& target,
                                                                    FirmwareUpdateRequest request,
                                                                    nlohmann::json sent) override;

  boost::asio::awaitable<EventSubscriptionReport> subscribe_events(
      const DriverTarget& target, EventSubscriptionRequest request) override;
  boost::asio::awaitable<SubscriptionCheck> check_event_subscription(const DriverTarget& target,
                                                                     std::string path) override;
  boost::asio::awaitable<DriverOutcome> unsubscribe_events(const DriverTarget& target,
                                                           std::string path) override;

  // The System's virtual CD (virtual_media.hpp).
  boost::asio::awaitable<ActionReport> insert_virtual_media(const DriverTarget& target,
                                                            std::string system_id,
                                                            std::string image_url) override;
  boost::asio::awaitable<ActionReport> eject_virtual_media(const DriverTarget& target,
                                                           std::string system_id) override;
  // The System's Bios resource and its settings object (bios.hpp).
  boost::asio::awaitable<BiosReport> read_bios(const DriverTarget& target,
                                               std::string system_id) override;
  boost::asio::awaitable<ActionReport> write_bios(const DriverTarget& target, std::string system_id,
                                                  BiosChange change) override;
  // The password of the account the target logs in with (accounts.hpp), and a fresh login.
  boost::asio::awaitable<ActionReport> change_bmc_password(const DriverTarget& target,
                                                           std::string new_password) override;
  boost::asio::awaitable<DriverOutcome> check_login(const DriverTarget& target) override;
  // The SSH serial console the System's Manager advertises (ssh_console.hpp).
  boost::asio::awaitable<ConsoleOpenReport> open_console(const DriverTarget& target,
                                                         std::string system_id,
                                                         ConsoleEvents events) override;

  boost::asio::awaitable<void> shutdown() override;

  http::BmcHttpClient& client() { return client_; }

 private:
  struct NodeMemory {
    std::vector<std::string> system_paths;     // from the last successful crawl
    std::vector<std::string> baseboard_paths;  // GPU baseboards beside them (crawler.hpp)
    std::set<std::string> reported_entries;    // log entry paths already reported
    bool select_query = false;                 // the root declares $select support
  };

  // A crawl of one node and the certificate that answered it (absent when none did).
  struct NodeCrawl {
    CrawlResult result;  // result.error also carries a target that cannot be resolved
    std::optional<std::string> tls_fingerprint;
  };

  CrawlOptions crawl_options(CrawlScope scope) const;
  // An action through a connection of its own to the target (with_connection.hpp).
  template <class Report = ActionReport, class Act>
  boost::asio::awaitable<Report> with_connection(const DriverTarget& target, Act act);
  // Resolves the target and crawls it through a connection of its own.
  boost::asio::awaitable<NodeCrawl> crawl_node(const DriverTarget& target, CrawlOptions options);
  std::vector<std::string> known_systems(const std::string& node_id) const;
  std::vector<std::string> known_baseboards(const std::string& node_id) const;
  void remember_systems(const std::string& node_id, std::vector<std::string> paths);
  // After a failed crawl: an answer that may mean a System went away (not found, garbage) makes
  // the next poll walk from the root; silence, a refused login or a TLS failure say nothing of
  // the Systems, so a BMC that stopped answering is asked one document a poll, not three.
  void forget_systems_after(const std::string& node_id, const DriverError& error);
  // What a successful crawl taught about the node: its Systems, and whether it selects.
  void remember(const std::string& node_id, CrawlResult& result);
  bool selects(const std::string& node_id) const;
  // Keeps the events not reported before and marks them reported.
  std::vector<HardwareEvent> first_reports(const std::string& node_id,
                                           std::vector<HardwareEvent> events);
  // At shutdown: the sessions still open, closed by a few workers side by side. On a strand.
  struct Logouts;
  boost::asio::awaitable<void> log_out_all(std::shared_ptr<Logouts> logouts);
  boost::asio::awaitable<void> log_out_worker(std::shared_ptr<Logouts> logouts);

  RedfishDriverOptions options_;
  http::BmcHttpClient client_;
  SessionCache sessions_;
  mutable std::mutex memory_mutex_;           // never held across a suspension
  std::map<std::string, NodeMemory> memory_;  // by node id
};

}  // namespace ironhold::bmc::redfish
