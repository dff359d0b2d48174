#include "sim/ipmi/sel_log.hpp"

#include "inventory/crypto/primitives.hpp"

namespace ironhold::sim::ipmi {

using bmc::ipmi::Bytes;
using nlohmann::json;

void SelLog::seed(std::uint32_t now) {
  // PSU2 lost its input an hour ago and got it back, then the inlet ran warm for a while.
  add({0x08, 15, 0x6F, false, 0x03, 0xFF, 0xFF}, now - 3600);
  add({0x08, 15, 0x6F, true, 0x03, 0xFF, 0xFF}, now - 3540);
  add({0x01, 7, 0x01, false, 0x57, 41, 40}, now - 1800);
}

std::uint16_t SelLog::add(const SelEvent& e, std::uint32_t timestamp) {
  if (records_.size() >= kCapacity) records_.erase(records_.begin());
  const std::uint16_t id = next_id_;
  // IDs 0000h and FFFFh mean "first" and "last" in Get SEL Entry: never hand them out.
  next_id_ = static_cast<std::uint16_t>(next_id_ >= 0xFFFE ? 1 : next_id_ + 1);
  Bytes r;
  bmc::ipmi::put_u16(r, id);
  r.push_back(0x02);  // system event record
  bmc::ipmi::put_u32(r, timestamp);
  bmc::ipmi::put_u16(r, 0x0020);  // generator: the BMC
  r.push_back(0x04);              // event message format IPMI v2.0
  r.push_back(e.sensor_type);
  r.push_back(e.sensor_number);
  r.push_back(static_cast<std::uint8_t>((e.deassertion ? 0x80 : 0x00) | (e.event_type & 0x7F)));
  r.push_back(e.data1);
  r.push_back(e.data2);
  r.push_back(e.data3);
  records_.push_back(std::move(r));
  last_addition_ = timestamp;
  return id;
}

void SelLog::clear(std::uint32_t now) {
  records_.clear();
  last_erase_ = now;
  reserve();  // a clear cancels every reservation
}

std::optional<SelLog::Found> SelLog::find(std::uint16_t id) const {
  if (records_.empty()) return std::nullopt;
  std::size_t at = records_.size();
  if (id == 0x0000) {
    at = 0;
  } else if (id == 0xFFFF) {
    at = records_.size() - 1;
  } else {
    for (std::size_t i = 0; i < records_.size(); ++i)
      if ((records_[i][0] | (records_[i][1] << 8)) == id) at = i;
  }
  if (at == records_.size()) return std::nullopt;
  const std::uint16_t next =
      at + 1 < records_.size()
          ? static_cast<std::uint16_t>(records_[at + 1][0] | (records_[at + 1][1] << 8))
          : 0xFFFF;
  return Found{&records_[at], next};
}

json SelLog::saved() const {
  json entries = json::array();
  for (const Bytes& r : records_) entries.push_back(crypto::to_hex(r));
  return {{"entries", entries},
          {"next_id", next_id_},
          {"last_addition", last_addition_},
          {"last_erase", last_erase_}};
}

void SelLog::restore(const json& saved) {
  if (!saved.is_object()) return;
  records_.clear();
  if (const auto it = saved.find("entries"); it != saved.end() && it->is_array()) {
    for (const json& e : *it) {
      Bytes r;
      if (e.is_string() && crypto::from_hex(e.get<std::string>(), r) && r.size() == 16 &&
          records_.size() < kCapacity)
        records_.push_back(std::move(r));
    }
  }
  const auto number = [&saved](const char* name, std::uint32_t fallback) {
    const auto it = saved.find(name);
    return it != saved.end() && it->is_number_unsigned() ? it->get<std::uint32_t>() : fallback;
  };
  next_id_ = static_cast<std::uint16_t>(number("next_id", 1));
  if (next_id_ == 0 || next_id_ == 0xFFFF) next_id_ = 1;
  last_addition_ = number("last_addition", 0);
  last_erase_ = number("last_erase", 0);
}

json SelLog::describe() const {
  json out = json::array();
  for (const Bytes& r : records_) {
    out.push_back({{"record_id", r[0] | (r[1] << 8)},
                   {"timestamp", r[3] | (r[4] << 8) | (r[5] << 16) | (std::uint32_t{r[6]} << 24)},
                   {"sensor_type", r[10]},
                   {"sensor_number", r[11]},
                   {"event_type", r[12] & 0x7F},
                   {"deassertion", (r[12] & 0x80) != 0},
                   {"event_data", {r[13], r[14], r[15]}}});
  }
  return out;
}

}  // namespace ironhold::sim::ipmi
