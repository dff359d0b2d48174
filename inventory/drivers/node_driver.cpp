#include "inventory/drivers/node_driver.hpp"

#include <filesystem>
#include <system_error>

namespace ironhold {
namespace {

constexpr std::string_view error_code_names[] = {"unreachable",      "timeout",    "auth_failed",
                                                 "tls_pin_mismatch", "tls_failed", "bad_response",
                                                 "unsupported",      "rejected"};
constexpr std::string_view power_action_names[] = {"on", "off", "cycle", "reset", "soft_off"};
constexpr std::string_view boot_device_names[] = {"pxe", "disk", "cd", "bios"};
constexpr std::string_view update_state_names[] = {"running", "completed", "failed", "gone"};
constexpr std::string_view transfer_names[] = {"auto", "pull", "push"};

FirmwareUpdateReport no_firmware_updates() {
  FirmwareUpdateReport report;
  report.state = UpdateState::failed;
  report.error = DriverError{DriverErrorCode::unsupported,
                             "this driver has no firmware update (Redfish UpdateService only)"};
  return report;
}

DriverError no_pushed_events() {
  return DriverError{DriverErrorCode::unsupported,
                     "this driver has no pushed events (Redfish EventService only)"};
}

}  // namespace

boost::asio::awaitable<EventSubscriptionReport> NodeDriver::subscribe_events(
    const DriverTarget&, EventSubscriptionRequest) {
  EventSubscriptionReport report;
  report.error = no_pushed_events();
  co_return report;
}
boost::asio::awaitable<SubscriptionCheck> NodeDriver::check_event_subscription(const DriverTarget&,
                                                                               std::string) {
  SubscriptionCheck check;
  check.error = no_pushed_events();
  co_return check;
}
boost::asio::awaitable<DriverOutcome> NodeDriver::unsubscribe_events(const DriverTarget&,
                                                                     std::string) {
  DriverOutcome outcome;
  outcome.error = no_pushed_events();
  co_return outcome;
}

std::string_view to_string(DriverErrorCode v) {
  return error_code_names[static_cast<int>(v)];
}

std::string_view to_string(PowerAction v) {
  return power_action_names[static_cast<int>(v)];
}
template <>
std::optional<PowerAction> parse_enum<PowerAction>(std::string_view s) {
  return enum_from_names<PowerAction>(power_action_names, s);
}
template <>
std::span<const std::string_view> enum_names<PowerAction>() {
  return power_action_names;
}

std::string_view to_string(UpdateState v) {
  return update_state_names[static_cast<int>(v)];
}

boost::asio::awaitable<FirmwareUpdateReport> NodeDriver::start_firmware_update(
    const DriverTarget&, FirmwareUpdateRequest) {
  co_return no_firmware_updates();
}
boost::asio::awaitable<FirmwareUpdateReport> NodeDriver::firmware_update_status(const DriverTarget&,
                                                                                std::string) {
  co_return no_firmware_updates();
}
boost::asio::awaitable<FirmwareUpdateReport> NodeDriver::find_firmware_update(const DriverTarget&,
                                                                              FirmwareUpdateRequest,
                                                                              nlohmann::json) {
  co_return no_firmware_updates();
}

boost::asio::awaitable<ActionReport> NodeDriver::insert_virtual_media(const DriverTarget&,
                                                                      std::string, std::string) {
  ActionReport report;
  report.error = DriverError{DriverErrorCode::unsupported,
                             "this driver has no virtual media: reprovision the node over PXE"};
  co_return report;
}

boost::asio::awaitable<ActionReport> NodeDriver::eject_virtual_media(const DriverTarget&,
                                                                     std::string) {
  ActionReport report;
  report.error = DriverError{DriverErrorCode::unsupported, "this driver has no virtual media"};
  co_return report;
}

boost::asio::awaitable<ConsoleOpenReport> NodeDriver::open_console(const DriverTarget&, std::string,
                                                                   ConsoleEvents) {
  ConsoleOpenReport report;
  report.error =
      DriverError{DriverErrorCode::unsupported, "this driver has no serial console for the node"};
  co_return report;
}

boost::asio::awaitable<BiosReport> NodeDriver::read_bios(const DriverTarget&, std::string) {
  BiosReport report;
  report.error = DriverError{DriverErrorCode::unsupported,
                             "this driver cannot read BIOS settings (IPMI has no standard way)"};
  co_return report;
}

boost::asio::awaitable<ActionReport> NodeDriver::write_bios(const DriverTarget&, std::string,
                                                            BiosChange) {
  ActionReport report;
  report.error = DriverError{DriverErrorCode::unsupported,
                             "this driver cannot change BIOS settings (IPMI has no standard way)"};
  co_return report;
}

boost::asio::awaitable<ActionReport> NodeDriver::change_bmc_password(const DriverTarget&,
                                                                     std::string) {
  ActionReport report;
  report.error =
      DriverError{DriverErrorCode::unsupported, "this driver cannot change BMC passwords"};
  co_return report;
}

boost::asio::awaitable<DriverOutcome> NodeDriver::check_login(const DriverTarget& target) {
  StatusReport status = co_await poll_status(target);
  DriverOutcome out;
  out.error = std::move(status.error);
  out.tls_fingerprint = std::move(status.tls_fingerprint);
  co_return out;
}

std::string_view to_string(FirmwareTransfer v) {
  return transfer_names[static_cast<int>(v)];
}
template <>
std::optional<FirmwareTransfer> parse_enum<FirmwareTransfer>(std::string_view s) {
  return enum_from_names<FirmwareTransfer>(transfer_names, s);
}
template <>
std::span<const std::string_view> enum_names<FirmwareTransfer>() {
  return transfer_names;
}

SpooledImage::~SpooledImage() {
  std::error_code ignored;  // already gone is fine; a leftover is swept with the spool directory
  std::filesystem::remove(path_, ignored);
}

std::string_view to_string(BootDevice v) {
  return boot_device_names[static_cast<int>(v)];
}
template <>
std::optional<BootDevice> parse_enum<BootDevice>(std::string_view s) {
  return enum_from_names<BootDevice>(boot_device_names, s);
}
template <>
std::span<const std::string_view> enum_names<BootDevice>() {
  return boot_device_names;
}

}  // namespace ironhold
