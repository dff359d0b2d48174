#include "bmc/ipmi/sel.hpp"

namespace ironhold::bmc::ipmi {

namespace {

constexpr std::uint32_t kPreInitLimit = 0x20000000;

struct Meaning {
  std::string_view text;
  Severity severity;
};

// Threshold events (event type 01h), by offset: the threshold crossed and the direction.
Meaning threshold_meaning(std::uint8_t offset) {
  static constexpr Meaning kTable[] = {
      {"lower non-critical going low", Severity::warning},
      {"lower non-critical going high", Severity::warning},
      {"lower critical going low", Severity::critical},
      {"lower critical going high", Severity::critical},
      {"lower non-recoverable going low", Severity::critical},
      {"lower non-recoverable going high", Severity::critical},
      {"upper non-critical going low", Severity::warning},
      {"upper non-critical going high", Severity::warning},
      {"upper critical going low", Severity::critical},
      {"upper critical going high", Severity::critical},
      {"upper non-recoverable going low", Severity::critical},
      {"upper non-recoverable going high", Severity::critical},
  };
  if (offset < std::size(kTable)) return kTable[offset];
  return {"threshold event", Severity::warning};
}

// Sensor-specific events (event type 6Fh) of the sensor types operators meet most.
std::optional<Meaning> sensor_specific_meaning(std::uint8_t sensor_type, std::uint8_t offset) {
  struct Row {
    std::uint8_t type, offset;
    Meaning meaning;
  };
  static constexpr Row kRows[] = {
      {0x05, 0x00, {"general chassis intrusion", Severity::warning}},
      {0x07, 0x00, {"internal error (IERR)", Severity::critical}},
      {0x07, 0x01, {"thermal trip", Severity::critical}},
      {0x07, 0x07, {"presence detected", Severity::info}},
      {0x07, 0x0A, {"throttled", Severity::warning}},
      {0x08, 0x00, {"presence detected", Severity::info}},
      {0x08, 0x01, {"failure detected", Severity::critical}},
      {0x08, 0x02, {"predictive failure", Severity::warning}},
      {0x08, 0x03, {"input lost", Severity::critical}},
      {0x08, 0x04, {"input lost or out of range", Severity::critical}},
      {0x08, 0x05, {"input out of range", Severity::warning}},
      {0x08, 0x06, {"configuration error", Severity::warning}},
      {0x0C, 0x00, {"correctable ECC", Severity::warning}},
      {0x0C, 0x01, {"uncorrectable ECC", Severity::critical}},
      {0x0C, 0x05, {"correctable ECC logging limit reached", Severity::warning}},
      {0x0D, 0x01, {"drive fault", Severity::critical}},
      {0x0D, 0x02, {"predictive failure", Severity::warning}},
      {0x10, 0x02, {"log area reset/cleared", Severity::info}},
      {0x10, 0x04, {"SEL full", Severity::warning}},
      {0x12, 0x00, {"system reconfigured", Severity::info}},
      {0x12, 0x01, {"OEM system boot event", Severity::info}},
      {0x13, 0x00, {"front panel NMI", Severity::critical}},
      {0x13, 0x04, {"PCI PERR", Severity::critical}},
      {0x13, 0x05, {"PCI SERR", Severity::critical}},
      {0x19, 0x00, {"chipset soft power control failure", Severity::critical}},
      {0x1D, 0x01, {"system restart", Severity::info}},
      {0x20, 0x00, {"critical stop during OS load", Severity::critical}},
      {0x20, 0x01, {"run-time critical stop", Severity::critical}},
      {0x23, 0x00, {"timer expired", Severity::warning}},
      {0x23, 0x01, {"hard reset", Severity::warning}},
      {0x23, 0x02, {"power down", Severity::warning}},
      {0x23, 0x03, {"power cycle", Severity::warning}},
      {0x23, 0x08, {"timer interrupt", Severity::info}},
  };
  for (const Row& row : kRows)
    if (row.type == sensor_type && row.offset == offset) return row.meaning;
  return std::nullopt;
}

}  // namespace

std::string_view sensor_type_name(std::uint8_t type) {
  switch (type) {
    case 0x01:
      return "Temperature";
    case 0x02:
      return "Voltage";
    case 0x03:
      return "Current";
    case 0x04:
      return "Fan";
    case 0x05:
      return "Physical Security";
    case 0x07:
      return "Processor";
    case 0x08:
      return "Power Supply";
    case 0x09:
      return "Power Unit";
    case 0x0C:
      return "Memory";
    case 0x0D:
      return "Drive Slot";
    case 0x0F:
      return "System Firmware Progress";
    case 0x10:
      return "Event Logging Disabled";
    case 0x12:
      return "System Event";
    case 0x13:
      return "Critical Interrupt";
    case 0x14:
      return "Button";
    case 0x19:
      return "Chip Set";
    case 0x1D:
      return "System Boot Initiated";
    case 0x20:
      return "OS Stop";
    case 0x21:
      return "Slot/Connector";
    case 0x23:
      return "Watchdog";
    default:
      return "";
  }
}

std::variant<SelEntry, std::string> decode_sel_entry(ByteView record) {
  if (record.size() < 16)
    return "SEL entry of " + std::to_string(record.size()) + " bytes instead of 16";
  SelEntry e;
  ByteReader in(record);
  e.record_id = *in.u16();
  e.record_type = *in.u8();
  if (e.record_type >= 0xE0) {  // OEM, no timestamp
    const ByteView data = *in.take(13);
    e.event_data.assign(data.begin(), data.end());
    e.description = "OEM record " + hex_byte(e.record_type) + ": " + to_hex_spaced(data);
    return e;
  }
  e.timestamp = *in.u32();
  e.pre_init = *e.timestamp <= kPreInitLimit;
  if (e.record_type >= 0xC0) {  // OEM, timestamped: manufacturer ID and six bytes
    const ByteView data = *in.take(9);
    e.event_data.assign(data.begin(), data.end());
    e.description = "OEM record " + hex_byte(e.record_type) + ": " + to_hex_spaced(data);
    return e;
  }
  e.generator_id = *in.u16();
  in.u8();  // event message format revision
  e.sensor_type = *in.u8();
  e.sensor_number = *in.u8();
  const std::uint8_t dir_type = *in.u8();
  e.deassertion = (dir_type & 0x80) != 0;
  e.event_type = dir_type & 0x7F;
  const ByteView data = *in.take(3);
  e.event_data.assign(data.begin(), data.end());
  e.offset = data[0] & 0x0F;

  std::string name(sensor_type_name(e.sensor_type));
  if (name.empty()) name = "Sensor type " + hex_byte(e.sensor_type);
  Meaning meaning{"", Severity::info};
  std::string what;
  if (e.event_type == 0x01) {
    meaning = threshold_meaning(e.offset);
    what = std::string(meaning.text);
    // Data 2 and 3 hold the reading and the threshold when bits 7:6 and 5:4 of data 1 say so.
    if ((data[0] & 0xC0) == 0x40 && (data[0] & 0x30) == 0x10)
      what += " (reading " + hex_byte(data[1]) + "h, threshold " + hex_byte(data[2]) + "h)";
  } else if (e.event_type == 0x6F) {
    if (auto known = sensor_specific_meaning(e.sensor_type, e.offset)) {
      meaning = *known;
      what = std::string(known->text);
    } else {
      what = "sensor-specific event " + std::to_string(e.offset);
    }
  } else {
    what = "event type " + hex_byte(e.event_type) + " state " + std::to_string(e.offset);
  }
  e.severity = e.deassertion ? Severity::info : meaning.severity;
  e.description = name + " #" + std::to_string(e.sensor_number) + ": " + what +
                  (e.deassertion ? ", deasserted" : ", asserted");
  return e;
}

}  // namespace ironhold::bmc::ipmi
