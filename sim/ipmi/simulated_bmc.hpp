#pragma once
// One simulated IPMI BMC: its model, its sessions, and one lock around both, so the UDP side (on
// the io_context) and the control side (control API, tests) can use it from different threads.
#include <atomic>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bmc/ipmi/bytes.hpp"
#include "sim/ipmi/bmc_model.hpp"
#include "sim/ipmi/sessions.hpp"
#include "sim/ipmi/sol_payload.hpp"

namespace ironhold::sim::ipmi {

class SimulatedBmc {
 public:
  explicit SimulatedBmc(BmcConfig config);

  // The answer to one datagram from `peer`, or nothing. Never throws.
  std::optional<bmc::ipmi::Bytes> handle_datagram(bmc::ipmi::ByteView datagram,
                                                  const std::string& peer);
  void count_dropped();  // a datagram the fault layer dropped

  Faults faults() const;
  void set_faults(const Faults& faults);
  // Expires idle sessions first, so a handshake a console abandoned (a wrong password) counts.
  BmcCounters counters() const;

  bool power_on() const;
  // "on" or "off"; ironhold::Error (invalid) for anything else.
  void set_power(const std::string& state);
  nlohmann::json boot_flags() const;

  // [{"number", "name", "type", "unit", "value", "raw", "state"}]
  nlohmann::json sensors() const;
  // Sets sensor `name` (or its number as text) to `value` in its units (discrete: the state
  // bits). ironhold::Error: not_found for no such sensor, invalid for a value out of its range.
  nlohmann::json set_sensor(const std::string& name, double value);

  // Adds a SEL entry for sensor `name`: event offset, assertion or deassertion. Returns it.
  nlohmann::json add_sel(const std::string& sensor, unsigned offset, bool deassertion);
  nlohmann::json sel() const;

  // The password of user `name` now (what its administrator knows), for tests of a rotation.
  std::optional<std::string> user_password(const std::string& name);

  // [{"id", "user", "privilege", "stage", "peer", "idle_seconds"}]
  nlohmann::json sessions() const;
  std::size_t expire_sessions();

  // --- the host's serial console (Serial-over-LAN) ---
  void set_udp_port(std::uint16_t port);
  // Whether a session held the SOL payload after the last datagram: read on every datagram, so
  // without the lock.
  bool console_activated() const { return console_activated_.load(std::memory_order_relaxed); }
  // Whether any session still has SOL traffic to finish (an active or a deactivating payload).
  bool sol_active() const;
  // What the BMC sends by itself now (host output, retries), by peer address.
  std::vector<ipmi::OutgoingDatagram> sol_pump();
  // {"active", "powered", "history", "received"}: what the host printed and was sent.
  nlohmann::json console() const;
  // The host prints `text` (a kernel panic, say), connected console or not.
  void console_print(const std::string& text);

  // {"power", "pending_power"?, "identify", "boot", "faults", "counters", "sessions", "fru"}
  nlohmann::json describe() const;

  // State kept across restarts (power, boot options, SEL), and where to save it on a change.
  void restore_state(const nlohmann::json& state);
  void set_persist(std::function<void(const nlohmann::json&)> persist);

 private:
  void save_if_dirty();  // with mutex_ held

  mutable std::mutex mutex_;
  // Mutable: reading settles pending power transitions and expires idle sessions.
  mutable BmcModel model_;
  mutable SessionTable sessions_;
  std::atomic<bool> console_activated_{false};
  std::function<void(const nlohmann::json&)> persist_;
};

}  // namespace ironhold::sim::ipmi
