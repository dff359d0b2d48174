#pragma once
// The IPMI commands the driver sends (IPMI v2.0 sections 20, 22, 28): each as a request
// (netFn, command, data) and a decoder for its response data (after the completion code).
// Decoders return an error string for a response too short or malformed to use.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bmc/ipmi/bytes.hpp"

namespace ironhold::bmc::ipmi {

struct Command {
  std::uint8_t netfn = 0;
  std::uint8_t command = 0;
  Bytes data;
};

inline constexpr std::uint8_t kNetFnChassis = 0x00;
inline constexpr std::uint8_t kNetFnSensor = 0x04;
inline constexpr std::uint8_t kNetFnApp = 0x06;
inline constexpr std::uint8_t kNetFnStorage = 0x0A;

// A completion code by name ("node busy", "insufficient privilege level", ...).
std::string completion_code_text(std::uint8_t code);

// "<what> response has <got> data bytes, needs <need>": the error every parser here gives for a
// response cut short.
std::string response_too_short(const char* what, std::size_t got, std::size_t need);

// --- Get Device ID (App 01h) ---
struct DeviceId {
  std::uint8_t device_id = 0, device_revision = 0;
  std::string firmware;               // "1.23": major, then the BCD minor
  std::string ipmi_version;           // "2.0"
  std::uint32_t manufacturer_id = 0;  // IANA enterprise number, 20 bits
  std::uint16_t product_id = 0;
  bool provides_sdrs = false;
};
Command get_device_id();
std::variant<DeviceId, std::string> parse_device_id(ByteView data);

// --- Get Chassis Status (Chassis 01h) ---
struct ChassisStatus {
  bool power_on = false;
  bool power_overload = false, power_fault = false, control_fault = false;
  bool interlock = false;
  bool intrusion = false, drive_fault = false, cooling_fault = false;
  std::optional<bool> identify_on;  // when the BMC reports the identify state
};
Command get_chassis_status();
std::variant<ChassisStatus, std::string> parse_chassis_status(ByteView data);

// --- Chassis Control (Chassis 02h) ---
enum class ChassisControl : std::uint8_t {
  power_off = 0,
  power_on = 1,
  power_cycle = 2,
  hard_reset = 3,
  diagnostic_interrupt = 4,
  soft_off = 5,  // ACPI shutdown request to the OS
};
Command chassis_control(ChassisControl action);

// --- Chassis Identify (Chassis 04h): the LED for `seconds` (0 turns it off) ---
// One data byte only: some BMCs (ipmi_sim) do not answer the two-byte "force on" form.
Command chassis_identify(std::uint8_t seconds);

// --- Cold Reset (App 02h): restarts the BMC ---
Command bmc_cold_reset();

// --- System boot options, parameter 5: boot flags (Chassis 08h set, 09h get) ---
enum class BootTarget : std::uint8_t { none = 0, pxe = 1, disk = 2, cdrom = 5, bios_setup = 6 };
struct BootFlags {
  bool valid = true;
  bool persistent = false;  // false: next boot only
  bool efi = false;
  BootTarget target = BootTarget::none;
};
Command set_boot_flags(const BootFlags& flags);
Command get_boot_flags();
std::variant<BootFlags, std::string> parse_boot_flags(ByteView data);

// --- Get Channel Cipher Suites (App 54h), session-less: which RMCP+ suites the BMC has ---
// Each request returns up to 16 bytes of the channel's suite records, from `list_index` * 16; a
// reply with fewer than 16 ends the list. The records (table 22-18) are C0h, suite id, then its
// algorithm numbers (authentication 00-3Fh, integrity 40h|n, confidentiality 80h|n); C1h marks
// an OEM suite (id, then a 3-byte IANA number).
Command get_channel_cipher_suites(std::uint8_t list_index);
// The record bytes of one reply (after the channel number), or an error.
std::variant<Bytes, std::string> parse_cipher_suite_page(ByteView data);
// The standard suite ids the concatenated record bytes list, in the BMC's order.
std::vector<std::uint8_t> cipher_suite_ids(ByteView records);

// --- User accounts: Get User Access (App 44h), Get User Name (App 46h), Set User Password
// (App 47h) ---
// Channel 0Eh is "the channel this request came in on".
Command get_user_access(std::uint8_t user_id, std::uint8_t channel = 0x0E);
// The user IDs the channel has (bits 5:0 of the first data byte), or an error.
std::variant<std::uint8_t, std::string> parse_max_user_ids(ByteView data);
Command get_user_name(std::uint8_t user_id);
struct UserName {
  std::string name;  // its NUL padding removed; empty for an unused ID
};
std::variant<UserName, std::string> parse_user_name(ByteView data);
// Sets the password (1 to 20 bytes; longer than 16 uses the 20-byte form).
Command set_user_password(std::uint8_t user_id, const std::string& password);

// --- Set Session Privilege Level (App 3Bh) and Close Session (App 3Ch) ---
Command set_session_privilege(std::uint8_t level);  // 4: administrator
Command close_session(std::uint32_t bmc_session_id);

}  // namespace ironhold::bmc::ipmi
