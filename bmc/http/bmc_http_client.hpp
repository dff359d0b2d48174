#pragma once
// The HTTP client the Redfish driver uses: CurlMultiClient plus what talking to fragile BMCs
// needs — a per-BMC limit on requests in flight, and retries with exponential backoff and jitter
// on connection errors and 5xx, honouring Retry-After on 503/429. Clock, randomness and sleeping
// are injected so the schedule is testable without waiting.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "bmc/http/asio_http_client.hpp"
#include "bmc/http/curl_multi_client.hpp"
#include "bmc/http/per_host_limiter.hpp"
#include "bmc/http/refusal_throttle.hpp"

namespace ironhold::bmc::http {

struct RetryPolicy {
  unsigned max_attempts = 3;  // the first try included; 1 disables retries
  std::chrono::milliseconds base_delay{500};
  std::chrono::milliseconds max_delay{30'000};
  // Fraction of each delay that is random: 0 = none, 1 = "full jitter" (uniform in [0, delay)).
  // Spreads the retries of thousands of BMCs that failed together (a switch reboot).
  double jitter = 0.5;
  // A Retry-After longer than this is cut down to it: a BMC must not park a worker for hours.
  std::chrono::milliseconds max_retry_after{60'000};
};

// What the retry loop depends on besides the network.
struct RetryEnvironment {
  std::function<std::chrono::system_clock::time_point()> now;  // for HTTP-date Retry-After
  std::function<double()> uniform;                             // in [0, 1)
  // Waits `delay`; the default is a steady_timer on the caller's executor.
  std::function<boost::asio::awaitable<void>(std::chrono::milliseconds)> sleep;
};

// The delay before retry number `retry` (1 for the first retry): base * 2^(retry-1) capped at
// max_delay, of which a `jitter` fraction is scaled by `uniform` (in [0, 1)).
std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, unsigned retry, double uniform);

// A Retry-After value: delta-seconds or an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"). A date
// in the past is 0. Absent when unparseable.
std::optional<std::chrono::milliseconds> parse_retry_after(
    std::string_view value, std::chrono::system_clock::time_point now);

// Whether a method may be replayed after the server may have received it (RFC 9110 §9.2.2).
bool idempotent_method(std::string_view method);

struct CallOptions {
  // Overrides the method's default: a POST with an idempotency key can say so.
  std::optional<bool> idempotent;
  // At most this many attempts (the first included) for this call, if fewer than the client's
  // policy allows: 1 when the caller has its own retry, such as the next poll of a BMC that is
  // already failing.
  std::optional<unsigned> max_attempts;
  // Called each time the call stops to wait on a timer of its own (a retry's backoff, a paced
  // BMC's turn) rather than on the BMC: the caller may stop counting it among the work running
  // at once. Called on the caller's executor, before the wait.
  std::function<void()> on_wait;
};

// Given the result of attempt number `attempt` (1-based), the delay before the next attempt, or
// nothing when this result is final.
std::optional<std::chrono::milliseconds> retry_delay(const RetryPolicy& policy,
                                                     const HttpResult& result, unsigned attempt,
                                                     bool idempotent, double uniform,
                                                     std::chrono::system_clock::time_point now);

class BmcHttpClient {
 public:
  struct Options {
    // Which HTTP client sends the requests. libcurl's, the project's outbound HTTP client; or
    // AsioHttpClient, which shares one TLS context between all its connections (18 KB less heap
    // per kept-alive connection than libcurl 7.88): what the Redfish driver uses, where
    // thousands of BMC connections stay open.
    enum class Transport { libcurl, asio };
    Transport transport_kind = Transport::libcurl;
    CurlMultiClient::Options transport;  // for libcurl; max_idle_connections for both
    std::size_t per_host_limit = 1;
    RetryPolicy retry;
    // Pace a host that refused a request (503 or 429) from then on (refusal_throttle.hpp): for
    // BMCs, which refuse bursts without saying how many they take. Cloud APIs have their own
    // rates (HttpRequest::pace).
    bool learn_from_refusals = false;
  };

  BmcHttpClient(boost::asio::any_io_executor executor, Options options,
                RetryEnvironment environment = {});

  // Requests in flight allowed for one BMC, by its "host:port" (as in the URL).
  void set_host_limit(const std::string& host_and_port, std::size_t limit);
  const PerHostLimiter& limiter() const { return limiter_; }

  // The last attempt's result. Each attempt holds a slot of the BMC only while it runs, not
  // while it backs off; each attempt first waits for its turn under request.pace.
  boost::asio::awaitable<HttpResult> request(HttpRequest request, CallOptions options = {});

 private:
  std::unique_ptr<CurlMultiClient> curl_;
  std::unique_ptr<AsioHttpClient> asio_;
  PerHostLimiter limiter_;
  RequestPacer pacer_;
  RefusalThrottle throttle_;
  bool learn_from_refusals_ = false;
  RetryPolicy policy_;
  RetryEnvironment environment_;
};

}  // namespace ironhold::bmc::http
