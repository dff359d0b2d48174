#pragma once
// One EC2 account's Query API calls: sign (afresh for every attempt, so a long backoff never
// sends a stale x-amz-date), send over the shared HTTP transport, retry throttling and server
// errors with exponential backoff and full jitter, and turn EC2's error answers into DriverErrors:
// auth codes → auth_failed, the rest → rejected with EC2's code and message.
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "bmc/http/bmc_http_client.hpp"
#include "cloudapi/ec2/ec2_xml.hpp"
#include "cloudapi/ec2/query.hpp"
#include "cloudapi/ec2/sigv4.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold::cloudapi::ec2 {

// Where and as whom an account's calls go.
struct Ec2Account {
  std::string endpoint;  // "https://ec2.us-east-1.amazonaws.com/" or the account's override
  std::string region;
  AwsCredentials credentials;
  bmc::http::Pace pace;  // the account's own request rate
};

struct Ec2CallResult {
  std::optional<DriverError> error;
  std::optional<Ec2Error> ec2_error;  // EC2's own error, when it answered with one
  std::string body;                   // the answer (200) or the error document
};

// Whether an EC2 error code means the request was throttled (and so not acted on).
bool is_throttling_code(std::string_view code);
// Whether an EC2 error code means the credentials or their rights were refused.
bool is_auth_code(std::string_view code);

class Ec2Client {
 public:
  struct Options {
    // EC2's own advice is botocore's: exponential, capped, full jitter.
    bmc::http::RetryPolicy retry{.max_attempts = 5,
                                 .base_delay = std::chrono::milliseconds(500),
                                 .max_delay = std::chrono::milliseconds(20'000),
                                 .jitter = 1.0};
    // The CAs an https:// endpoint's certificate must chain to (PEM; the driver loads the
    // system's bundle). http:// endpoints (simulators) go without TLS.
    std::string ca_bundle_pem;
    std::chrono::milliseconds connect_timeout{5'000};
    std::chrono::milliseconds total_timeout{30'000};
  };

  Ec2Client(bmc::http::BmcHttpClient& http, Options options, std::function<double()> uniform = {});

  boost::asio::awaitable<Ec2CallResult> call(const Ec2Account& account, const Ec2Query& query);

 private:
  bmc::http::BmcHttpClient& http_;
  Options options_;
  std::function<double()> uniform_;
};

}  // namespace ironhold::cloudapi::ec2
