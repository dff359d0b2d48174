#pragma once
// The Baidu AI Cloud BCC driver: lists an account's instances (all marker/maxKeys pages, GPU facts
// from the instance or, for specs that carry none, from flavorSpec), describes one, and starts,
// stops, reboots and rebuilds instances through the v2 API, signed with bce-auth-v1.
//   on = start; off = stop forceStop=true; soft_off = stop forceStop=false;
//   cycle = reboot forceStop=false; reset = reboot forceStop=true;
//   rebuild = ?rebuild with imageId and the admin password AES-encrypted with the secret key (or
//   the account option "keypair_id").
#include <boost/asio/any_io_executor.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "cloudapi/bcc/bcc_client.hpp"
#include "cloudapi/bcc/bcc_json.hpp"
#include "inventory/drivers/cloud_driver.hpp"

namespace ironhold::cloudapi::bcc {

struct BccDriverOptions {
  BccClientOptions client;
  std::size_t max_keys = 1000;     // per list page (BCC's maximum)
  std::size_t max_pages = 10'000;  // a guard against a marker that never ends
};

class BccDriver : public CloudDriver {
 public:
  explicit BccDriver(boost::asio::any_io_executor executor, BccDriverOptions options = {});

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
  // The account's flavorSpec catalogue, fetched once and kept until forget(); null when it
  // cannot be had (the listing then goes on without those GPU facts).
  boost::asio::awaitable<std::shared_ptr<const BccFlavorCatalog>> flavors(
      const CloudAccountTarget& account, BccAccess access);
  boost::asio::awaitable<ActionReport> action(const CloudAccountTarget& account,
                                              std::string provider_id, std::string verb,
                                              std::string body, std::string detail);

  BccDriverOptions options_;
  BccClient client_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const BccFlavorCatalog>> flavor_cache_;
};

}  // namespace ironhold::cloudapi::bcc
