#pragma once
// A task's target that is an owned server: the node's System behind its BMC, through the node
// driver the poller also uses (so sessions are shared, not opened twice).
#include <boost/asio/thread_pool.hpp>

#include "inventory/db/poll_store.hpp"
#include "inventory/drivers/node_driver.hpp"
#include "inventory/tasks/action_target.hpp"

namespace ironhold::tasks {

class BmcTarget final : public ActionTarget {
 public:
  // `driver_name` decides what evidence a reset leaves ("ipmi": none for a hard reset).
  // `polls` records an inspection (on `pool`, never on an I/O thread); null: inspect fails.
  BmcTarget(NodeDriver& driver, std::string driver_name, DriverTarget target, std::string system_id,
            db::PollStore* polls, boost::asio::thread_pool& pool, std::string owner)
      : driver_(driver),
        driver_name_(std::move(driver_name)),
        target_(std::move(target)),
        system_id_(std::move(system_id)),
        polls_(polls),
        pool_(pool),
        owner_(std::move(owner)) {}

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
    return driver_name_ == "ipmi" && action == PowerAction::reset;
  }

 private:
  NodeDriver& driver_;
  std::string driver_name_;
  DriverTarget target_;
  std::string system_id_;
  db::PollStore* polls_;
  boost::asio::thread_pool& pool_;
  std::string owner_;
};

}  // namespace ironhold::tasks
