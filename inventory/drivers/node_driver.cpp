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

}  // namespace

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
