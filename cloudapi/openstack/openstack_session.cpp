// The OpenStack driver's account sessions: Keystone tokens cached per account, one
// authentication at a time per account, the microversion negotiated once, and Nova calls that
// re-authenticate once when the token is refused.
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <functional>

#include "cloudapi/common/account_pace.hpp"
#include "cloudapi/openstack/openstack_driver.hpp"
#include "cloudapi/openstack/tls_choice.hpp"
#include "inventory/error.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::cloudapi::openstack {

namespace asio = boost::asio;
namespace http = bmc::http;
using nlohmann::json;

namespace {

// OpenStack has no standard rate; 10 requests a second per account is gentle on a private cloud.
constexpr double kRequestsPerSecond = 10;

DriverError transport_error(const http::HttpError& error, const std::string& what) {
  DriverError out;
  switch (error.kind) {
    case http::HttpErrorKind::connect_failed:
    case http::HttpErrorKind::cancelled:
      out.code = DriverErrorCode::unreachable;
      break;
    case http::HttpErrorKind::timeout:
      out.code = DriverErrorCode::timeout;
      break;
    case http::HttpErrorKind::tls_pin_mismatch:
    case http::HttpErrorKind::tls_failed:
      out.code = DriverErrorCode::tls_failed;
      break;
    default:
      out.code = DriverErrorCode::bad_response;
      break;
  }
  out.message = what + ": " + error.message;
  return out;
}

std::string error_text(long status, const std::string& body) {
  if (auto message = nova_error_message(body)) return *message;
  return "HTTP " + std::to_string(status);
}

// Where Nova's version document is: the endpoint up to its /v2.1 (a catalog URL may carry the
// project id after it).
std::string discovery_url(const std::string& compute_url) {
  const auto at = compute_url.find("/v2.1");
  if (at == std::string::npos) return compute_url + "/";
  return compute_url.substr(0, at + 5) + "/";
}

}  // namespace

http::BmcHttpClient::Options OpenStackDriverOptions::default_http_options() {
  http::BmcHttpClient::Options out;
  out.per_host_limit = 8;
  out.transport.max_host_connections = 8;
  out.transport.shards = 4;  // a handful of cloud endpoints, not thousands of BMCs
  out.retry.max_attempts = 4;
  out.retry.base_delay = std::chrono::milliseconds(300);
  out.retry.max_delay = std::chrono::milliseconds(10'000);
  return out;
}

// Holds an account's "authenticating" flag while one coroutine authenticates; clears it on every
// way out, so waiting coroutines never wait for nothing.
class OpenStackDriver::AuthTurn {
 public:
  AuthTurn(OpenStackDriver& driver, std::string account_id)
      : driver_(driver), account_id_(std::move(account_id)) {}
  ~AuthTurn() {
    std::lock_guard lock(driver_.mutex_);
    const auto it = driver_.accounts_.find(account_id_);
    if (it != driver_.accounts_.end()) it->second.authenticating = false;
  }
  AuthTurn(const AuthTurn&) = delete;
  AuthTurn& operator=(const AuthTurn&) = delete;

 private:
  OpenStackDriver& driver_;
  std::string account_id_;
};

std::string OpenStackDriver::fingerprint(const CloudAccountTarget& account) const {
  // Kept in memory only, to notice edited credentials; never logged.
  const std::string material = account.endpoint.value_or("") + '\n' + account.region + '\n' +
                               account.options.dump() + '\n' + account.credentials.dump();
  return std::to_string(std::hash<std::string>{}(material));
}

OpenStackDriver::AccountCache& OpenStackDriver::cache_locked(const CloudAccountTarget& account) {
  AccountCache& cache = accounts_[account.account_id];
  const std::string print = fingerprint(account);
  if (cache.fingerprint != print) {
    const bool busy = cache.authenticating;
    cache = AccountCache{};
    cache.fingerprint = print;
    cache.authenticating = busy;
  }
  return cache;
}

asio::awaitable<OpenStackDriver::SessionResult> OpenStackDriver::session_for(
    const CloudAccountTarget& account, std::optional<std::string> stale_token) {
  asio::steady_timer timer(executor_);
  // Wait (bounded) while another coroutine authenticates this account, then use its token.
  SessionResult cached;
  bool have_cached = false;
  for (int waited = 0;; ++waited) {
    bool mine = false;
    {
      std::lock_guard lock(mutex_);
      AccountCache& cache = cache_locked(account);
      if (cache.auth_failure && options_.now() < cache.auth_failure_until) {
        cached.error = cache.auth_failure;
        have_cached = true;
      }
      if (!have_cached && cache.session) {
        const bool refused = stale_token && cache.session->token == *stale_token;
        if (!refused && options_.now() < cache.session->refresh_at) {
          cached.session = *cache.session;
          have_cached = true;
        }
      }
      if (!have_cached && (!cache.authenticating || waited >= 3000)) {
        cache.authenticating = true;
        mine = true;
      }
    }
    if (have_cached) co_return cached;
    if (mine) break;
    timer.expires_after(std::chrono::milliseconds(10));
    co_await timer.async_wait(asio::use_awaitable);
  }
  AuthTurn turn(*this, account.account_id);
  SessionResult result = co_await authenticate(account);
  if (result.error) {
    if (result.error->code == DriverErrorCode::auth_failed) {
      std::lock_guard lock(mutex_);
      AccountCache& cache = cache_locked(account);
      cache.auth_failure = result.error;
      cache.auth_failure_until = options_.now() + options_.auth_failure_backoff;
      cache.session.reset();
    }
    co_return result;
  }

  bool negotiated = false;
  {
    std::lock_guard lock(mutex_);
    AccountCache& cache = cache_locked(account);
    negotiated = cache.negotiated;
    result.session.microversion = cache.microversion;
  }
  if (!negotiated) {
    std::optional<Microversion> chosen;
    const auto error = co_await negotiate(account, result.session, chosen);
    if (error) {
      result.error = error;
      co_return result;
    }
    result.session.microversion = chosen;
  }
  {
    std::lock_guard lock(mutex_);
    AccountCache& cache = cache_locked(account);
    cache.negotiated = true;
    cache.microversion = result.session.microversion;
    cache.session = result.session;
    cache.auth_failure.reset();
  }
  co_return result;
}

asio::awaitable<OpenStackDriver::SessionResult> OpenStackDriver::authenticate(
    const CloudAccountTarget& account) {
  SessionResult out;
  std::optional<KeystoneCredentials> credentials;
  std::string interface;
  try {
    credentials = parse_credentials(account.credentials);
    interface = endpoint_interface(account.options);
  } catch (const Error& e) {
    out.error = DriverError{DriverErrorCode::auth_failed, e.what()};
  }
  if (out.error) co_return out;
  if (!account.endpoint || account.endpoint->empty()) {
    out.error = DriverError{DriverErrorCode::auth_failed,
                            "the OpenStack account has no Keystone auth URL (endpoint)"};
    co_return out;
  }

  http::HttpRequest request;
  request.method = "POST";
  request.url = auth_tokens_url(*account.endpoint);
  request.tls = tls_for(request.url, account.options);
  request.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
  request.body = auth_request_body(*credentials).dump();
  request.total_timeout = options_.request_timeout;
  request.pace = account_pace(account, kRequestsPerSecond);
  request.max_body = 4 << 20;
  // Asking twice for a token does no harm, so throttled or failed attempts are repeated.
  const http::CallOptions call{.idempotent = true};
  const SystemTime asked_at = options_.now();
  http::HttpResult result = co_await client_.request(std::move(request), call);
  if (!result.ok()) {
    out.error = transport_error(result.error(), "Keystone at " + *account.endpoint);
    co_return out;
  }
  const http::HttpResponse& response = result.response();
  if (response.status == 401 || response.status == 403) {
    out.error = DriverError{DriverErrorCode::auth_failed,
                            "Keystone refused the credentials: " +
                                keystone_error_message(response.body)
                                    .value_or("HTTP " + std::to_string(response.status))};
    co_return out;
  }
  if (response.status != 201 && response.status != 200) {
    out.error = DriverError{DriverErrorCode::rejected,
                            "Keystone POST /v3/auth/tokens answered " +
                                keystone_error_message(response.body)
                                    .value_or("HTTP " + std::to_string(response.status))};
    co_return out;
  }
  const auto subject = response.header("X-Subject-Token");
  if (!subject || subject->empty()) {
    out.error =
        DriverError{DriverErrorCode::bad_response, "Keystone issued no X-Subject-Token header"};
    co_return out;
  }
  std::optional<KeystoneToken> token;
  try {
    token = parse_token_response(response.body, *subject);
  } catch (const Error& e) {
    out.error = DriverError{DriverErrorCode::bad_response, e.what()};
  }
  if (out.error) co_return out;
  const auto compute = select_endpoint(token->catalog, "compute", interface, account.region);
  if (!compute) {
    out.error = DriverError{DriverErrorCode::bad_response,
                            "the service catalog has no " + interface + " compute endpoint" +
                                (account.region.empty() ? "" : " in region " + account.region)};
    co_return out;
  }
  out.session.token = token->id;
  out.session.refresh_at = refresh_time(*token, asked_at, options_.refresh_margin);
  out.session.compute_url = *compute;
  while (!out.session.compute_url.empty() && out.session.compute_url.back() == '/')
    out.session.compute_url.pop_back();
  co_return out;
}

asio::awaitable<std::optional<DriverError>> OpenStackDriver::negotiate(
    const CloudAccountTarget& account, const Session& session, std::optional<Microversion>& out) {
  http::HttpRequest request;
  request.url = discovery_url(session.compute_url);
  request.tls = tls_for(request.url, account.options);
  request.headers = {{"X-Auth-Token", session.token}, {"Accept", "application/json"}};
  request.total_timeout = options_.request_timeout;
  request.pace = account_pace(account, kRequestsPerSecond);
  http::HttpResult result = co_await client_.request(std::move(request));
  if (!result.ok()) co_return transport_error(result.error(), "Nova at " + session.compute_url);
  const json doc = json::parse(result.response().body, nullptr, false);
  const auto versions = parse_compute_versions(doc);
  if (!versions) {
    // A cloud that hides its version document still speaks 2.1: use it, without a header.
    log::warn("openstack: no compute version document; using 2.1",
              {{"account", account.account_name}, {"status", result.response().status}});
    out.reset();
    co_return std::nullopt;
  }
  out = choose_microversion(*versions);
  co_return std::nullopt;
}

asio::awaitable<OpenStackDriver::NovaReply> OpenStackDriver::nova(const CloudAccountTarget& account,
                                                                  std::string_view method,
                                                                  const std::string& path,
                                                                  const std::string& body) {
  NovaReply out;
  std::optional<std::string> stale;
  for (int attempt = 0; attempt < 2; ++attempt) {
    SessionResult session = co_await session_for(account, stale);
    if (session.error) {
      out.error = session.error;
      co_return out;
    }
    http::HttpRequest request;
    request.method = std::string(method);
    request.url = session.session.compute_url + path;
    request.tls = tls_for(request.url, account.options);
    request.headers = {{"X-Auth-Token", session.session.token}, {"Accept", "application/json"}};
    if (const auto& mv = session.session.microversion) {
      request.headers.emplace_back("OpenStack-API-Version", "compute " + mv->text());
      request.headers.emplace_back("X-OpenStack-Nova-API-Version", mv->text());
    }
    if (!body.empty()) {
      request.headers.emplace_back("Content-Type", "application/json");
      request.body = body;
    }
    request.total_timeout = options_.request_timeout;
    request.pace = account_pace(account, kRequestsPerSecond);
    // Server actions are safe to repeat after a throttled or failed attempt: a repeat of one
    // that did happen is refused with a 409, never done twice.
    const http::CallOptions call{.idempotent = true};
    http::HttpResult result = co_await client_.request(std::move(request), call);
    if (!result.ok()) {
      out.error = transport_error(result.error(), "Nova " + std::string(method) + " " + path);
      co_return out;
    }
    out.status = result.response().status;
    out.body = std::move(result.response().body);
    if (out.status != 401) co_return out;
    stale = session.session.token;
  }
  out.error =
      DriverError{DriverErrorCode::auth_failed, "Nova refused a token Keystone had just issued: " +
                                                    error_text(out.status, out.body)};
  co_return out;
}

}  // namespace ironhold::cloudapi::openstack
