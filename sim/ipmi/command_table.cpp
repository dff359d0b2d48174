// Which handler answers which (netFn, command), and the privilege it needs.
#include "bmc/ipmi/commands.hpp"
#include "sim/ipmi/commands.hpp"

namespace ironhold::sim::ipmi {

namespace {

using bmc::ipmi::Bytes;
using Handler = Bytes (*)(CommandContext&, bmc::ipmi::ByteView);

struct Entry {
  std::uint8_t netfn, command, privilege;
  Handler handler;
};

using namespace handlers;
constexpr std::uint8_t kApp = bmc::ipmi::kNetFnApp, kChassis = bmc::ipmi::kNetFnChassis,
                       kSensor = bmc::ipmi::kNetFnSensor, kStorage = bmc::ipmi::kNetFnStorage;

constexpr Entry kCommands[] = {
    {kApp, 0x01, kPrivUser, get_device_id},
    {kApp, 0x02, kPrivAdministrator, cold_reset},
    {kApp, 0x04, kPrivUser, get_self_test_results},
    {kApp, 0x37, kPrivNone, get_system_guid},
    {kApp, 0x38, kPrivNone, get_channel_auth_capabilities},
    {kApp, 0x44, kPrivOperator, get_user_access},
    {kApp, 0x46, kPrivOperator, get_user_name},
    {kApp, 0x47, kPrivAdministrator, set_user_password},
    {kApp, 0x54, kPrivNone, get_channel_cipher_suites},
    {kChassis, 0x00, kPrivUser, get_chassis_capabilities},
    {kChassis, 0x01, kPrivUser, get_chassis_status},
    {kChassis, 0x02, kPrivOperator, chassis_control},
    {kChassis, 0x04, kPrivOperator, chassis_identify},
    {kChassis, 0x08, kPrivOperator, set_boot_options},
    {kChassis, 0x09, kPrivOperator, get_boot_options},
    {kSensor, 0x25, kPrivUser, get_sensor_hysteresis},
    {kSensor, 0x27, kPrivUser, get_sensor_thresholds},
    {kSensor, 0x29, kPrivUser, get_sensor_event_enable},
    {kSensor, 0x2D, kPrivUser, get_sensor_reading},
    {kStorage, 0x10, kPrivUser, get_fru_inventory_area_info},
    {kStorage, 0x11, kPrivUser, read_fru_data},
    {kStorage, 0x20, kPrivUser, get_sdr_repository_info},
    {kStorage, 0x22, kPrivUser, reserve_sdr_repository},
    {kStorage, 0x23, kPrivUser, get_sdr},
    {kStorage, 0x40, kPrivUser, get_sel_info},
    {kStorage, 0x42, kPrivUser, reserve_sel},
    {kStorage, 0x43, kPrivUser, get_sel_entry},
    {kStorage, 0x47, kPrivOperator, clear_sel},
    {kStorage, 0x48, kPrivUser, get_sel_time},
};

}  // namespace

std::optional<Bytes> dispatch_command(CommandContext& ctx, std::uint8_t privilege,
                                      std::uint8_t netfn, std::uint8_t command,
                                      bmc::ipmi::ByteView data) {
  for (const Entry& e : kCommands) {
    if (e.netfn != netfn || e.command != command) continue;
    if (privilege == kPrivNone && e.privilege != kPrivNone) return std::nullopt;
    if (privilege < e.privilege) return Bytes{kCcInsufficientPrivilege};
    return e.handler(ctx, data);
  }
  if (privilege == kPrivNone) return std::nullopt;
  return Bytes{kCcInvalidCommand};
}

}  // namespace ironhold::sim::ipmi
