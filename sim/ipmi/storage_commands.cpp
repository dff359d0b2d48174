// Storage netFn commands: the SDR repository, the SEL and FRU device 0, with the reservations and
// partial reads real clients use.
#include "sim/ipmi/commands.hpp"
#include "sim/ipmi/sensors.hpp"

namespace ironhold::sim::ipmi::handlers {

namespace {

// The SDR repository never changes while a simulator runs: one fixed "last added" time keeps
// FreeIPMI's SDR cache valid across runs.
constexpr std::uint32_t kSdrAdded = 1'735'689'600;  // 2025-01-01T00:00:00Z

std::uint16_t u16_at(ByteView data, std::size_t at) {
  return static_cast<std::uint16_t>(data[at] | (data[at + 1] << 8));
}

// The bytes of `record` from `offset`, at most `count` of them (FFh: all), after the next ID.
Bytes partial(const Bytes& record, std::uint16_t next, std::size_t offset, std::size_t count) {
  if (offset > record.size()) return {kCcOutOfRange};
  const std::size_t n =
      count == 0xFF ? record.size() - offset : std::min(count, record.size() - offset);
  Bytes out{kCcOk};
  bmc::ipmi::put_u16(out, next);
  out.insert(out.end(), record.begin() + static_cast<std::ptrdiff_t>(offset),
             record.begin() + static_cast<std::ptrdiff_t>(offset + n));
  return out;
}

}  // namespace

Bytes get_sdr_repository_info(CommandContext&, ByteView) {
  Bytes out{kCcOk, 0x51};
  bmc::ipmi::put_u16(out, static_cast<std::uint16_t>(sdr_repository().size()));
  bmc::ipmi::put_u16(out, 0x0000);  // no free space: the repository is read-only
  bmc::ipmi::put_u32(out, kSdrAdded);
  bmc::ipmi::put_u32(out, 0);
  out.push_back(0x22);  // non-modal updates; Reserve SDR Repository supported
  return out;
}

Bytes reserve_sdr_repository(CommandContext& ctx, ByteView) {
  Bytes out{kCcOk};
  bmc::ipmi::put_u16(out, ctx.bmc.reserve_sdr());
  return out;
}

Bytes get_sdr(CommandContext& ctx, ByteView data) {
  if (data.size() != 6) return {kCcLengthInvalid};
  const std::uint16_t reservation = u16_at(data, 0);
  std::uint16_t id = u16_at(data, 2);
  const std::size_t offset = data[4], count = data[5];
  if (offset != 0 && reservation != ctx.bmc.sdr_reservation()) return {kCcReservationCancelled};
  const auto& records = sdr_repository();
  if (id == 0x0000) id = 1;
  if (id == 0xFFFF) id = static_cast<std::uint16_t>(records.size());
  if (id == 0 || id > records.size()) return {kCcNotPresent};
  const std::uint16_t next = id == records.size() ? 0xFFFF : static_cast<std::uint16_t>(id + 1);
  return partial(records[id - 1], next, offset, count);
}

Bytes get_sel_info(CommandContext& ctx, ByteView) {
  const SelLog& sel = ctx.bmc.sel();
  Bytes out{kCcOk, 0x51};
  bmc::ipmi::put_u16(out, static_cast<std::uint16_t>(sel.size()));
  bmc::ipmi::put_u16(out, static_cast<std::uint16_t>((SelLog::kCapacity - sel.size()) * 16));
  bmc::ipmi::put_u32(out, sel.last_addition());
  bmc::ipmi::put_u32(out, sel.last_erase());
  out.push_back(0x02);  // Reserve SEL supported
  return out;
}

Bytes reserve_sel(CommandContext& ctx, ByteView) {
  Bytes out{kCcOk};
  bmc::ipmi::put_u16(out, ctx.bmc.sel().reserve());
  return out;
}

Bytes get_sel_entry(CommandContext& ctx, ByteView data) {
  if (data.size() != 6) return {kCcLengthInvalid};
  const SelLog& sel = ctx.bmc.sel();
  if (data[4] != 0 && u16_at(data, 0) != sel.reservation()) return {kCcReservationCancelled};
  const auto found = sel.find(u16_at(data, 2));
  if (!found) return {kCcNotPresent};
  return partial(*found->record, found->next, data[4], data[5]);
}

Bytes clear_sel(CommandContext& ctx, ByteView data) {
  if (data.size() != 6) return {kCcLengthInvalid};
  if (data[2] != 'C' || data[3] != 'L' || data[4] != 'R') return {kCcInvalidData};
  SelLog& sel = ctx.bmc.sel();
  if (u16_at(data, 0) != sel.reservation()) return {kCcReservationCancelled};
  if (data[5] == 0xAA) {
    sel.clear(unix_now());
    ctx.bmc.dirty = true;
  } else if (data[5] != 0x00) {
    return {kCcInvalidData};
  }
  return {kCcOk, 0x01};  // erasure completed
}

Bytes get_sel_time(CommandContext&, ByteView) {
  Bytes out{kCcOk};
  bmc::ipmi::put_u32(out, unix_now());
  return out;
}

Bytes get_fru_inventory_area_info(CommandContext& ctx, ByteView data) {
  if (data.size() != 1) return {kCcLengthInvalid};
  if (data[0] != 0) return {kCcNotPresent};
  Bytes out{kCcOk};
  bmc::ipmi::put_u16(out, static_cast<std::uint16_t>(ctx.bmc.fru().size()));
  out.push_back(0x00);  // byte access
  return out;
}

Bytes read_fru_data(CommandContext& ctx, ByteView data) {
  if (data.size() != 4) return {kCcLengthInvalid};
  if (data[0] != 0) return {kCcNotPresent};
  const Bytes& fru = ctx.bmc.fru();
  const std::size_t offset = u16_at(data, 1), count = data[3];
  if (count > kMaxFruRead) return {kCcCannotReturnBytes};
  if (offset >= fru.size()) return {kCcOutOfRange};
  const std::size_t n = std::min(count, fru.size() - offset);
  Bytes out{kCcOk, static_cast<std::uint8_t>(n)};
  out.insert(out.end(), fru.begin() + static_cast<std::ptrdiff_t>(offset),
             fru.begin() + static_cast<std::ptrdiff_t>(offset + n));
  return out;
}

}  // namespace ironhold::sim::ipmi::handlers
