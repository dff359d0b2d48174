#pragma once
// Byte buffers for the IPMI wire formats: IPMI is little-endian throughout (session IDs,
// sequence numbers, lengths), and every read of a packet a BMC sent is bounds-checked.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ironhold::bmc::ipmi {

using Bytes = std::vector<std::uint8_t>;
using ByteView = std::span<const std::uint8_t>;

inline void put_u16(Bytes& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v));
  out.push_back(static_cast<std::uint8_t>(v >> 8));
}

inline void put_u32(Bytes& out, std::uint32_t v) {
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

inline void put(Bytes& out, ByteView bytes) {
  out.insert(out.end(), bytes.begin(), bytes.end());
}

// Reads a packet front to back; every read fails (nullopt) rather than run past the end.
class ByteReader {
 public:
  explicit ByteReader(ByteView data) : data_(data) {}

  std::size_t remaining() const { return data_.size() - at_; }
  std::size_t offset() const { return at_; }

  std::optional<std::uint8_t> u8() {
    if (remaining() < 1) return std::nullopt;
    return data_[at_++];
  }
  std::optional<std::uint16_t> u16() {
    if (remaining() < 2) return std::nullopt;
    const auto v = static_cast<std::uint16_t>(data_[at_] | (data_[at_ + 1] << 8));
    at_ += 2;
    return v;
  }
  std::optional<std::uint32_t> u32() {
    if (remaining() < 4) return std::nullopt;
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | data_[at_ + static_cast<std::size_t>(i)];
    at_ += 4;
    return v;
  }
  std::optional<ByteView> take(std::size_t count) {
    if (remaining() < count) return std::nullopt;
    ByteView out = data_.subspan(at_, count);
    at_ += count;
    return out;
  }

 private:
  ByteView data_;
  std::size_t at_ = 0;
};

// "0a 1b ..." for messages and logs.
std::string to_hex_spaced(ByteView bytes);
// "0a": one byte, for messages.
std::string hex_byte(std::uint8_t byte);

}  // namespace ironhold::bmc::ipmi
