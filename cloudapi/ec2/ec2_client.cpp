#include "cloudapi/ec2/ec2_client.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <random>

#include "cloudapi/ec2/ec2_request.hpp"
#include "inventory/error.hpp"

namespace ironhold::cloudapi::ec2 {
namespace asio = boost::asio;
namespace http = bmc::http;

namespace {

double default_uniform() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
}

bool retryable_status(long status) {
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504 ||
         status == 509;
}

DriverError transport_error(const http::HttpError& error, std::string_view action) {
  DriverErrorCode code = DriverErrorCode::unreachable;
  switch (error.kind) {
    case http::HttpErrorKind::timeout:
      code = DriverErrorCode::timeout;
      break;
    case http::HttpErrorKind::tls_pin_mismatch:
      code = DriverErrorCode::tls_pin_mismatch;
      break;
    case http::HttpErrorKind::tls_failed:
      code = DriverErrorCode::tls_failed;
      break;
    case http::HttpErrorKind::too_large:
    case http::HttpErrorKind::protocol:
      code = DriverErrorCode::bad_response;
      break;
    default:
      code = DriverErrorCode::unreachable;
  }
  return {code, "EC2 " + std::string(action) + ": " + error.message};
}

// EC2's answer to a refused call, as a DriverError.
DriverError answer_error(long status, const std::optional<Ec2Error>& ec2, std::string_view action) {
  const std::string what = "EC2 " + std::string(action) + " (HTTP " + std::to_string(status) + ")";
  if (!ec2) {
    const DriverErrorCode code =
        status == 401 || status == 403 ? DriverErrorCode::auth_failed : DriverErrorCode::rejected;
    return {code, what + " with no EC2 error document"};
  }
  const DriverErrorCode code = is_auth_code(ec2->code) || status == 401
                                   ? DriverErrorCode::auth_failed
                                   : DriverErrorCode::rejected;
  std::string message = what + ": " + ec2->code + ": " + ec2->message;
  if (!ec2->request_id.empty()) message += " (request " + ec2->request_id + ")";
  return {code, message};
}

}  // namespace

bool is_throttling_code(std::string_view code) {
  return code == "RequestLimitExceeded" || code == "Throttling" || code == "ThrottlingException" ||
         code == "EC2ThrottledException" || code == "RequestThrottled" ||
         code == "RequestThrottledException" || code == "TooManyRequestsException";
}

bool is_auth_code(std::string_view code) {
  return code == "AuthFailure" || code == "SignatureDoesNotMatch" ||
         code == "InvalidClientTokenId" || code == "UnauthorizedOperation" ||
         code == "IncompleteSignature" || code == "MissingAuthenticationToken" ||
         code == "InvalidAccessKeyId" || code == "ExpiredToken" || code == "RequestExpired" ||
         code == "OptInRequired" || code == "Blocked";
}

Ec2Client::Ec2Client(http::BmcHttpClient& http, Options options, std::function<double()> uniform)
    : http_(http), options_(options), uniform_(uniform ? std::move(uniform) : default_uniform) {}

asio::awaitable<Ec2CallResult> Ec2Client::call(const Ec2Account& account, const Ec2Query& query) {
  Ec2CallResult result;
  const std::string& action = query.action();
  const unsigned attempts = std::max(1U, options_.retry.max_attempts);
  for (unsigned attempt = 1; attempt <= attempts; ++attempt) {
    std::optional<SignedEc2Request> signed_request;
    std::optional<DriverError> sign_error;
    try {
      signed_request = sign_ec2_query(query, account.endpoint, account.credentials, account.region,
                                      std::chrono::system_clock::now());
    } catch (const Error& e) {
      sign_error = DriverError{DriverErrorCode::rejected, "EC2 " + action + ": " + e.what()};
    }
    if (sign_error) {
      result.error = sign_error;
      break;
    }

    http::HttpRequest request;
    request.method = signed_request->method;
    request.url = signed_request->url;
    request.headers = signed_request->headers;
    request.body = signed_request->body;
    request.pace = account.pace;
    request.connect_timeout = options_.connect_timeout;
    request.total_timeout = options_.total_timeout;
    if (request.url.starts_with("http://")) {
      request.tls.mode = http::TlsPolicy::Mode::none;
    } else {
      request.tls.mode = http::TlsPolicy::Mode::ca;
      request.tls.ca_bundle_pem = options_.ca_bundle_pem;
    }
    // Every EC2 action the driver sends may be repeated: Describe* read, Start/Stop/Reboot of an
    // instance already there are no-ops, and CreateReplaceRootVolumeTask carries a ClientToken.
    const http::CallOptions call_options{.idempotent = true};
    auto pending = http_.request(std::move(request), call_options);
    http::HttpResult answer = co_await std::move(pending);

    bool retry = false;
    if (!answer.ok()) {
      result.error = transport_error(answer.error(), action);
      const auto kind = answer.error().kind;
      retry = kind == http::HttpErrorKind::connect_failed || kind == http::HttpErrorKind::timeout;
    } else {
      const http::HttpResponse& response = answer.response();
      result.body = response.body;
      if (response.status == 200) {
        result.error.reset();
        result.ec2_error.reset();
        break;
      }
      result.ec2_error = parse_error(response.body);
      result.error = answer_error(response.status, result.ec2_error, action);
      retry = retryable_status(response.status) ||
              (result.ec2_error && is_throttling_code(result.ec2_error->code));
    }
    if (!retry || attempt == attempts) break;
    const auto delay = http::backoff_delay(options_.retry, attempt, uniform_());
    asio::steady_timer timer(co_await asio::this_coro::executor, delay);
    co_await timer.async_wait(asio::use_awaitable);
  }
  co_return result;
}

}  // namespace ironhold::cloudapi::ec2
