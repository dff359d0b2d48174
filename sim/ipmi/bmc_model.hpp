#pragma once
// What one simulated IPMI BMC knows about its server, apart from sessions: chassis power (with
// delayed transitions), identify, boot options, sensor readings, the SEL, FRU data, users and
// their lockout, faults and action counters. Not thread-safe: SimulatedBmc (bmc.hpp) locks.
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bmc/ipmi/bytes.hpp"
#include "sim/console/host_console.hpp"
#include "sim/ipmi/faults.hpp"
#include "sim/ipmi/sel_log.hpp"
#include "sim/ipmi/users.hpp"

namespace ironhold::sim::ipmi {

using Clock = std::chrono::steady_clock;

struct BmcConfig {
  unsigned index = 0;
  std::string username = "admin";
  std::string password = "password";
  // The BMC key K_G (at most 20 bytes) the session keys derive from; empty: none (the user's
  // password stands in, as the spec says).
  bmc::ipmi::Bytes bmc_key;
  std::chrono::milliseconds cycle_delay{1000};  // power cycle: off, then on after this
  unsigned max_sessions = 16;
  std::chrono::seconds session_timeout{60};  // idle sessions expire after this
  unsigned lockout_after = 5;                // consecutive failed logins that lock a user
  std::chrono::seconds lockout_time{60};
  // The MAC address of the server's first NIC, the one it PXE boots from ("52:54:01:00:00:07").
  std::string mac;
  // Called (under the BMC's lock: it must only post) when the server starts with PXE as its boot
  // device, `after` the moment the command came in (a cycle: once the server is on again).
  std::function<void(std::chrono::milliseconds after)> network_boot;
};

struct BmcCounters {
  unsigned power_on = 0, power_off = 0, power_cycle = 0, hard_reset = 0, soft_off = 0;
  unsigned boot_sets = 0;  // boot flags (parameter 5) written
  unsigned identify = 0, cold_resets = 0;
  unsigned password_changes = 0;  // Set User Password: passwords set
  unsigned sessions_opened = 0, sessions_closed = 0, sessions_refused = 0;
  unsigned logins_failed = 0;
  unsigned commands = 0;  // IPMI requests answered inside sessions
  unsigned datagrams_received = 0, datagrams_dropped = 0;
};
nlohmann::json to_json(const BmcCounters& counters);

// Chassis Control actions (IPMI v2.0 table 28-4).
enum class PowerAction : std::uint8_t {
  off = 0,
  on = 1,
  cycle = 2,
  hard_reset = 3,
  diagnostic_interrupt = 4,
  soft_off = 5
};

// System boot option parameters 0-5 (IPMI v2.0 table 28-14), kept as the bytes clients wrote.
inline constexpr std::array<std::size_t, 6> kBootParamLengths = {1, 1, 1, 1, 2, 5};

class BmcModel {
 public:
  explicit BmcModel(BmcConfig config);

  const BmcConfig& config() const { return config_; }

  // --- power: transitions that take time finish when `now` passes them ---
  bool power_on(Clock::time_point now);
  // False when the action makes no sense now (hard reset of a server that is off).
  bool chassis_control(PowerAction action, Clock::time_point now);
  void set_power(bool on, Clock::time_point now);  // the control API: no counters
  // "on", "off"; with a pending transition its target ("on" for a cycle in progress).
  std::optional<bool> pending_power() const;
  bool last_power_by_command() const { return last_power_by_command_; }

  // --- identify: 0 seconds turns it off; `forever` keeps it on ---
  void identify(unsigned seconds, bool forever, Clock::time_point now);
  // 0 off, 1 on for a while, 2 on until turned off (Get Chassis Status's coding).
  std::uint8_t identify_state(Clock::time_point now) const;

  // --- boot options ---
  const bmc::ipmi::Bytes& boot_param(std::size_t selector) const {
    return boot_params_.at(selector);
  }
  void set_boot_param(std::size_t selector, bmc::ipmi::ByteView data);
  // {"device": "pxe", "valid": true, "persistent": false, "efi": false}
  nlohmann::json boot_flags() const;

  // --- sensors: raw readings by position in gpu_server_sensors() ---
  std::uint8_t reading(std::size_t position) const { return readings_.at(position); }
  void set_reading(std::size_t position, std::uint8_t raw) { readings_.at(position) = raw; }
  std::uint16_t sdr_reservation() const { return sdr_reservation_; }
  std::uint16_t reserve_sdr() {
    return sdr_reservation_ = static_cast<std::uint16_t>(sdr_reservation_ % 0xFFFF + 1);
  }

  SelLog& sel() { return sel_; }
  const SelLog& sel() const { return sel_; }
  const bmc::ipmi::Bytes& fru() const { return fru_; }
  const bmc::ipmi::Bytes& guid() const { return guid_; }

  // --- users: which one, and whether it may log in now ---
  std::vector<User>& users() { return users_; }
  User* find_user(const std::string& name);
  // A failed login; locks the user after lockout_after in a row.
  void login_failed(User* user, Clock::time_point now);
  bool locked_out(const User& user, Clock::time_point now) const;

  // --- the host's serial port, behind Serial-over-LAN (sol_payload.hpp) ---
  HostConsole& console() { return console_; }
  const HostConsole& console() const { return console_; }
  // The session holding the SOL payload (its BMC session ID), 0 for none; the UDP port it
  // travels on (the BMC's own, set when the socket is bound).
  std::uint32_t sol_owner = 0;
  std::uint16_t udp_port = 0;

  Faults faults;
  BmcCounters counters;
  // Set by everything state.json keeps (power, boot, SEL); SimulatedBmc saves and clears it.
  bool dirty = false;

  nlohmann::json saved_state() const;
  void restore_state(const nlohmann::json& state);

 private:
  void settle(Clock::time_point now);
  // The server started: a one-time boot override is used up, the boot log begins.
  void booted(Clock::time_point now);
  // The server will start `after` from now: the PXE ROM runs when PXE is its boot device.
  void starting(std::chrono::milliseconds after);

  BmcConfig config_;
  bool on_ = true;
  std::optional<Clock::time_point> change_at_;
  bool change_to_ = false;
  bool last_power_by_command_ = false;
  bool identify_forever_ = false;
  Clock::time_point identify_until_{};
  std::array<bmc::ipmi::Bytes, kBootParamLengths.size()> boot_params_;
  std::vector<std::uint8_t> readings_;
  std::uint16_t sdr_reservation_ = 0;
  SelLog sel_;
  bmc::ipmi::Bytes fru_;
  bmc::ipmi::Bytes guid_;
  std::vector<User> users_;
  HostConsole console_;
};

// Seconds since 1970, what SEL timestamps and Get SEL Time use.
std::uint32_t unix_now();

}  // namespace ironhold::sim::ipmi
