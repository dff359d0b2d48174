// Chassis netFn commands: power state and control, identify, and the system boot options.
#include "sim/ipmi/commands.hpp"

namespace ironhold::sim::ipmi::handlers {

Bytes get_chassis_capabilities(CommandContext&, ByteView) {
  // No intrusion or lockout features; FRU, SDR, SEL and system management device are the BMC.
  return {kCcOk, 0x00, 0x20, 0x20, 0x20, 0x20};
}

Bytes get_chassis_status(CommandContext& ctx, ByteView) {
  const bool on = ctx.bmc.power_on(ctx.now);
  return {kCcOk,
          static_cast<std::uint8_t>((on ? 0x01 : 0x00) | 0x20),  // restore policy: previous
          static_cast<std::uint8_t>(ctx.bmc.last_power_by_command() ? 0x10 : 0x00),
          static_cast<std::uint8_t>(0x40 | (ctx.bmc.identify_state(ctx.now) << 4)), 0x00};
}

Bytes chassis_control(CommandContext& ctx, ByteView data) {
  if (data.size() != 1) return {kCcLengthInvalid};
  const std::uint8_t action = data[0] & 0x0F;
  if (action > 5) return {kCcInvalidData};
  if (!ctx.bmc.chassis_control(static_cast<PowerAction>(action), ctx.now))
    return {kCcNotInPresentState};
  return {kCcOk};
}

Bytes chassis_identify(CommandContext& ctx, ByteView data) {
  if (data.size() > 2) return {kCcLengthInvalid};
  const unsigned seconds = data.empty() ? 15 : data[0];
  const bool forever = data.size() == 2 && (data[1] & 0x01);
  ctx.bmc.identify(seconds, forever, ctx.now);
  return {kCcOk};
}

Bytes set_boot_options(CommandContext& ctx, ByteView data) {
  if (data.empty()) return {kCcLengthInvalid};
  const std::size_t selector = data[0] & 0x7F;
  if (selector >= kBootParamLengths.size()) return {kCcParameterNotSupported};
  const ByteView value = data.subspan(1);
  if (value.size() != kBootParamLengths[selector]) return {kCcLengthInvalid};
  if (selector == 0 && (value[0] & 0x03) == 0x03) return {kCcInvalidData};  // reserved state
  ctx.bmc.set_boot_param(selector, value);
  return {kCcOk};
}

Bytes get_boot_options(CommandContext& ctx, ByteView data) {
  if (data.size() != 3) return {kCcLengthInvalid};
  const std::size_t selector = data[0] & 0x7F;
  if (selector >= kBootParamLengths.size()) return {kCcParameterNotSupported};
  Bytes out{kCcOk, 0x01, static_cast<std::uint8_t>(selector)};  // parameter version 1
  bmc::ipmi::put(out, ctx.bmc.boot_param(selector));
  return out;
}

}  // namespace ironhold::sim::ipmi::handlers
