#pragma once
// A simulated BMC's System Event Log (IPMI v2.0 section 31): standard 16-byte records (type 02h)
// with increasing record IDs, a reservation for partial reads and clears, and the timestamps Get
// SEL Info reports.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "bmc/ipmi/bytes.hpp"

namespace ironhold::sim::ipmi {

struct SelEvent {
  std::uint8_t sensor_type = 0, sensor_number = 0;
  std::uint8_t event_type = 0x6F;  // event/reading type: 01h threshold, 6Fh sensor-specific
  bool deassertion = false;
  std::uint8_t data1 = 0, data2 = 0xFF, data3 = 0xFF;
};

class SelLog {
 public:
  static constexpr std::size_t kCapacity = 1024;  // entries; the oldest go when it is full

  // A few entries from the past, as a server that has been running shows.
  void seed(std::uint32_t now);
  // Returns the new record's ID.
  std::uint16_t add(const SelEvent& event, std::uint32_t timestamp);
  void clear(std::uint32_t now);

  std::size_t size() const { return records_.size(); }
  // Record `id` (0: the first, FFFFh: the last) and the ID after it (FFFFh at the end).
  struct Found {
    const bmc::ipmi::Bytes* record;
    std::uint16_t next;
  };
  std::optional<Found> find(std::uint16_t id) const;
  std::uint32_t last_addition() const { return last_addition_; }
  std::uint32_t last_erase() const { return last_erase_; }
  std::uint16_t reserve() {
    return reservation_ = static_cast<std::uint16_t>(reservation_ % 0xFFFF + 1);
  }
  std::uint16_t reservation() const { return reservation_; }

  // {"entries": ["hex..."], "next_id", "last_addition", "last_erase"} and back; restore ignores
  // records that are not 16 bytes.
  nlohmann::json saved() const;
  void restore(const nlohmann::json& saved);
  // [{"record_id", "timestamp", "sensor_type", "sensor_number", "event_type", "deassertion",
  // "event_data"}]
  nlohmann::json describe() const;

 private:
  std::vector<bmc::ipmi::Bytes> records_;
  std::uint16_t next_id_ = 1;
  std::uint16_t reservation_ = 0;
  std::uint32_t last_addition_ = 0, last_erase_ = 0;
};

}  // namespace ironhold::sim::ipmi
