#pragma once
// One BCC API call, signed with bce-auth-v1 and retried like Baidu's Go SDK does (500, 502, 503
// and RequestExpired, plus 429, with exponential backoff and jitter). Every attempt is signed
// afresh, so a RequestExpired caused by a stale timestamp heals on the retry. Failures come back
// as DriverError values, classified: credentials -> auth_failed, transport -> unreachable/timeout,
// anything else BCC says -> rejected with its code, message and request id (never a secret).
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bmc/http/bmc_http_client.hpp"
#include "cloudapi/bcc/bce_signer.hpp"
#include "inventory/drivers/cloud_driver.hpp"

namespace ironhold::cloudapi::bcc {

// Where and as whom an account's calls go.
struct BccAccess {
  std::string base_url;   // "https://bcc.bj.baidubce.com" (no trailing '/')
  std::string host;       // the Host header: "bcc.bj.baidubce.com", "127.0.0.1:8080"
  std::string base_path;  // a path prefix of the endpoint, usually ""
  bool tls = true;
  BceCredentials credentials;
  bmc::http::Pace pace;  // the account's own request rate
};

// The account's endpoint (its override, else https://bcc.<region>.baidubce.com) and credentials
// {"access_key", "secret_key"}; a DriverError (auth_failed for missing credentials, rejected
// for a bad endpoint) when they cannot be used.
struct BccAccessResult {
  std::optional<BccAccess> access;
  std::optional<DriverError> error;
};
BccAccessResult bcc_access(const CloudAccountTarget& account);

struct BccCall {
  std::string method = "GET";
  std::string path;  // "/v2/instance/i-x", decoded
  std::vector<BceParam> params;
  std::string body;  // JSON, or empty
  // Whether a request that may have reached BCC without an answer may be sent again.
  bool idempotent = true;
  std::string what;  // for messages: "list instances", "stop i-x"
};

struct BccCallResult {
  std::optional<DriverError> error;
  long status = 0;
  std::string body;
  std::string error_code;  // BCC's code when it answered with an error body
  bool ok() const { return !error; }
};

struct BccClientOptions {
  bmc::http::RetryPolicy retry{.max_attempts = 4,
                               .base_delay = std::chrono::milliseconds(300),
                               .max_delay = std::chrono::milliseconds(20'000),
                               .jitter = 0.5,
                               .max_retry_after = std::chrono::milliseconds(20'000)};
  std::chrono::milliseconds request_timeout{30'000};
  std::size_t per_host_limit = 8;
  // The signing clock (tests may skew it); system_clock when empty.
  std::function<std::chrono::system_clock::time_point()> now;
  // Waits between attempts; a steady_timer when empty.
  std::function<boost::asio::awaitable<void>(std::chrono::milliseconds)> sleep;
  // PEM bundle for https endpoints; empty: the system's (/etc/ssl/certs/ca-certificates.crt).
  std::string ca_bundle_pem;
};

class BccClient {
 public:
  BccClient(boost::asio::any_io_executor executor, BccClientOptions options);

  boost::asio::awaitable<BccCallResult> call(BccAccess access, BccCall call);

 private:
  bmc::http::HttpRequest build_request(const BccAccess& access, const BccCall& call) const;

  BccClientOptions options_;
  bmc::http::BmcHttpClient http_;
};

// The query string as sent: names and values encoded like the canonical form, a value-less
// parameter as its bare name ("start").
std::string bcc_query_string(const std::vector<BceParam>& params);

}  // namespace ironhold::cloudapi::bcc
