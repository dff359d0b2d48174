#pragma once
// An HTTP/1.1 client for BMCs on Asio and OpenSSL alone, with the interface and the error kinds
// of CurlMultiClient. Its kept-alive connections share one OpenSSL context per way of trusting a
// BMC, where libcurl 7.88 builds a context for every connection: at 8,000 kept-alive BMC
// connections that was some 100 MB of the service's heap (bench/redfish_sweep).
//
// Each request runs on a strand of its own, its deadline on the same strand. Kept-alive
// connections wait in a pool between requests, by origin and trust; one that the server closed
// meanwhile is noticed before it is used, and a request that finds its reused connection dead
// before any answer came is sent once more on a new one, as libcurl does. Every few seconds the
// pool also lets go of those the server closed and of those idle too long: a BMC polled every
// few minutes closes its side long before, and its dead connection would hold some 20 KB of
// OpenSSL state until the next poll (bench/redfish_sweep --pause-s).
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstddef>
#include <memory>

#include "bmc/http/curl_multi_client.hpp"

namespace ironhold::bmc::http {

class AsioHttpClient {
 public:
  struct Options {
    // Kept-alive connections held between requests, over all servers; past it, a connection
    // whose request ended is closed instead.
    std::size_t max_idle_connections = 20'000;
    // A kept-alive connection unused for longer is closed (libcurl's CURLOPT_MAXAGE_CONN default).
    std::chrono::milliseconds max_idle_time{118'000};
    // How often, at most, the pool checks its idle connections for ones to close.
    std::chrono::milliseconds prune_interval{5'000};
  };

  explicit AsioHttpClient(boost::asio::any_io_executor executor);
  AsioHttpClient(boost::asio::any_io_executor executor, Options options);
  // Ends requests still in flight with `cancelled` (the executor must still run for that) and
  // closes the kept-alive connections.
  ~AsioHttpClient();
  AsioHttpClient(const AsioHttpClient&) = delete;
  AsioHttpClient& operator=(const AsioHttpClient&) = delete;

  // Never throws for network or protocol failures: they come back classified in HttpResult.
  boost::asio::awaitable<HttpResult> request(HttpRequest request);

  // Kept-alive connections waiting for a request now.
  std::size_t idle_connections() const;

  struct Pool;

 private:
  boost::asio::any_io_executor executor_;
  std::shared_ptr<Pool> pool_;
};

}  // namespace ironhold::bmc::http
