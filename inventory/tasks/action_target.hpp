#pragma once
// What a task does to a node and how it reads the node back, whichever kind of node it is: an
// owned server through its BMC's driver, or a cloud instance through its account's driver. The
// task steps (power_task.cpp, ...) are written once against this.
#include <boost/asio/awaitable.hpp>
#include <optional>
#include <string>

#include "inventory/drivers/cloud_driver.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold::tasks {

// One reading of the node, for verification and for deciding an in-doubt step.
struct TargetReading {
  std::optional<DriverError> error;
  PowerState power = PowerState::unknown;
  // Evidence that a reset happened, where the target keeps it (Redfish LastResetTime); compared
  // with the value read before the reset was sent.
  std::optional<std::string> last_reset;
  std::string detail;  // what was seen, for a person: "On", "running", "stopping"
};

// What an inspection found, recorded in the inventory by the target before it returns.
struct TargetInspection {
  std::optional<DriverError> error;
  std::string detail;  // "2 Systems, 41 components, 23 firmware items"
  nlohmann::json result = nlohmann::json::object();
  std::vector<FirmwareItem> firmware;  // the node's System's, for a firmware update's checks
};

class ActionTarget {
 public:
  virtual ~ActionTarget() = default;
  virtual boost::asio::awaitable<ActionReport> power(PowerAction action) = 0;
  virtual boost::asio::awaitable<ActionReport> set_boot(BootRequest boot) = 0;
  virtual boost::asio::awaitable<ActionReport> identify(bool on) = 0;
  // Reprovision in place: a cloud instance's rebuild / root-volume replacement, followed by the
  // driver until the provider has taken it.
  virtual boost::asio::awaitable<ActionReport> rebuild(RebuildRequest request) = 0;
  // An owned server's virtual CD (NodeDriver::insert_virtual_media); a cloud instance has none.
  virtual boost::asio::awaitable<ActionReport> insert_virtual_media(std::string image_url) = 0;
  virtual boost::asio::awaitable<ActionReport> eject_virtual_media() = 0;
  // An owned server's BIOS settings (NodeDriver::read_bios, write_bios); a cloud instance has none.
  virtual boost::asio::awaitable<BiosReport> read_bios() = 0;
  virtual boost::asio::awaitable<ActionReport> write_bios(BiosChange change) = 0;
  // An owned server's BMC account: its password changed (NodeDriver::change_bmc_password), and a
  // fresh login with `credentials` instead of the stored ones (NodeDriver::check_login).
  virtual boost::asio::awaitable<ActionReport> change_bmc_password(std::string new_password) = 0;
  virtual boost::asio::awaitable<DriverOutcome> check_login(Credentials credentials) = 0;
  virtual boost::asio::awaitable<TargetReading> read() = 0;
  // Reads the full inventory now and records it (an owned server: like the poller's daily
  // inspection; a cloud instance: its provider's description, then its account's sync).
  virtual boost::asio::awaitable<TargetInspection> inspect() = 0;
  // Firmware updates, as NodeDriver has them (a cloud instance has none: unsupported).
  virtual boost::asio::awaitable<FirmwareUpdateReport> start_firmware_update(
      FirmwareUpdateRequest request) = 0;
  virtual boost::asio::awaitable<FirmwareUpdateReport> firmware_update_status(
      std::string monitor) = 0;
  virtual boost::asio::awaitable<FirmwareUpdateReport> find_firmware_update(
      FirmwareUpdateRequest request, nlohmann::json sent) = 0;
  // True when this cycle or reset leaves no trace the target reports (a cloud reboot keeps the
  // instance "running" throughout; an IPMI hard reset never shows the chassis off): the
  // acknowledgement is then the only evidence there is.
  virtual bool leaves_no_trace(PowerAction action) const = 0;
};

}  // namespace ironhold::tasks
