#include "bmc/redfish/redfish_driver.hpp"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <memory>
#include <utility>

#include "bmc/redfish/crawler.hpp"
#include "bmc/redfish/event_subscription.hpp"
#include "bmc/redfish/firmware_update.hpp"
#include "bmc/redfish/normalize_links.hpp"
#include "bmc/redfish/normalizer.hpp"

namespace ironhold::bmc::redfish {

namespace asio = boost::asio;

namespace {

// The entry's canonical path: what the crawler's entry_seen is asked about.
std::string entry_key(const HardwareEvent& event) {
  std::string path = canonical_path(event.source_id);
  return path.empty() ? event.source_id : path;
}

template <class Report>
bool resolve_failed(const DriverTarget& target, Report& report,
                    std::optional<RedfishTarget>& resolved) {
  auto result = resolve_target(target);
  if (auto* e = std::get_if<DriverError>(&result)) {
    report.error = std::move(*e);
    return true;
  }
  resolved = std::get<RedfishTarget>(std::move(result));
  return false;
}

}  // namespace

RedfishDriver::RedfishDriver(asio::any_io_executor executor, RedfishDriverOptions options)
    : options_(std::move(options)),
      client_(std::move(executor), options_.http),
      sessions_(options_.auth_backoff, options_.now) {}

CrawlOptions RedfishDriver::crawl_options(CrawlScope scope) const {
  CrawlOptions out;
  out.scope = scope;
  out.max_documents = options_.max_documents;
  out.max_pages = options_.max_pages;
  return out;
}

std::vector<std::string> RedfishDriver::known_systems(const std::string& node_id) const {
  std::lock_guard lock(memory_mutex_);
  const auto it = memory_.find(node_id);
  return it == memory_.end() ? std::vector<std::string>{} : it->second.system_paths;
}

std::vector<std::string> RedfishDriver::known_baseboards(const std::string& node_id) const {
  std::lock_guard lock(memory_mutex_);
  const auto it = memory_.find(node_id);
  return it == memory_.end() ? std::vector<std::string>{} : it->second.baseboard_paths;
}

void RedfishDriver::remember_systems(const std::string& node_id, std::vector<std::string> paths) {
  std::lock_guard lock(memory_mutex_);
  memory_[node_id].system_paths = std::move(paths);
  if (memory_[node_id].system_paths.empty()) memory_[node_id].baseboard_paths.clear();
}

void RedfishDriver::forget_systems_after(const std::string& node_id, const DriverError& error) {
  switch (error.code) {
    case DriverErrorCode::unreachable:
    case DriverErrorCode::timeout:
    case DriverErrorCode::auth_failed:
    case DriverErrorCode::tls_pin_mismatch:
    case DriverErrorCode::tls_failed:
      return;  // the BMC said nothing about its Systems: the same ones are asked for again
    case DriverErrorCode::bad_response:
    case DriverErrorCode::unsupported:
    case DriverErrorCode::rejected:
      break;  // maybe a System that went away: rediscovered from the root next time
  }
  remember_systems(node_id, {});
}

void RedfishDriver::remember(const std::string& node_id, CrawlResult& result) {
  const bool read_root = result.graph.find(std::string(service_root_path)) != nullptr;
  std::lock_guard lock(memory_mutex_);
  NodeMemory& memory = memory_[node_id];
  memory.system_paths = std::move(result.system_paths);
  // A status crawl of known Systems does not look for baseboards: it keeps what it was given.
  memory.baseboard_paths = result.baseboard_paths;
  if (read_root) memory.select_query = supports_select(result.graph);
  if (result.select_ignored) memory.select_query = false;
}

bool RedfishDriver::selects(const std::string& node_id) const {
  std::lock_guard lock(memory_mutex_);
  const auto it = memory_.find(node_id);
  return it != memory_.end() && it->second.select_query;
}

std::vector<HardwareEvent> RedfishDriver::first_reports(const std::string& node_id,
                                                        std::vector<HardwareEvent> events) {
  std::lock_guard lock(memory_mutex_);
  auto& reported = memory_[node_id].reported_entries;
  std::vector<HardwareEvent> fresh;
  for (auto& event : events)
    if (reported.insert(entry_key(event)).second) fresh.push_back(std::move(event));
  return fresh;
}

asio::awaitable<RedfishDriver::NodeCrawl> RedfishDriver::crawl_node(const DriverTarget& target,
                                                                    CrawlOptions options) {
  NodeCrawl crawled;
  auto resolved = resolve_target(target);
  if (auto* e = std::get_if<DriverError>(&resolved)) {
    crawled.result.error = std::move(*e);
    co_return crawled;
  }
  RedfishConnection connection(client_, sessions_, options_.transport,
                               std::get<RedfishTarget>(std::move(resolved)));
  Fetcher fetch = connection.fetcher();
  crawled.result = co_await crawl(std::move(fetch), std::move(options));
  crawled.tls_fingerprint = connection.fingerprint();
  co_return crawled;
}

asio::awaitable<StatusReport> RedfishDriver::poll_status(const DriverTarget& target) {
  CrawlOptions options = crawl_options(CrawlScope::status);
  // Known System paths make the steady poll one GET per System, without root and collection.
  options.system_paths = known_systems(target.node_id);
  options.baseboard_paths = known_baseboards(target.node_id);
  // All the status needs of a System (LastResetTime: a task's evidence that a reset happened);
  // Id too, since a service that selects may drop it.
  if (selects(target.node_id)) options.system_select = "$select=Id,PowerState,Status,LastResetTime";
  NodeCrawl crawled = co_await crawl_node(target, std::move(options));
  StatusReport report;
  report.tls_fingerprint = std::move(crawled.tls_fingerprint);
  if (crawled.result.error) {
    forget_systems_after(target.node_id, *crawled.result.error);
    report.error = std::move(crawled.result.error);
    co_return report;
  }
  for (const auto& path : crawled.result.system_paths)
    report.systems.push_back(normalize_status(crawled.result.graph, path));
  remember(target.node_id, crawled.result);
  co_return report;
}

asio::awaitable<SensorReport> RedfishDriver::poll_sensors(const DriverTarget& target) {
  CrawlOptions options = crawl_options(CrawlScope::sensors);
  options.system_paths = known_systems(target.node_id);
  // A snapshot of what was reported: entries in it are not read again. first_reports() below
  // stays the judge, so two overlapping polls still report an entry once.
  std::shared_ptr<const std::set<std::string>> seen;
  {
    std::lock_guard lock(memory_mutex_);
    const auto it = memory_.find(target.node_id);
    seen = std::make_shared<const std::set<std::string>>(
        it == memory_.end() ? std::set<std::string>{} : it->second.reported_entries);
  }
  options.entry_seen = [seen](const std::string& path) { return seen->count(path) != 0; };
  options.baseboard_paths = known_baseboards(target.node_id);
  NodeCrawl crawled = co_await crawl_node(target, std::move(options));
  SensorReport report;
  report.tls_fingerprint = std::move(crawled.tls_fingerprint);
  if (crawled.result.error) {
    forget_systems_after(target.node_id, *crawled.result.error);
    report.error = std::move(crawled.result.error);
    co_return report;
  }
  const auto& paths = crawled.result.system_paths;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    // The GPU baseboards' sensors and logs are the first host's (the enrolled node's).
    SystemSensors sensors =
        normalize_sensors(crawled.result.graph, paths[i],
                          i == 0 ? crawled.result.baseboard_paths : std::vector<std::string>{});
    sensors.events = first_reports(target.node_id, std::move(sensors.events));
    report.systems.push_back(std::move(sensors));
  }
  remember(target.node_id, crawled.result);
  co_return report;
}

asio::awaitable<InspectionReport> RedfishDriver::inspect(const DriverTarget& target) {
  // A full inspection always walks from the root: it is where new or removed Systems show.
  CrawlOptions options = crawl_options(CrawlScope::inventory);
  NodeCrawl crawled = co_await crawl_node(target, std::move(options));
  InspectionReport report;
  report.tls_fingerprint = std::move(crawled.tls_fingerprint);
  if (crawled.result.error) {
    report.error = std::move(crawled.result.error);
    co_return report;
  }
  const auto& paths = crawled.result.system_paths;
  for (std::size_t i = 0; i < paths.size(); ++i)
    report.systems.push_back(
        normalize_inventory(crawled.result.graph, paths[i],
                            i == 0 ? crawled.result.baseboard_paths : std::vector<std::string>{}));
  report.manager_firmware = manager_firmware(crawled.result.graph);
  remember(target.node_id, crawled.result);
  co_return report;
}

asio::awaitable<ActionReport> RedfishDriver::power(const DriverTarget& target,
                                                   std::string system_id, PowerAction action) {
  ActionReport report;
  std::optional<RedfishTarget> resolved;
  if (resolve_failed(target, report, resolved)) co_return report;
  RedfishConnection connection(client_, sessions_, options_.transport, std::move(*resolved));
  report = co_await power_action(connection, std::move(system_id), action, options_.actions);
  co_return report;
}

asio::awaitable<ActionReport> RedfishDriver::set_boot(const DriverTarget& target,
                                                      std::string system_id, BootRequest boot) {
  ActionReport report;
  std::optional<RedfishTarget> resolved;
  if (resolve_failed(target, report, resolved)) co_return report;
  RedfishConnection connection(client_, sessions_, options_.transport, std::move(*resolved));
  report = co_await set_boot_override(connection, std::move(system_id), std::move(boot));
  co_return report;
}

asio::awaitable<ActionReport> RedfishDriver::identify(const DriverTarget& target,
                                                      std::string system_id, bool on) {
  ActionReport report;
  std::optional<RedfishTarget> resolved;
  if (resolve_failed(target, report, resolved)) co_return report;
  RedfishConnection connection(client_, sessions_, options_.transport, std::move(*resolved));
  report = co_await set_identify(connection, std::move(system_id), on);
  co_return report;
}

asio::awaitable<ActionReport> RedfishDriver::reset_controller(const DriverTarget& target) {
  ActionReport report;
  std::optional<RedfishTarget> resolved;
  if (resolve_failed(target, report, resolved)) co_return report;
  RedfishConnection connection(client_, sessions_, options_.transport, std::move(*resolved));
  report = co_await reset_manager(connection);
  co_return report;
}

asio::awaitable<FirmwareUpdateReport> RedfishDriver::start_firmware_update(
    const DriverTarget& target, FirmwareUpdateRequest request) {
  FirmwareUpdateReport report;
  std::optional<RedfishTarget> resolved;
  if (resolve_failed(target, report, resolved)) co_return report;
  RedfishConnection connection(client_, sessions_, options_.transport, std::move(*resolved));
  report = co_await start_update(connection, std::move(request));
  co_return report;
}

asio::awaitable<FirmwareUpdateReport> RedfishDriver::firmware_update_status(
    const DriverTarget& target, std::string monitor) {
  FirmwareUpdateReport report;
  std::optional<RedfishTarget> resolved;
  if (resolve_failed(target, report, resolved)) co_return report;
  RedfishConnection connection(client_, sessions_, options_.transport, std::move(*resolved));
  report = co_await read_update_status(connection, std::move(monitor));
  co_return report;
}

asio::awaitable<FirmwareUpdateReport> RedfishDriver::find_firmware_update(
    const DriverTarget& target, FirmwareUpdateRequest request, nlohmann::json sent) {
  FirmwareUpdateReport report;
  std::optional<RedfishTarget> resolved;
  if (resolve_failed(target, report, resolved)) co_return report;
  RedfishConnection connection(client_, sessions_, options_.transport, std::move(*resolved));
  report = co_await find_update_task(connection, std::move(request), std::move(sent));
  co_return report;
}

asio::awaitable<EventSubscriptionReport> RedfishDriver::subscribe_events(
    const DriverTarget& target, EventSubscriptionRequest request) {
  EventSubscriptionReport report;
  std::optional<RedfishTarget> resolved;
  if (resolve_failed(target, report, resolved)) co_return report;
  RedfishConnection connection(client_, sessions_, options_.transport, std::move(*resolved));
  auto subscribing = subscribe(connection, std::move(request));
  report = co_await std::move(subscribing);
  co_return report;
}

asio::awaitable<SubscriptionCheck> RedfishDriver::check_event_subscription(
    const DriverTarget& target, std::string path) {
  SubscriptionCheck check;
  std::optional<RedfishTarget> resolved;
  if (resolve_failed(target, check, resolved)) co_return check;
  RedfishConnection connection(client_, sessions_, options_.transport, std::move(*resolved));
  auto checking = check_subscription(connection, std::move(path));
  check = co_await std::move(checking);
  co_return check;
}

asio::awaitable<DriverOutcome> RedfishDriver::unsubscribe_events(const DriverTarget& target,
                                                                 std::string path) {
  DriverOutcome outcome;
  std::optional<RedfishTarget> resolved;
  if (resolve_failed(target, outcome, resolved)) co_return outcome;
  RedfishConnection connection(client_, sessions_, options_.transport, std::move(*resolved));
  auto removing = unsubscribe(connection, std::move(path));
  outcome = co_await std::move(removing);
  co_return outcome;
}

namespace {

// A stopping service must not wait on its BMCs: the sessions are closed side by side (a fleet's
// thousands one after another had taken minutes, and the service had stopped waiting long
// before), each DELETE is given a couple of seconds, and none starts after kLogoutWindow. A
// session left open expires at its BMC on its own.
constexpr std::size_t kLogoutWorkers = 64;
constexpr std::chrono::milliseconds kLogoutWindow{2000};
constexpr std::chrono::milliseconds kLogoutConnectTimeout{1000};
constexpr std::chrono::milliseconds kLogoutTimeout{2000};

}  // namespace

struct RedfishDriver::Logouts {
  std::vector<CachedSession> sessions;
  std::size_t next = 0;
  std::chrono::steady_clock::time_point last_start;
  TransportOptions transport;
};

asio::awaitable<void> RedfishDriver::shutdown() {
  // Each BMC holds only a few sessions; leaving ours open until they time out would lock others
  // out. Failures are ignored: the session expires on its own.
  auto logouts = std::make_shared<Logouts>();
  for (auto& session : sessions_.take_all())
    if (session.mode == AuthMode::session) logouts->sessions.push_back(std::move(session));
  if (logouts->sessions.empty()) co_return;
  logouts->last_start = std::chrono::steady_clock::now() + kLogoutWindow;
  logouts->transport = options_.transport;
  logouts->transport.connect_timeout =
      std::min(logouts->transport.connect_timeout, kLogoutConnectTimeout);
  logouts->transport.total_timeout = std::min(logouts->transport.total_timeout, kLogoutTimeout);
  auto strand = asio::make_strand(co_await asio::this_coro::executor);
  co_await asio::co_spawn(strand, log_out_all(std::move(logouts)), asio::use_awaitable);
}

asio::awaitable<void> RedfishDriver::log_out_all(std::shared_ptr<Logouts> logouts) {
  const auto strand = co_await asio::this_coro::executor;
  const std::size_t workers = std::min(logouts->sessions.size(), kLogoutWorkers);
  auto remaining = std::make_shared<std::size_t>(workers);
  asio::steady_timer done(strand, asio::steady_timer::time_point::max());
  for (std::size_t i = 0; i < workers; ++i)
    asio::co_spawn(strand, log_out_worker(logouts), [remaining, &done](std::exception_ptr) {
      if (--*remaining == 0) done.cancel();
    });
  boost::system::error_code ec;
  co_await done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

asio::awaitable<void> RedfishDriver::log_out_worker(std::shared_ptr<Logouts> logouts) {
  while (logouts->next < logouts->sessions.size() &&
         std::chrono::steady_clock::now() < logouts->last_start) {
    CachedSession session = std::move(logouts->sessions[logouts->next++]);
    co_await log_out(client_, logouts->transport, std::move(session));
  }
}

}  // namespace ironhold::bmc::redfish
