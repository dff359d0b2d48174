#pragma once
// Redfish BIOS settings: the System's Bios resource holds the attributes the BIOS runs with; its
// @Redfish.Settings object takes changes, which the BIOS applies at the next reset (or at once,
// where SupportedApplyTimes lists Immediate). The outcome of the last application is in the Bios
// resource's @Redfish.Settings.Messages: iLO names a refused attribute there, DMTF's mockup a
// failed one. The boot order is the System's Boot.BootOrder. The parsing is pure (tested against
// vendor captures); the coroutines read and write through a connection.
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bmc/redfish/actions.hpp"
#include "bmc/redfish/redfish_transport.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold::bmc::redfish {

// The settings as the System and its Bios document say; absent when `bios` is no object with
// Attributes. Values other than scalars (a BMC's nested OEM blocks) are left out.
std::optional<BiosSettings> bios_settings(const nlohmann::json& system, const nlohmann::json* bios);

// The Bios resource's @Redfish.Settings.Messages as text, and into `refused` the attributes a
// message other than Success names.
std::vector<std::string> settings_messages(const nlohmann::json& bios,
                                           std::vector<std::string>& refused);

// The PATCH body for the BIOS settings object: {"Attributes": ...} and the apply time when the
// BMC lists apply times. `unsupported` when it lists some and not the one asked for, or lists
// none and Immediate is asked for (a BIOS without a list applies at the next reset).
std::variant<nlohmann::json, DriverError> bios_settings_body(const BiosChange& change,
                                                             const SettingsTarget& target);

boost::asio::awaitable<BiosReport> read_bios(RedfishConnection& connection, std::string system_id);
boost::asio::awaitable<ActionReport> write_bios(RedfishConnection& connection,
                                                std::string system_id, BiosChange change);

}  // namespace ironhold::bmc::redfish
