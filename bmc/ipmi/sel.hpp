#pragma once
// System Event Log entries (IPMI v2.0 section 32): the 16 bytes of Get SEL Entry decoded to what
// happened, to which sensor, when, and how bad it is. Standard records (type 02h) name a sensor
// and an event offset; OEM records (C0h-FFh) carry vendor data that is kept as hex.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "bmc/ipmi/bytes.hpp"
#include "inventory/model/hardware.hpp"

namespace ironhold::bmc::ipmi {

struct SelEntry {
  std::uint16_t record_id = 0;
  std::uint8_t record_type = 0;
  // Seconds since 1970 as the BMC keeps them; absent for OEM records without a timestamp. Values
  // up to 20000000h count from the BMC's initialization, not from 1970 (pre_init).
  std::optional<std::uint32_t> timestamp;
  bool pre_init = false;
  std::uint16_t generator_id = 0;
  std::uint8_t sensor_type = 0, sensor_number = 0;
  std::uint8_t event_type = 0;  // event/reading type code: 01h threshold, 6Fh sensor-specific
  bool deassertion = false;
  std::uint8_t offset = 0;  // the event offset (low nibble of event data 1)
  Bytes event_data;         // data 1-3, or the OEM bytes
  Severity severity = Severity::info;
  std::string description;  // "Power Supply #5: input lost, deasserted"
};

std::variant<SelEntry, std::string> decode_sel_entry(ByteView record);

// "Temperature", "Power Supply", ... for a sensor type code; "" when unknown.
std::string_view sensor_type_name(std::uint8_t sensor_type);

}  // namespace ironhold::bmc::ipmi
