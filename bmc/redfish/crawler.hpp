#pragma once
// Discovery by following @odata.id links from the service root, never fixed paths. What is read
// depends on the scope: the 30-second status poll reads only the Systems; the sensor poll the
// chassis sensors and log entries; an inspection everything the normalizer uses. Collections are
// read through Members (the truth; Members@odata.count is ignored) and Members@odata.nextLink,
// stopping when a page brings no new member. Bounded: at most max_documents reads per crawl.
#include <boost/asio/awaitable.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

#include "bmc/redfish/resource_graph.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold::bmc::redfish {

// One authenticated GET of a canonical path: the parsed JSON document or why not. A fetcher
// never throws. The one exception to "canonical": a collection's next page is requested as its
// Members@odata.nextLink gives it, path and query ("/redfish/v1/.../Entries?$skiptoken=2"), with
// any scheme and authority dropped.
using FetchResult = std::variant<nlohmann::json, DriverError>;
using Fetcher = std::function<boost::asio::awaitable<FetchResult>(const std::string& path)>;

enum class CrawlScope { status, sensors, inventory };

struct CrawlOptions {
  CrawlScope scope = CrawlScope::inventory;
  std::size_t max_documents = 2000;  // a service that links endlessly is cut off (bad_response)
  std::size_t max_pages = 50;        // nextLink pages per collection
  // Known System paths (from an earlier crawl) let the status scope skip root and collection.
  std::vector<std::string> system_paths;
  // Known GPU baseboard Systems (below), read with them by the sensor scope.
  std::vector<std::string> baseboard_paths;
  // With known System paths, a $select for them ("$select=Id,PowerState,Status"), for services
  // whose root declares ProtocolFeaturesSupported.SelectQuery: the status poll then moves and
  // parses a tenth of the document. Empty: whole documents.
  std::string system_select;
  // Log entry paths already reported: their documents are not read again (sensors scope).
  std::function<bool(const std::string& entry_path)> entry_seen;
  // Log entry documents read per log service and crawl: a service that does not expand its
  // entries inline and holds thousands would otherwise eat max_documents. Entries left unread
  // are not "seen", so later sensor polls pick them up.
  std::size_t max_log_entries = 200;
};

struct CrawlResult {
  ResourceGraph graph;
  // The System paths in Members order (the enrolled node is the first).
  std::vector<std::string> system_paths;
  // GPU baseboards the service models as Systems of their own (NVIDIA HGX: "HGX_Baseboard_0",
  // beside the host's System). They are no hosts: not nodes, not powered on their own; their
  // GPUs, GPU chassis and logs are read and belong to the first host.
  std::vector<std::string> baseboard_paths;
  // Resources that could not be read but did not stop the crawl ("GET /redfish/v1/...: 500").
  std::vector<std::string> warnings;
  // The service answered system_select without the properties asked for: the Systems were read
  // again whole, and the caller should stop asking it to select.
  bool select_ignored = false;
  // Set when the crawl could not produce a usable result (root or Systems unreadable, auth
  // failure, TLS mismatch): the first such error.
  std::optional<DriverError> error;
};

boost::asio::awaitable<CrawlResult> crawl(Fetcher fetch, CrawlOptions options);

// Whether a System is a GPU baseboard rather than a host: NVIDIA's HGX services (the HMC, and
// host BMCs that aggregate it) name it HGX_Baseboard_<n>.
bool is_gpu_baseboard(const nlohmann::json* system, const std::string& path);

// Whether the crawled service root declares $select support.
bool supports_select(const ResourceGraph& graph);

}  // namespace ironhold::bmc::redfish
