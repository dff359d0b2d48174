#pragma once
// The IPMI commands a simulated BMC answers: request data in, completion code and response data
// out, with the privilege each needs (IPMI v2.0 appendix G). Session-level commands (Set Session
// Privilege Level, Close Session) are the session layer's (rmcp_handler.cpp).
#include <cstdint>
#include <optional>

#include "bmc/ipmi/bytes.hpp"
#include "sim/ipmi/bmc_model.hpp"

namespace ironhold::sim::ipmi {

// Completion codes (IPMI v2.0 table 5-2).
inline constexpr std::uint8_t kCcOk = 0x00;
inline constexpr std::uint8_t kCcParameterNotSupported = 0x80;  // boot options
inline constexpr std::uint8_t kCcInvalidCommand = 0xC1;
inline constexpr std::uint8_t kCcReservationCancelled = 0xC5;
inline constexpr std::uint8_t kCcLengthInvalid = 0xC7;
inline constexpr std::uint8_t kCcLengthExceeded = 0xC8;
inline constexpr std::uint8_t kCcOutOfRange = 0xC9;
inline constexpr std::uint8_t kCcCannotReturnBytes = 0xCA;
inline constexpr std::uint8_t kCcNotPresent = 0xCB;
inline constexpr std::uint8_t kCcInvalidData = 0xCC;
inline constexpr std::uint8_t kCcInsufficientPrivilege = 0xD4;
inline constexpr std::uint8_t kCcNotInPresentState = 0xD5;

// The most a Read FRU Data may ask for; more gets 0xCA so that clients read in smaller pieces,
// as they must with real BMCs.
inline constexpr std::size_t kMaxFruRead = 32;

struct CommandContext {
  BmcModel& bmc;
  Clock::time_point now;
  bool cold_reset = false;  // set by BMC Cold Reset: the session layer drops every session
};

// The response data (completion code first) for a request at `privilege` (kPrivNone outside a
// session). Nothing when the command is not one to answer outside a session.
std::optional<bmc::ipmi::Bytes> dispatch_command(CommandContext& ctx, std::uint8_t privilege,
                                                 std::uint8_t netfn, std::uint8_t command,
                                                 bmc::ipmi::ByteView data);

// The handlers, by netFn; each returns the completion code and the response data.
namespace handlers {
using bmc::ipmi::Bytes;
using bmc::ipmi::ByteView;
// App
Bytes get_device_id(CommandContext& ctx, ByteView data);
Bytes cold_reset(CommandContext& ctx, ByteView data);
Bytes get_self_test_results(CommandContext& ctx, ByteView data);
Bytes get_system_guid(CommandContext& ctx, ByteView data);
Bytes get_channel_auth_capabilities(CommandContext& ctx, ByteView data);
Bytes get_channel_cipher_suites(CommandContext& ctx, ByteView data);
// App: user accounts (user_commands.cpp)
Bytes get_user_access(CommandContext& ctx, ByteView data);
Bytes get_user_name(CommandContext& ctx, ByteView data);
Bytes set_user_password(CommandContext& ctx, ByteView data);
// Chassis
Bytes get_chassis_capabilities(CommandContext& ctx, ByteView data);
Bytes get_chassis_status(CommandContext& ctx, ByteView data);
Bytes chassis_control(CommandContext& ctx, ByteView data);
Bytes chassis_identify(CommandContext& ctx, ByteView data);
Bytes set_boot_options(CommandContext& ctx, ByteView data);
Bytes get_boot_options(CommandContext& ctx, ByteView data);
// Sensor
Bytes get_sensor_reading(CommandContext& ctx, ByteView data);
Bytes get_sensor_thresholds(CommandContext& ctx, ByteView data);
Bytes get_sensor_hysteresis(CommandContext& ctx, ByteView data);
Bytes get_sensor_event_enable(CommandContext& ctx, ByteView data);
// Storage: SDR repository
Bytes get_sdr_repository_info(CommandContext& ctx, ByteView data);
Bytes reserve_sdr_repository(CommandContext& ctx, ByteView data);
Bytes get_sdr(CommandContext& ctx, ByteView data);
// Storage: SEL
Bytes get_sel_info(CommandContext& ctx, ByteView data);
Bytes reserve_sel(CommandContext& ctx, ByteView data);
Bytes get_sel_entry(CommandContext& ctx, ByteView data);
Bytes clear_sel(CommandContext& ctx, ByteView data);
Bytes get_sel_time(CommandContext& ctx, ByteView data);
// Storage: FRU
Bytes get_fru_inventory_area_info(CommandContext& ctx, ByteView data);
Bytes read_fru_data(CommandContext& ctx, ByteView data);
}  // namespace handlers

}  // namespace ironhold::sim::ipmi
