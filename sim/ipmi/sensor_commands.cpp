// Sensor netFn commands: readings with their threshold state, thresholds, hysteresis.
#include "sim/ipmi/commands.hpp"
#include "sim/ipmi/sensors.hpp"

namespace ironhold::sim::ipmi::handlers {

namespace {

// The sensor a request names, and its position in the table.
const SensorDef* requested(ByteView data, std::size_t& position) {
  if (data.empty()) return nullptr;
  const auto sensors = gpu_server_sensors();
  for (std::size_t i = 0; i < sensors.size(); ++i) {
    if (sensors[i].number == data[0]) {
      position = i;
      return &sensors[i];
    }
  }
  return nullptr;
}

}  // namespace

Bytes get_sensor_reading(CommandContext& ctx, ByteView data) {
  if (data.size() != 1) return {kCcLengthInvalid};
  std::size_t at = 0;
  const SensorDef* s = requested(data, at);
  if (!s) return {kCcNotPresent};
  const std::uint8_t raw = ctx.bmc.reading(at);
  if (s->discrete())
    return {kCcOk, 0x00, 0xC0, raw, 0x80};  // events and scanning on; states 0-7, none of 8-14
  return {kCcOk, raw, 0xC0, static_cast<std::uint8_t>(0xC0 | threshold_status(*s, raw))};
}

Bytes get_sensor_thresholds(CommandContext&, ByteView data) {
  if (data.size() != 1) return {kCcLengthInvalid};
  std::size_t at = 0;
  const SensorDef* s = requested(data, at);
  if (!s) return {kCcNotPresent};
  if (s->discrete()) return {kCcInvalidCommand};
  Bytes out{kCcOk, s->threshold_mask};
  for (std::size_t bit = 0; bit < 6; ++bit)
    out.push_back(((s->threshold_mask >> bit) & 1) ? s->thresholds[bit] : 0x00);
  return out;
}

Bytes get_sensor_hysteresis(CommandContext&, ByteView data) {
  if (data.size() != 2) return {kCcLengthInvalid};
  std::size_t at = 0;
  const SensorDef* s = requested(data, at);
  if (!s) return {kCcNotPresent};
  if (s->discrete()) return {kCcInvalidCommand};
  return {kCcOk, 0x01, 0x01};
}

Bytes get_sensor_event_enable(CommandContext&, ByteView data) {
  if (data.size() != 1) return {kCcLengthInvalid};
  std::size_t at = 0;
  if (!requested(data, at)) return {kCcNotPresent};
  return {kCcOk, 0xC0};  // event messages and scanning enabled
}

}  // namespace ironhold::sim::ipmi::handlers
