#include "bmc/http/bmc_http_client.hpp"

#include <algorithm>
#include <array>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/url/parse.hpp>
#include <charconv>
#include <ctime>
#include <random>

namespace ironhold::bmc::http {
namespace asio = boost::asio;
using std::chrono::milliseconds;

namespace {

bool parse_int(std::string_view text, int& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// "Sun, 06 Nov 1994 08:49:37 GMT" (the only form RFC 9110 lets a server send).
std::optional<std::chrono::system_clock::time_point> parse_imf_fixdate(std::string_view s) {
  if (s.size() != 29 || s[3] != ',' || s[4] != ' ' || s[7] != ' ' || s[11] != ' ' || s[16] != ' ' ||
      s[19] != ':' || s[22] != ':' || s[25] != ' ' || s.substr(26) != "GMT")
    return std::nullopt;
  static constexpr std::array<std::string_view, 12> kMonths = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const auto month = std::find(kMonths.begin(), kMonths.end(), s.substr(8, 3));
  std::tm tm{};
  if (month == kMonths.end() || !parse_int(s.substr(5, 2), tm.tm_mday) ||
      !parse_int(s.substr(12, 4), tm.tm_year) || !parse_int(s.substr(17, 2), tm.tm_hour) ||
      !parse_int(s.substr(20, 2), tm.tm_min) || !parse_int(s.substr(23, 2), tm.tm_sec))
    return std::nullopt;
  tm.tm_mon = static_cast<int>(month - kMonths.begin());
  tm.tm_year -= 1900;
  const std::time_t t = timegm(&tm);
  if (t == static_cast<std::time_t>(-1)) return std::nullopt;
  return std::chrono::system_clock::from_time_t(t);
}

bool retryable_status(long status) {
  // 501 and 505 say "never": repeating the request cannot change the answer.
  return status == 429 || (status >= 500 && status <= 599 && status != 501 && status != 505);
}

std::string host_key(const std::string& url) {
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed) return url;  // the transport will reject it; any key will do
  return std::string(parsed->encoded_host_and_port());
}

asio::awaitable<void> timer_sleep(milliseconds delay) {
  asio::steady_timer timer(co_await asio::this_coro::executor, delay);
  co_await timer.async_wait(asio::use_awaitable);
}

RetryEnvironment with_defaults(RetryEnvironment env) {
  if (!env.now) env.now = [] { return std::chrono::system_clock::now(); };
  if (!env.uniform) {
    // Jitter needs spread, not secrecy. One engine per thread: no lock on a hot path.
    env.uniform = [] {
      thread_local std::mt19937_64 engine{std::random_device{}()};
      return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
    };
  }
  if (!env.sleep) env.sleep = timer_sleep;
  return env;
}

}  // namespace

milliseconds backoff_delay(const RetryPolicy& policy, unsigned retry, double uniform) {
  const unsigned doublings = std::min(retry == 0 ? 0U : retry - 1, 30U);
  const double base = static_cast<double>(policy.base_delay.count());
  const double capped = std::min(base * static_cast<double>(1ULL << doublings),
                                 static_cast<double>(policy.max_delay.count()));
  const double jitter = std::clamp(policy.jitter, 0.0, 1.0);
  const double u = std::clamp(uniform, 0.0, 1.0);
  return milliseconds(
      static_cast<milliseconds::rep>(capped * (1.0 - jitter) + capped * jitter * u));
}

std::optional<milliseconds> parse_retry_after(std::string_view value,
                                              std::chrono::system_clock::time_point now) {
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  while (!value.empty() && value.back() == ' ') value.remove_suffix(1);
  if (!value.empty() && value.front() >= '0' && value.front() <= '9') {
    long long seconds = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
    if (ec == std::errc::result_out_of_range) return milliseconds::max();
    if (ec != std::errc() || end != value.data() + value.size()) return std::nullopt;
    // Capped by the caller; here only kept from overflowing.
    if (seconds > 1'000'000'000) return milliseconds::max();
    return std::chrono::seconds(seconds);
  }
  const auto when = parse_imf_fixdate(value);
  if (!when) return std::nullopt;
  if (*when <= now) return milliseconds(0);
  return std::chrono::duration_cast<milliseconds>(*when - now);
}

bool idempotent_method(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE" ||
         method == "OPTIONS";
}

std::optional<milliseconds> retry_delay(const RetryPolicy& policy, const HttpResult& result,
                                        unsigned attempt, bool idempotent, double uniform,
                                        std::chrono::system_clock::time_point now) {
  if (attempt >= policy.max_attempts) return std::nullopt;
  const milliseconds backoff = backoff_delay(policy, attempt, uniform);
  if (!result.ok()) {
    const HttpError& error = result.error();
    const bool transient =
        error.kind == HttpErrorKind::connect_failed || error.kind == HttpErrorKind::timeout;
    // A request that never left cannot have been acted on, whatever its method.
    if (transient && (idempotent || !error.request_sent)) return backoff;
    return std::nullopt;
  }
  const HttpResponse& response = result.response();
  // Any answer proves the server received the request: only an idempotent one is repeated.
  if (!retryable_status(response.status) || !idempotent) return std::nullopt;
  if (response.status == 503 || response.status == 429) {
    if (const auto header = response.header("Retry-After")) {
      if (const auto asked = parse_retry_after(*header, now))
        return std::min(*asked, policy.max_retry_after);
    }
  }
  return backoff;
}

BmcHttpClient::BmcHttpClient(asio::any_io_executor executor, Options options,
                             RetryEnvironment environment)
    : limiter_(options.per_host_limit),
      learn_from_refusals_(options.learn_from_refusals),
      policy_(options.retry),
      environment_(with_defaults(std::move(environment))) {
  if (options.transport_kind == Options::Transport::libcurl) {
    curl_ = std::make_unique<CurlMultiClient>(std::move(executor), options.transport);
  } else {
    AsioHttpClient::Options asio_options;
    if (options.transport.max_idle_connections > 0)
      asio_options.max_idle_connections =
          static_cast<std::size_t>(options.transport.max_idle_connections);
    asio_ = std::make_unique<AsioHttpClient>(std::move(executor), asio_options);
  }
}

void BmcHttpClient::set_host_limit(const std::string& host_and_port, std::size_t limit) {
  limiter_.set_limit(host_and_port, limit);
}

asio::awaitable<HttpResult> BmcHttpClient::request(HttpRequest request, CallOptions options) {
  const std::string key = host_key(request.url);
  const bool idempotent = options.idempotent.value_or(idempotent_method(request.method));
  RetryPolicy policy = policy_;
  if (options.max_attempts)
    policy.max_attempts = std::min(policy_.max_attempts, std::max(*options.max_attempts, 1U));
  for (unsigned attempt = 1;; ++attempt) {
    auto turn = pacer_.reserve(request.pace);
    if (learn_from_refusals_) turn = std::max(turn, throttle_.reserve(key));
    if (turn.count() > 0) {
      if (options.on_wait) options.on_wait();
      co_await environment_.sleep(turn);
    }
    PerHostLimiter::Permit permit = co_await limiter_.acquire(key);
    // Named, not written inside the co_await: GCC 12 mishandles temporaries there.
    auto sent = curl_ ? curl_->request(request) : asio_->request(request);
    HttpResult result = co_await std::move(sent);
    permit.release();
    if (learn_from_refusals_ && result.ok()) {
      const long status = result.response().status;
      if (status == 503 || status == 429) {
        throttle_.refused(key);
        // A refused burst needs the burst to drain before a retry is taken: more patience than
        // for a failure, unless the caller limited its attempts.
        if (!options.max_attempts)
          policy.max_attempts =
              std::max(policy_.max_attempts, RefusalThrottle::attempts_when_refused);
      } else {
        throttle_.answered(key);
      }
    }
    const auto delay = retry_delay(policy, result, attempt, idempotent, environment_.uniform(),
                                   environment_.now());
    if (!delay) co_return result;
    if (options.on_wait) options.on_wait();
    co_await environment_.sleep(*delay);
  }
}

}  // namespace ironhold::bmc::http
