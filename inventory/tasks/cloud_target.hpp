#pragma once
// A task's target that is a cloud instance: actions through the cloud sync (which follows each
// action with a sync of the account), readings straight from the provider.
#include "inventory/cloud/cloud_sync.hpp"
#include "inventory/tasks/action_target.hpp"

namespace ironhold::tasks {

class CloudTarget final : public ActionTarget {
 public:
  CloudTarget(CloudSync& cloud, std::string node_id)
      : cloud_(cloud), node_id_(std::move(node_id)) {}

  boost::asio::awaitable<ActionReport> power(PowerAction action) override;
  boost::asio::awaitable<ActionReport> set_boot(BootRequest boot) override;
  boost::asio::awaitable<ActionReport> identify(bool on) override;
  boost::asio::awaitable<ActionReport> rebuild(RebuildRequest request) override;
  boost::asio::awaitable<ActionReport> insert_virtual_media(std::string image_url) override;
  boost::asio::awaitable<ActionReport> eject_virtual_media() override;
  boost::asio::awaitable<BiosReport> read_bios() override;
  boost::asio::awaitable<ActionReport> write_bios(BiosChange change) override;
  boost::asio::awaitable<ActionReport> change_bmc_password(std::string new_password) override;
  boost::asio::awaitable<DriverOutcome> check_login(Credentials credentials) override;
  boost::asio::awaitable<TargetReading> read() override;
  boost::asio::awaitable<TargetInspection> inspect() override;
  boost::asio::awaitable<FirmwareUpdateReport> start_firmware_update(
      FirmwareUpdateRequest request) override;
  boost::asio::awaitable<FirmwareUpdateReport> firmware_update_status(std::string monitor) override;
  boost::asio::awaitable<FirmwareUpdateReport> find_firmware_update(FirmwareUpdateRequest request,
                                                                    nlohmann::json sent) override;
  bool leaves_no_trace(PowerAction action) const override {
    return action == PowerAction::cycle || action == PowerAction::reset;
  }

 private:
  CloudSync& cloud_;
  std::string node_id_;
};

}  // namespace ironhold::tasks
