#pragma once
// The cloud driver interface: what the account sync and the task engine ask of a cloud provider
// (OpenStack, EC2, BCC). inventory/ defines it; cloudapi/ implements it. Like NodeDriver, calls
// never throw for anything the provider does: failures come back as a DriverError in the report,
// so one bad account is a recorded error on that account and nothing else.
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "inventory/drivers/node_driver.hpp"
#include "inventory/model/hardware.hpp"

namespace ironhold {

// One enrolled cloud account, with its credentials opened (for drivers only, never the API).
struct CloudAccountTarget {
  std::string account_id;
  std::string account_name;
  std::string provider;  // "openstack", "ec2", "bcc"
  // OpenStack: the Keystone auth URL. EC2/BCC: an endpoint override (tests point it at a
  // simulator); absent: the region's public endpoint.
  std::optional<std::string> endpoint;
  std::string region;
  // Validated provider options, e.g. OpenStack {"interface": "public", "gpu_aliases": {...}}.
  nlohmann::json options = nlohmann::json::object();
  // The provider's credential object as enrolled (see the cloud-accounts API).
  nlohmann::json credentials = nlohmann::json::object();
};

// One instance as the provider reports it, normalized. The sync turns it into a node with
// source=cloud, driver=provider and provider_id=provider_id.
struct CloudInstance {
  std::string provider_id;     // the instance id (EC2 "i-…", BCC "i-…", Nova's server uuid)
  std::string name;            // the provider's name (EC2: the Name tag); may be empty
  std::string provider_state;  // verbatim: "running", "SHUTOFF", "Stopped", …
  PowerState power_state = PowerState::unknown;
  // Terminated or deleted: the node is retired (never deleted; its history stays).
  bool gone = false;
  // From the provider's own status checks where it has them (EC2 status checks, BCC repairStatus,
  // Nova ERROR); unknown where it has none.
  Health health = Health::unknown;
  std::optional<std::string> status_detail;  // why health is not ok, or a flag like "expired"
  std::optional<std::string> zone;           // availability zone; the region is the account's
  std::optional<std::string> instance_type;  // EC2 instance type, BCC spec, Nova flavor name
  std::optional<std::string> image_id;       // becomes a software record ("image")
  std::optional<std::string> launched_at;    // RFC 3339 UTC where the provider gives it
  // cpu_count = vCPUs, memory_gib, gpu_model ("NVIDIA H100") and gpu_count.
  HardwareSummary summary;
  std::vector<Component> components;  // the GPUs (kind gpu, slot "GPU0"…), with memory where known
  nlohmann::json tags = nlohmann::json::object();     // provider tags/metadata, string → string
  nlohmann::json details = nlohmann::json::object();  // addresses, key name, flavor id, …
};

struct InstanceListing : DriverOutcome {
  std::vector<CloudInstance> instances;
};

struct InstanceReport : DriverOutcome {
  std::optional<CloudInstance> instance;  // absent with no error: the provider does not know it
};

// Reprovision in place: the same instance id, a new root disk from `image` (absent: the image it
// was launched with, where the provider can do that).
struct RebuildRequest {
  std::optional<std::string> image;
  std::optional<std::string> admin_password;  // write-only; BCC and Nova accept one
};

class CloudDriver {
 public:
  virtual ~CloudDriver() = default;

  // Every instance the account holds, all pages, with GPU facts resolved.
  virtual boost::asio::awaitable<InstanceListing> list_instances(
      const CloudAccountTarget& account) = 0;
  virtual boost::asio::awaitable<InstanceReport> describe_instance(
      const CloudAccountTarget& account, std::string provider_id) = 0;
  // on = start, off = stop, soft_off = graceful stop where the provider distinguishes it,
  // cycle/reset = reboot (soft / hard).
  virtual boost::asio::awaitable<ActionReport> power(const CloudAccountTarget& account,
                                                     std::string provider_id,
                                                     PowerAction action) = 0;
  virtual boost::asio::awaitable<ActionReport> rebuild(const CloudAccountTarget& account,
                                                       std::string provider_id,
                                                       RebuildRequest request) = 0;
  // Drops what the driver caches for an account (tokens, type facts): its credentials changed
  // or it was deleted.
  virtual void forget(const std::string& account_id) = 0;
  // Ends what is in flight (at service shutdown). Never throws.
  virtual boost::asio::awaitable<void> shutdown() = 0;
};

}  // namespace ironhold
