#pragma once
// Redfish actions on a node: ComputerSystem.Reset mapped onto the System's allowed reset types,
// boot source override, the identify LED and Manager.Reset. The mapping is pure (plan_reset,
// boot_patch, identify_patch) so it is tested without a BMC; the coroutines send what it says
// and report it in ActionReport.detail.
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bmc/redfish/redfish_transport.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold::bmc::redfish {

struct ActionOptions {
  // The off+on fallback of a power cycle waits for PowerState Off this long, polling.
  std::chrono::milliseconds power_off_timeout{120'000};
  std::chrono::milliseconds power_poll_interval{2'000};
};

// The ResetType values to send in order: one, or {"ForceOff", "On"} for a cycle the BMC cannot
// do itself. `allowed` absent means the service does not say (anything goes). A type the BMC
// does not allow is `unsupported`, with the allowed values in the message.
std::variant<std::vector<std::string>, DriverError> plan_reset(
    PowerAction action, const std::optional<std::vector<std::string>>& allowed);

// "Pxe", "Hdd", "Cd", "BiosSetup".
std::string boot_target(BootDevice device);
// {"Boot": {BootSourceOverrideTarget, BootSourceOverrideEnabled[, BootSourceOverrideMode]}}.
nlohmann::json boot_patch(const BootRequest& boot);
// boot_patch for this System: a Supermicro BMC refuses a Boot PATCH without
// BootSourceOverrideMode, so when none is asked for its current mode is sent back unchanged.
// (iLO refuses a mode it does not let change, so the mode is not echoed everywhere.)
nlohmann::json boot_patch(const BootRequest& boot, const nlohmann::json& system);

// Where a resource takes settings it applies later: its @Redfish.Settings object.
struct SettingsTarget {
  std::string path;                      // SettingsObject
  std::vector<std::string> apply_times;  // SupportedApplyTimes; empty when not listed
};
std::optional<SettingsTarget> settings_target(const nlohmann::json& resource);
// `patch` with the @Redfish.SettingsApplyTime a boot override wants: OnReset (it is read at the
// next boot), else Immediate; none when the BMC lists no apply times. `unsupported` when it lists
// only others (a maintenance window), naming them.
std::variant<nlohmann::json, DriverError> settings_patch(nlohmann::json patch,
                                                         const SettingsTarget& target);
// {"LocationIndicatorActive": on} when the System has it as a boolean (or has no IndicatorLED),
// else {"IndicatorLED": "Lit"/"Off"}; nothing when the System has neither.
std::optional<nlohmann::json> identify_patch(const nlohmann::json& system, bool on);
// An action's allowed ResetType values as the action object lists them; absent when it does not.
std::optional<std::vector<std::string>> allowable_values(const nlohmann::json& action,
                                                         const std::string& parameter);

// What an action reports: `detail` (or the error) and the certificate the connection saw.
ActionReport action_report(const RedfishConnection& connection, std::string detail,
                           std::optional<DriverError> error = std::nullopt);

// An authenticated request whose answer only matters as success or the error.
boost::asio::awaitable<std::optional<DriverError>> send_request(RedfishConnection& connection,
                                                                std::string method,
                                                                std::string path,
                                                                nlohmann::json body);

boost::asio::awaitable<ActionReport> power_action(RedfishConnection& connection,
                                                  std::string system_id, PowerAction action,
                                                  ActionOptions options);
boost::asio::awaitable<ActionReport> set_boot_override(RedfishConnection& connection,
                                                       std::string system_id, BootRequest boot);
boost::asio::awaitable<ActionReport> set_identify(RedfishConnection& connection,
                                                  std::string system_id, bool on);
boost::asio::awaitable<ActionReport> reset_manager(RedfishConnection& connection);

}  // namespace ironhold::bmc::redfish
