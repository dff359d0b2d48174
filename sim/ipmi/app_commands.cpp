// App netFn commands: device identity, BMC reset, and the session-less discovery commands a
// console sends before it opens a session.
#include "sim/ipmi/commands.hpp"

namespace ironhold::sim::ipmi::handlers {

namespace {
constexpr std::uint8_t kChannel = 0x01;  // the LAN channel
}  // namespace

Bytes get_device_id(CommandContext&, ByteView) {
  return {kCcOk,
          0x20,               // device ID
          0x81,               // provides device SDRs, revision 1
          0x02,               // firmware 2.15 (major; bit 7 clear: normal operation)
          0x15,               // minor, BCD
          0x02,               // IPMI 2.0
          0x8F,               // chassis, FRU inventory, SEL, SDR repository, sensor device
          0xA5,  0xF2, 0x00,  // manufacturer (IANA, little-endian): 62117
          0x05,  0x1A,        // product 1A05h
          0x00,  0x00, 0x00, 0x00};
}

Bytes cold_reset(CommandContext& ctx, ByteView) {
  ++ctx.bmc.counters.cold_resets;
  ctx.cold_reset = true;
  return {kCcOk};
}

Bytes get_self_test_results(CommandContext&, ByteView) {
  return {kCcOk, 0x55, 0x00};  // no error
}

Bytes get_system_guid(CommandContext& ctx, ByteView) {
  // reserve + push_back rather than an initializer list: GCC 12 warns falsely (-Warray-bounds)
  // about an insert into a vector built from one.
  Bytes out;
  out.reserve(17);
  out.push_back(kCcOk);
  bmc::ipmi::put(out, ctx.bmc.guid());
  return out;
}

Bytes get_channel_auth_capabilities(CommandContext&, ByteView data) {
  if (data.size() < 2) return {kCcLengthInvalid};
  const bool v2 = (data[0] & 0x80) != 0;
  return {kCcOk, kChannel,
          // IPMI 2.0 extended data; no IPMI 1.5 authentication types: v1.5 sessions are not
          // offered, only RMCP+.
          static_cast<std::uint8_t>(v2 ? 0x80 : 0x00),
          0x04,  // non-null user names only; per-message and user-level authentication on
          static_cast<std::uint8_t>(v2 ? 0x02 : 0x00),  // IPMI 2.0 connections
          0x00, 0x00, 0x00,                             // OEM ID
          0x00};
}

Bytes get_channel_cipher_suites(CommandContext&, ByteView data) {
  if (data.size() < 3) return {kCcLengthInvalid};
  if ((data[1] & 0x3F) != 0x00) return {kCcInvalidData};  // IPMI payloads only
  const bool by_suite = (data[2] & 0x80) != 0;
  const std::size_t index = data[2] & 0x3F;
  // Suites 3 (HMAC-SHA1, HMAC-SHA1-96, AES-CBC-128) and 17 (HMAC-SHA256, HMAC-SHA256-128, AES),
  // in 16-byte pieces.
  static const Bytes by_suite_records{0xC0, 0x03, 0x01, 0x41, 0x81, 0xC0, 0x11, 0x03, 0x44, 0x81};
  static const Bytes algorithms{0x01, 0x03, 0x41, 0x44, 0x81};
  const Bytes& records = by_suite ? by_suite_records : algorithms;
  Bytes out{kCcOk, kChannel};
  const std::size_t from = index * 16;
  if (from < records.size())
    out.insert(out.end(), records.begin() + static_cast<std::ptrdiff_t>(from),
               records.begin() + static_cast<std::ptrdiff_t>(std::min(records.size(), from + 16)));
  return out;
}

}  // namespace ironhold::sim::ipmi::handlers
