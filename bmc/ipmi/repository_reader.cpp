#include "bmc/ipmi/repository_reader.hpp"

#include <algorithm>
#include <set>

namespace ironhold::bmc::ipmi {

namespace asio = boost::asio;

namespace {

constexpr std::uint8_t kReservationCancelled = 0xC5;
constexpr std::uint8_t kFruBusy = 0x81;
constexpr std::size_t kSdrHeader = 5;
constexpr std::size_t kFruHeader = 8;
constexpr int kMaxRetries = 3;

// The completion codes with which BMCs say "ask for fewer bytes".
bool asks_for_less(std::uint8_t code) {
  return code == 0xC7 || code == 0xC8 || code == 0xCA;
}

std::uint8_t smaller(std::uint8_t chunk, std::uint8_t floor) {
  return std::max<std::uint8_t>(floor, static_cast<std::uint8_t>(chunk / 2));
}

DriverError malformed(const std::string& why) {
  return DriverError{DriverErrorCode::bad_response, why};
}

template <class T>
const std::string* error_of(const std::variant<T, std::string>& v) {
  return std::get_if<std::string>(&v);
}

// A new SDR reservation; 0 where the BMC does not do reservations (partial reads then work
// without one on most BMCs, or fail with a named completion code).
asio::awaitable<std::variant<std::uint16_t, DriverError>> reserve(BmcLink& link) {
  const Command ask = reserve_sdr_repository();
  const CallResult r = co_await link.call(ask);
  if (r.error) co_return *r.error;
  if (r.completion_code != 0) co_return std::uint16_t{0};
  auto id = parse_reservation(r.data);
  if (const auto* why = error_of(id)) co_return malformed(*why);
  co_return std::get<std::uint16_t>(id);
}

}  // namespace

DriverError call_error(const CallResult& result, const std::string& what) {
  if (result.error) return *result.error;
  return DriverError{
      result.completion_code == 0xC1 ? DriverErrorCode::unsupported : DriverErrorCode::rejected,
      what + ": " + completion_code_text(result.completion_code) + " (" +
          hex_byte(result.completion_code) + ")"};
}

asio::awaitable<std::variant<SdrRepository, DriverError>> read_sdr_repository(BmcLink& link,
                                                                              ReadLimits limits) {
  SdrRepository repository;
  auto reserved = co_await reserve(link);
  if (auto* e = std::get_if<DriverError>(&reserved)) co_return *e;
  std::uint16_t reservation = std::get<std::uint16_t>(reserved);
  std::uint8_t chunk = limits.first_chunk;
  std::set<std::uint16_t> seen;
  std::uint16_t id = kFirstRecord;
  while (id != kLastRecord && seen.size() < limits.max_records) {
    if (!seen.insert(id).second) break;  // the links go round: stop rather than loop
    Bytes record;
    std::size_t total = kSdrHeader;
    std::uint16_t next = kLastRecord;
    int retries = 0;
    while (record.size() < total) {
      const auto offset = static_cast<std::uint8_t>(record.size());
      const auto count = static_cast<std::uint8_t>(
          std::min<std::size_t>(record.empty() ? kSdrHeader : chunk, total - record.size()));
      const Command ask = get_sdr(reservation, id, offset, count);
      const CallResult r = co_await link.call(ask);
      if (!r.error && r.completion_code == kReservationCancelled && ++retries <= kMaxRetries) {
        auto again = co_await reserve(link);
        if (auto* e = std::get_if<DriverError>(&again)) co_return *e;
        reservation = std::get<std::uint16_t>(again);
        continue;
      }
      if (!r.error && asks_for_less(r.completion_code) && chunk > limits.min_chunk &&
          !record.empty()) {
        chunk = smaller(chunk, limits.min_chunk);
        continue;
      }
      if (!r.ok()) co_return call_error(r, "Get SDR " + std::to_string(id));
      auto part = parse_sdr_chunk(r.data);
      if (const auto* why = error_of(part)) co_return malformed(*why);
      const auto& got = std::get<SdrChunk>(part);
      if (got.bytes.empty() || got.bytes.size() > count)
        co_return malformed("Get SDR " + std::to_string(id) + " returned " +
                            std::to_string(got.bytes.size()) + " bytes for " +
                            std::to_string(count) + " asked");
      put(record, got.bytes);
      next = got.next_record_id;
      if (record.size() >= kSdrHeader) total = std::min<std::size_t>(kSdrHeader + record[4], 255);
    }
    auto decoded = decode_sdr(record);
    if (auto* r = std::get_if<SdrRecord>(&decoded))
      repository.records.push_back(std::move(*r));
    else
      ++repository.skipped;
    id = next;
  }
  co_return repository;
}

asio::awaitable<std::variant<SelInfo, DriverError>> read_sel_info(BmcLink& link) {
  const Command ask = get_sel_info();
  const CallResult r = co_await link.call(ask);
  if (!r.ok()) co_return call_error(r, "Get SEL Info");
  auto info = parse_sel_info(r.data);
  if (const auto* why = error_of(info)) co_return malformed(*why);
  co_return std::get<SelInfo>(info);
}

asio::awaitable<std::variant<SelContents, DriverError>> read_sel(BmcLink& link, ReadLimits limits) {
  SelContents sel;
  auto info = co_await read_sel_info(link);
  if (auto* e = std::get_if<DriverError>(&info)) co_return *e;
  sel.info = std::get<SelInfo>(info);
  if (sel.info.entries == 0) co_return sel;
  std::set<std::uint16_t> seen;
  std::uint16_t id = kFirstRecord;
  while (id != kLastRecord && seen.size() < limits.max_records) {
    if (!seen.insert(id).second) break;
    const Command ask = get_sel_entry(id);
    const CallResult r = co_await link.call(ask);
    // Emptied between Get SEL Info and here: nothing to read.
    if (!r.error && r.completion_code == 0xCB && id == kFirstRecord) break;
    if (!r.ok()) co_return call_error(r, "Get SEL Entry " + std::to_string(id));
    auto part = parse_sel_chunk(r.data);
    if (const auto* why = error_of(part)) co_return malformed(*why);
    const auto& got = std::get<SelChunk>(part);
    auto entry = decode_sel_entry(got.entry);
    if (auto* e = std::get_if<SelEntry>(&entry)) sel.entries.push_back(std::move(*e));
    id = got.next_record_id;
  }
  co_return sel;
}

namespace {

// Reads FRU bytes until `upto` are in, in chunks that shrink when the BMC asks for less.
asio::awaitable<std::optional<DriverError>> fill(BmcLink& link, std::uint8_t fru_id,
                                                 const FruAreaInfo& info, Bytes& bytes,
                                                 std::size_t upto, std::uint8_t& chunk,
                                                 const ReadLimits& limits,
                                                 const std::string& what) {
  int busy = 0;
  while (bytes.size() < upto) {
    std::size_t count = std::min<std::size_t>(chunk, upto - bytes.size());
    std::size_t offset = bytes.size();
    if (info.by_words) {
      offset /= 2;
      count = std::max<std::size_t>(1, count / 2);
    }
    const Command ask =
        read_fru_data(fru_id, static_cast<std::uint16_t>(offset), static_cast<std::uint8_t>(count));
    const CallResult r = co_await link.call(ask);
    if (!r.error && asks_for_less(r.completion_code) && chunk > limits.min_chunk) {
      chunk = smaller(chunk, limits.min_chunk);
      continue;
    }
    if (!r.error && r.completion_code == kFruBusy && ++busy <= kMaxRetries) continue;
    if (!r.ok()) co_return call_error(r, "Read FRU Data, " + what);
    auto data = parse_fru_data(r.data);
    if (const auto* why = error_of(data)) co_return malformed(*why);
    const Bytes& got = std::get<Bytes>(data);
    if (got.empty()) co_return malformed("Read FRU Data, " + what + ": no bytes returned");
    put(bytes, got);
  }
  co_return std::nullopt;
}

}  // namespace

asio::awaitable<std::variant<FruData, DriverError>> read_fru(BmcLink& link, std::uint8_t fru_id,
                                                             ReadLimits limits) {
  const std::string what = "FRU " + std::to_string(fru_id);
  const Command ask_info = get_fru_area_info(fru_id);
  const CallResult info_result = co_await link.call(ask_info);
  if (!info_result.ok()) co_return call_error(info_result, "Get FRU Inventory Area Info, " + what);
  auto parsed_info = parse_fru_area_info(info_result.data);
  if (const auto* why = error_of(parsed_info)) co_return malformed(*why);
  const FruAreaInfo info = std::get<FruAreaInfo>(parsed_info);
  const std::size_t size = std::min<std::size_t>(info.size, limits.max_fru_bytes);
  if (size < kFruHeader) co_return malformed(what + " is " + std::to_string(info.size) + " bytes");

  // The common header gives the chassis, board and product areas' offsets (in 8-byte units);
  // each area's second byte is its length. Only what covers them is read, not the whole device.
  Bytes bytes;
  std::uint8_t chunk = limits.first_chunk;
  auto failed = co_await fill(link, fru_id, info, bytes, kFruHeader, chunk, limits, what);
  if (failed) co_return *failed;
  std::size_t end = kFruHeader;
  for (std::size_t field = 2; field <= 4; ++field) {
    const std::size_t start = static_cast<std::size_t>(bytes[field]) * 8;
    if (start == 0 || start + 2 > size) continue;
    failed = co_await fill(link, fru_id, info, bytes, start + 2, chunk, limits, what);
    if (failed) co_return *failed;
    end = std::max(end, start + static_cast<std::size_t>(bytes[start + 1]) * 8);
  }
  end = std::min(end, size);
  failed = co_await fill(link, fru_id, info, bytes, end, chunk, limits, what);
  if (failed) co_return *failed;
  auto fru = parse_fru(ByteView(bytes).first(std::min(bytes.size(), end)));
  if (const auto* why = error_of(fru)) co_return malformed(what + ": " + *why);
  co_return std::get<FruData>(std::move(fru));
}

}  // namespace ironhold::bmc::ipmi
