#include "bmc/ipmi/commands.hpp"

#include <algorithm>

namespace ironhold::bmc::ipmi {

std::string response_too_short(const char* what, std::size_t got, std::size_t need) {
  return std::string(what) + " response has " + std::to_string(got) + " data bytes, needs " +
         std::to_string(need);
}

std::string completion_code_text(std::uint8_t code) {
  switch (code) {
    case 0x00:
      return "success";
    case 0xC0:
      return "node busy";
    case 0xC1:
      return "invalid command";
    case 0xC2:
      return "command invalid for this LUN";
    case 0xC3:
      return "timeout while processing the command";
    case 0xC4:
      return "out of space";
    case 0xC5:
      return "reservation cancelled or invalid";
    case 0xC6:
      return "request data truncated";
    case 0xC7:
      return "request data length invalid";
    case 0xC8:
      return "request data field length limit exceeded";
    case 0xC9:
      return "parameter out of range";
    case 0xCA:
      return "cannot return the number of requested data bytes";
    case 0xCB:
      return "requested sensor, data or record not present";
    case 0xCC:
      return "invalid data field in request";
    case 0xCD:
      return "command illegal for this sensor or record type";
    case 0xCE:
      return "command response could not be provided";
    case 0xCF:
      return "duplicated request";
    case 0xD0:
      return "SDR repository in update mode";
    case 0xD1:
      return "device in firmware update mode";
    case 0xD2:
      return "BMC initialization in progress";
    case 0xD3:
      return "destination unavailable";
    case 0xD4:
      return "insufficient privilege level";
    case 0xD5:
      return "not supported in the present state";
    case 0xD6:
      return "sub-function disabled or unavailable";
    case 0xFF:
      return "unspecified error";
    default:
      return "completion code " + hex_byte(code) + "h";
  }
}

Command get_device_id() {
  return {kNetFnApp, 0x01, {}};
}

std::variant<DeviceId, std::string> parse_device_id(ByteView d) {
  if (d.size() < 11) return response_too_short("Get Device ID", d.size(), 11);
  DeviceId id;
  id.device_id = d[0];
  id.device_revision = d[1] & 0x0F;
  id.provides_sdrs = (d[1] & 0x80) != 0;
  id.firmware = std::to_string(d[2] & 0x7F) + "." + hex_byte(d[3]);  // the minor revision is BCD
  id.ipmi_version = std::to_string(d[4] & 0x0F) + "." + std::to_string(d[4] >> 4);
  id.manufacturer_id = static_cast<std::uint32_t>(d[6] | (d[7] << 8) | ((d[8] & 0x0F) << 16));
  id.product_id = static_cast<std::uint16_t>(d[9] | (d[10] << 8));
  return id;
}

Command get_chassis_status() {
  return {kNetFnChassis, 0x01, {}};
}

std::variant<ChassisStatus, std::string> parse_chassis_status(ByteView d) {
  if (d.size() < 3) return response_too_short("Get Chassis Status", d.size(), 3);
  ChassisStatus s;
  s.power_on = (d[0] & 0x01) != 0;
  s.power_overload = (d[0] & 0x02) != 0;
  s.interlock = (d[0] & 0x04) != 0;
  s.power_fault = (d[0] & 0x08) != 0;
  s.control_fault = (d[0] & 0x10) != 0;
  s.intrusion = (d[2] & 0x01) != 0;
  s.drive_fault = (d[2] & 0x04) != 0;
  s.cooling_fault = (d[2] & 0x08) != 0;
  if (d[2] & 0x40) s.identify_on = ((d[2] >> 4) & 0x03) != 0;
  return s;
}

Command chassis_control(ChassisControl action) {
  return {kNetFnChassis, 0x02, {static_cast<std::uint8_t>(action)}};
}

Command chassis_identify(std::uint8_t seconds) {
  return {kNetFnChassis, 0x04, {seconds}};
}

Command get_user_access(std::uint8_t user_id, std::uint8_t channel) {
  return {kNetFnApp,
          0x44,
          {static_cast<std::uint8_t>(channel & 0x0F), static_cast<std::uint8_t>(user_id & 0x3F)}};
}

std::variant<std::uint8_t, std::string> parse_max_user_ids(ByteView data) {
  if (data.size() < 4) return response_too_short("Get User Access", data.size(), 4);
  return static_cast<std::uint8_t>(data[0] & 0x3F);
}

Command get_user_name(std::uint8_t user_id) {
  return {kNetFnApp, 0x46, {static_cast<std::uint8_t>(user_id & 0x3F)}};
}

std::variant<UserName, std::string> parse_user_name(ByteView data) {
  if (data.size() < 16) return response_too_short("Get User Name", data.size(), 16);
  UserName out{std::string(data.begin(), data.begin() + 16)};
  out.name.erase(std::find(out.name.begin(), out.name.end(), '\0'), out.name.end());
  return out;
}

Command set_user_password(std::uint8_t user_id, const std::string& password) {
  const bool long_form = password.size() > 16;
  Command c{kNetFnApp, 0x47, {}};
  c.data.push_back(static_cast<std::uint8_t>((user_id & 0x3F) | (long_form ? 0x80 : 0x00)));
  c.data.push_back(0x02);  // operation 10b: set password
  Bytes padded(long_form ? 20 : 16, 0x00);
  std::copy(password.begin(), password.end(), padded.begin());
  c.data.insert(c.data.end(), padded.begin(), padded.end());
  return c;
}

Command bmc_cold_reset() {
  return {kNetFnApp, 0x02, {}};
}

namespace {

std::uint8_t selector_of(BootTarget target) {
  return static_cast<std::uint8_t>(static_cast<std::uint8_t>(target) << 2);
}

}  // namespace

Command set_boot_flags(const BootFlags& f) {
  const auto b1 = static_cast<std::uint8_t>((f.valid ? 0x80 : 0) | (f.persistent ? 0x40 : 0) |
                                            (f.efi ? 0x20 : 0));
  return {kNetFnChassis, 0x08, {0x05, b1, selector_of(f.target), 0x00, 0x00, 0x00}};
}

Command get_boot_flags() {
  return {kNetFnChassis, 0x09, {0x05, 0x00, 0x00}};
}

std::variant<BootFlags, std::string> parse_boot_flags(ByteView d) {
  // Parameter version, parameter selector (bit 7: invalid/locked), then the five flag bytes.
  if (d.size() < 4) return response_too_short("Get System Boot Options", d.size(), 4);
  if ((d[1] & 0x7F) != 0x05)
    return "Get System Boot Options answered parameter " + std::to_string(d[1] & 0x7F) +
           " instead of 5";
  BootFlags f;
  f.valid = (d[2] & 0x80) != 0;
  f.persistent = (d[2] & 0x40) != 0;
  f.efi = (d[2] & 0x20) != 0;
  const std::uint8_t selector = (d[3] >> 2) & 0x0F;
  switch (selector) {
    case 0:
    case 1:
    case 2:
    case 5:
    case 6:
      f.target = static_cast<BootTarget>(selector);
      break;
    default:
      return "boot device selector " + std::to_string(selector) + " is not one Ironhold sets";
  }
  return f;
}

Command set_session_privilege(std::uint8_t level) {
  return {kNetFnApp, 0x3B, {level}};
}

Command close_session(std::uint32_t bmc_session_id) {
  Command c{kNetFnApp, 0x3C, {}};
  put_u32(c.data, bmc_session_id);
  return c;
}

Command get_channel_cipher_suites(std::uint8_t list_index) {
  // Current channel; payload type IPMI; bit 7: list by cipher suite rather than by algorithm.
  return {kNetFnApp, 0x54, {0x0E, 0x00, static_cast<std::uint8_t>(0x80 | (list_index & 0x3F))}};
}

std::variant<Bytes, std::string> parse_cipher_suite_page(ByteView data) {
  if (data.empty()) return response_too_short("Get Channel Cipher Suites", 0, 1);
  if (data.size() > 17)
    return std::string("Get Channel Cipher Suites response has ") + std::to_string(data.size()) +
           " data bytes, at most 17 are allowed";
  return Bytes(data.begin() + 1, data.end());
}

std::vector<std::uint8_t> cipher_suite_ids(ByteView records) {
  std::vector<std::uint8_t> ids;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (records[i] == 0xC0 && i + 1 < records.size()) {
      ids.push_back(records[i + 1]);
      ++i;
    } else if (records[i] == 0xC1) {
      i += 4;  // an OEM suite: id and IANA number, never chosen
    }
  }
  return ids;
}

}  // namespace ironhold::bmc::ipmi
