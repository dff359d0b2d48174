#include "cloudapi/bcc/bcc_client.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/url/parse.hpp>
#include <fstream>
#include <random>
#include <sstream>

#include "cloudapi/bcc/bcc_json.hpp"
#include "cloudapi/common/account_pace.hpp"
#include "cloudapi/common/uri_encode.hpp"

namespace ironhold::cloudapi::bcc {
namespace {

namespace asio = boost::asio;
namespace http = ironhold::bmc::http;
using std::chrono::milliseconds;

constexpr const char* kSystemBundle = "/etc/ssl/certs/ca-certificates.crt";

const std::string& system_ca_bundle() {
  static const std::string bundle = [] {
    std::ifstream in(kSystemBundle, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }();
  return bundle;
}

asio::awaitable<void> timer_sleep(milliseconds delay) {
  asio::steady_timer timer(co_await asio::this_coro::executor, delay);
  co_await timer.async_wait(asio::use_awaitable);
}

double uniform() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
}

bool credential_code(const std::string& code) {
  return code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch" ||
         code == "AccessDenied" || code == "InvalidHTTPAuthHeader";
}

// Baidu's Go SDK retries these; 429 is added because a rate limiter in front answers with it.
bool retryable_answer(long status, const std::string& code) {
  return status == 429 || status == 500 || status == 502 || status == 503 ||
         code == "RequestExpired";
}

DriverError transport_error(const http::HttpError& error, const std::string& what) {
  DriverError out;
  switch (error.kind) {
    case http::HttpErrorKind::timeout:
      out.code = DriverErrorCode::timeout;
      break;
    case http::HttpErrorKind::tls_pin_mismatch:
      out.code = DriverErrorCode::tls_pin_mismatch;
      break;
    case http::HttpErrorKind::tls_failed:
      out.code = DriverErrorCode::tls_failed;
      break;
    case http::HttpErrorKind::too_large:
    case http::HttpErrorKind::protocol:
      out.code = DriverErrorCode::bad_response;
      break;
    case http::HttpErrorKind::connect_failed:
    case http::HttpErrorKind::cancelled:
      out.code = DriverErrorCode::unreachable;
      break;
  }
  out.message = "BCC " + what + ": " + error.message;
  return out;
}

// What BCC's answer means for the caller, with its code kept for the driver.
BccCallResult answer(const http::HttpResponse& response, const std::string& what) {
  BccCallResult out;
  out.status = response.status;
  out.body = response.body;
  if (response.status >= 200 && response.status < 300) return out;
  const auto body = parse_error_body(response.body);
  std::string request_id = response.header("x-bce-request-id").value_or("");
  std::string text = "HTTP " + std::to_string(response.status);
  if (body) {
    out.error_code = body->code;
    if (request_id.empty()) request_id = body->request_id;
    text = body->code + ": " + body->message + " (" + text + ")";
  }
  if (!request_id.empty()) text += ", request id " + request_id;
  DriverError error;
  const bool auth = credential_code(out.error_code) || response.status == 401 ||
                    (response.status == 403 && out.error_code.empty());
  error.code = auth ? DriverErrorCode::auth_failed : DriverErrorCode::rejected;
  error.message =
      (auth ? "BCC rejected the credentials (" + what + "): " : "BCC " + what + ": ") + text;
  out.error = std::move(error);
  return out;
}

}  // namespace

BccAccessResult bcc_access(const CloudAccountTarget& account) {
  BccAccessResult out;
  const auto fail = [&](DriverErrorCode code, std::string message) {
    out.error = DriverError{code, std::move(message)};
    return out;
  };
  const auto& c = account.credentials;
  const auto text = [&](const char* key) -> std::string {
    const auto it = c.find(key);
    return it != c.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  BccAccess access;
  access.credentials.access_key = text("access_key");
  access.credentials.secret_key = text("secret_key");
  if (access.credentials.access_key.empty() || access.credentials.secret_key.empty())
    return fail(DriverErrorCode::auth_failed,
                "BCC credentials need \"access_key\" and \"secret_key\"");
  std::string url = account.endpoint.value_or("");
  if (url.empty()) {
    if (account.region.empty())
      return fail(DriverErrorCode::rejected, "BCC account has neither an endpoint nor a region");
    url = "https://bcc." + account.region + ".baidubce.com";
  }
  while (!url.empty() && url.back() == '/') url.pop_back();
  const auto parsed = boost::urls::parse_uri(url);
  if (!parsed || (parsed->scheme() != "http" && parsed->scheme() != "https") ||
      parsed->encoded_host().empty())
    return fail(DriverErrorCode::rejected, "BCC endpoint \"" + url + "\" is not an http(s) URL");
  access.base_url = url;
  access.tls = parsed->scheme() == "https";
  // Baidu documents no rate; 10 requests a second stays well inside what its SDKs expect.
  access.pace = account_pace(account, 10);
  access.host = std::string(parsed->encoded_host_and_port());
  access.base_path = std::string(parsed->path());
  out.access = std::move(access);
  return out;
}

std::string bcc_query_string(const std::vector<BceParam>& params) {
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out.push_back('&');
    out += rfc3986_encode(name);
    if (value) {
      out.push_back('=');
      out += rfc3986_encode(*value);
    }
  }
  return out;
}

BccClient::BccClient(asio::any_io_executor executor, BccClientOptions options)
    : options_(std::move(options)),
      http_(std::move(executor),
            http::BmcHttpClient::Options{
                .transport = {.max_host_connections = static_cast<long>(options_.per_host_limit)},
                .per_host_limit = options_.per_host_limit,
                // Retries happen here, above the transport, so that each attempt is re-signed.
                .retry = {.max_attempts = 1}}) {
  if (!options_.now) options_.now = [] { return std::chrono::system_clock::now(); };
  if (!options_.sleep) options_.sleep = timer_sleep;
}

http::HttpRequest BccClient::build_request(const BccAccess& access, const BccCall& call) const {
  const auto now = options_.now();
  BceRequestToSign to_sign;
  to_sign.method = call.method;
  to_sign.path = access.base_path + call.path;
  to_sign.params = call.params;
  to_sign.timestamp =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  to_sign.headers = {{"Host", access.host},
                     {"x-bce-date", bce_timestamp(to_sign.timestamp)},
                     {"Content-Type", "application/json;charset=utf-8"}};
  // As Baidu's docs recommend: host and x-bce-date (every x-bce-* we send is in that set).
  to_sign.headers_to_sign = std::vector<std::string>{"host", "x-bce-date"};
  const BceSignature signature = sign_bce_v1(access.credentials, to_sign);

  http::HttpRequest request;
  request.method = call.method;
  request.url = access.base_url.substr(0, access.base_url.size() - access.base_path.size()) +
                bce_canonical_uri(to_sign.path);
  if (!call.params.empty()) {
    request.url += '?';  // appended, not "?" + ...: GCC 12 warns falsely on that (util/concat.hpp)
    request.url += bcc_query_string(call.params);
  }
  request.headers = to_sign.headers;
  request.headers.emplace_back("Authorization", signature.authorization);
  request.body = call.body;
  request.total_timeout = options_.request_timeout;
  if (access.tls) {
    request.tls.mode = http::TlsPolicy::Mode::ca;
    request.tls.ca_bundle_pem =
        options_.ca_bundle_pem.empty() ? system_ca_bundle() : options_.ca_bundle_pem;
  } else {
    request.tls.mode = http::TlsPolicy::Mode::none;
  }
  request.pace = access.pace;
  return request;
}

asio::awaitable<BccCallResult> BccClient::call(BccAccess access, BccCall call) {
  BccCallResult result;
  http::CallOptions call_options;
  call_options.idempotent = call.idempotent;
  for (unsigned attempt = 1;; ++attempt) {
    http::HttpRequest request = build_request(access, call);
    http::HttpResult outcome = co_await http_.request(std::move(request), call_options);
    bool retry = false;
    milliseconds delay = bmc::http::backoff_delay(options_.retry, attempt, uniform());
    if (!outcome.ok()) {
      const auto& error = outcome.error();
      result = BccCallResult{};
      result.error = transport_error(error, call.what);
      const bool transient = error.kind == http::HttpErrorKind::connect_failed ||
                             error.kind == http::HttpErrorKind::timeout;
      retry = transient && (call.idempotent || !error.request_sent);
    } else {
      result = answer(outcome.response(), call.what);
      retry = result.error && retryable_answer(result.status, result.error_code);
      if (retry && (result.status == 429 || result.status == 503)) {
        if (const auto header = outcome.response().header("Retry-After"))
          if (const auto asked = bmc::http::parse_retry_after(*header, options_.now()))
            delay = std::min(*asked, options_.retry.max_retry_after);
      }
    }
    if (!retry || attempt >= options_.retry.max_attempts) break;
    co_await options_.sleep(delay);
  }
  co_return result;
}

}  // namespace ironhold::cloudapi::bcc
