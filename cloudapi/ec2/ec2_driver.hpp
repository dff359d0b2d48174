#pragma once
// The AWS EC2 cloud driver (Query API 2016-11-15, SigV4). Listing = DescribeInstances (all
// pages) + DescribeInstanceTypes for types not yet known (cached per account: types never
// change) + DescribeInstanceStatus (IncludeAllInstances) for health. Power: on = StartInstances,
// off = StopInstances Force=true, soft_off = StopInstances, cycle and reset = RebootInstances
// (EC2 has no hard reset). Rebuild = CreateReplaceRootVolumeTask followed until it ends.
#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "bmc/http/bmc_http_client.hpp"
#include "cloudapi/ec2/ec2_client.hpp"
#include "inventory/drivers/cloud_driver.hpp"

namespace ironhold::cloudapi::ec2 {

struct Ec2DriverOptions {
  Ec2Client::Options client;
  // How often a replace-root-volume task is looked at, and how long it may take.
  std::chrono::milliseconds task_poll_interval{5'000};
  std::chrono::milliseconds task_timeout{std::chrono::minutes(30)};
  // Stops a listing whose pages never end (a provider bug must not loop forever).
  int max_pages = 1000;
  // The system's CA bundle, read once: AWS endpoints are verified against public CAs.
  std::string ca_bundle_path = "/etc/ssl/certs/ca-certificates.crt";
  // Randomness for the retry jitter (tests may fix it); empty: a real generator.
  std::function<double()> uniform;
};

class Ec2Driver : public CloudDriver {
 public:
  explicit Ec2Driver(boost::asio::any_io_executor executor, Ec2DriverOptions options = {});
  ~Ec2Driver() override;

  boost::asio::awaitable<InstanceListing> list_instances(
      const CloudAccountTarget& account) override;
  boost::asio::awaitable<InstanceReport> describe_instance(const CloudAccountTarget& account,
                                                           std::string provider_id) override;
  boost::asio::awaitable<ActionReport> power(const CloudAccountTarget& account,
                                             std::string provider_id, PowerAction action) override;
  boost::asio::awaitable<ActionReport> rebuild(const CloudAccountTarget& account,
                                               std::string provider_id,
                                               RebuildRequest request) override;
  void forget(const std::string& account_id) override;
  boost::asio::awaitable<void> shutdown() override;

 private:
  struct Listing;
  boost::asio::awaitable<std::optional<DriverError>> resolve_types(const CloudAccountTarget& target,
                                                                   const Ec2Account& account,
                                                                   Listing& listing);
  // DescribeInstanceStatus (IncludeAllInstances) of `ids`, or of every instance when empty.
  boost::asio::awaitable<std::optional<DriverError>> read_statuses(
      const Ec2Account& account, const std::vector<std::string>& ids, Listing& listing);
  void join(const std::string& account_id, Listing& listing);

  Ec2DriverOptions options_;
  std::unique_ptr<bmc::http::BmcHttpClient> http_;
  std::unique_ptr<Ec2Client> client_;
  std::mutex cache_mutex_;
  // account id → instance type → its facts
  std::map<std::string, std::map<std::string, InstanceTypeFacts>> type_cache_;
};

// The account's endpoint, region and credentials ({"access_key_id", "secret_access_key",
// "session_token"?}); a DriverError (auth_failed) that says what is missing.
struct AccountOrError {
  std::optional<Ec2Account> account;
  std::optional<DriverError> error;
};
AccountOrError ec2_account_of(const CloudAccountTarget& target);

}  // namespace ironhold::cloudapi::ec2
