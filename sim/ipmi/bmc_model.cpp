#include "sim/ipmi/bmc_model.hpp"

#include "inventory/crypto/primitives.hpp"
#include "sim/ipmi/fru_image.hpp"
#include "sim/ipmi/sensors.hpp"

namespace ironhold::sim::ipmi {

using bmc::ipmi::Bytes;
using nlohmann::json;

std::uint32_t unix_now() {
  return static_cast<std::uint32_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

json to_json(const BmcCounters& c) {
  return {{"power_actions", c.power_on + c.power_off + c.power_cycle + c.hard_reset + c.soft_off},
          {"power_on", c.power_on},
          {"power_off", c.power_off},
          {"power_cycle", c.power_cycle},
          {"hard_reset", c.hard_reset},
          {"soft_off", c.soft_off},
          {"boot_sets", c.boot_sets},
          {"identify", c.identify},
          {"cold_resets", c.cold_resets},
          {"password_changes", c.password_changes},
          {"sessions_opened", c.sessions_opened},
          {"sessions_closed", c.sessions_closed},
          {"sessions_refused", c.sessions_refused},
          {"logins_failed", c.logins_failed},
          {"commands", c.commands},
          {"datagrams_received", c.datagrams_received},
          {"datagrams_dropped", c.datagrams_dropped}};
}

BmcModel::BmcModel(BmcConfig config)
    : config_(std::move(config)),
      users_(default_users(config_.username, config_.password)),
      console_("sim-node-" + std::to_string(config_.index)) {
  for (std::size_t i = 0; i < kBootParamLengths.size(); ++i)
    boot_params_[i].assign(kBootParamLengths[i], 0x00);
  // Readings near nominal, a little different per BMC so a fleet is not one server N times.
  for (const SensorDef& s : gpu_server_sensors()) {
    std::uint8_t raw = s.nominal;
    if (!s.discrete() && s.sensor_type == 0x01)
      raw = static_cast<std::uint8_t>(raw + config_.index % 5);
    readings_.push_back(raw);
  }
  sel_.seed(unix_now());
  fru_ = build_fru_image(fru_identity(config_.index));
  // A stable GUID per BMC index: "IH" and the index in the last bytes.
  guid_.assign(16, 0x00);
  guid_[0] = 'I';
  guid_[1] = 'H';
  guid_[8] = 0x80;
  for (int i = 0; i < 4; ++i) guid_[12 + i] = static_cast<std::uint8_t>(config_.index >> (8 * i));
}

void BmcModel::settle(Clock::time_point now) {
  if (!change_at_ || now < *change_at_) return;
  const bool was_on = on_;
  on_ = change_to_;
  change_at_.reset();
  dirty = true;
  if (on_ && !was_on) booted(now);
  if (!on_ && was_on) console_.power_off(now);
}

void BmcModel::booted(Clock::time_point now) {
  Bytes& flags = boot_params_[5];
  const bool overridden = (flags[0] & 0x80) != 0;
  const unsigned device = overridden ? (flags[1] >> 2) & 0x0F : 0;
  console_.boot(now, device == 0x01 ? "pxe" : device == 0x05 ? "cdrom" : "disk");
  if ((flags[0] & 0x80) && !(flags[0] & 0x40)) flags[0] &= 0x7F;  // one-time override used
}

void BmcModel::starting(std::chrono::milliseconds after) {
  const Bytes& flags = boot_params_[5];
  const bool pxe = (flags[0] & 0x80) && ((flags[1] >> 2) & 0x0F) == 0x01;
  if (pxe && config_.network_boot) config_.network_boot(after);
}

bool BmcModel::power_on(Clock::time_point now) {
  settle(now);
  return on_;
}

std::optional<bool> BmcModel::pending_power() const {
  if (!change_at_) return std::nullopt;
  return change_to_;
}

bool BmcModel::chassis_control(PowerAction action, Clock::time_point now) {
  settle(now);
  switch (action) {
    case PowerAction::off:
      ++counters.power_off;
      if (on_) console_.power_off(now);
      on_ = false;
      change_at_.reset();
      break;
    case PowerAction::on:
      ++counters.power_on;
      change_at_.reset();
      if (!on_) {
        starting(std::chrono::milliseconds(0));
        on_ = true;
        booted(now);
      }
      break;
    case PowerAction::cycle:
      ++counters.power_cycle;
      starting(config_.cycle_delay);
      if (on_) console_.power_off(now);
      on_ = false;
      change_at_ = now + config_.cycle_delay;
      change_to_ = true;
      break;
    case PowerAction::hard_reset:
      if (!on_) return false;
      ++counters.hard_reset;
      starting(std::chrono::milliseconds(0));
      booted(now);
      break;
    case PowerAction::soft_off:
      if (!on_) return false;
      ++counters.soft_off;
      change_at_ = now + config_.cycle_delay;  // the OS takes a moment to shut down
      change_to_ = false;
      break;
    case PowerAction::diagnostic_interrupt:
      break;
  }
  last_power_by_command_ = true;
  dirty = true;
  return true;
}

void BmcModel::set_power(bool on, Clock::time_point now) {
  settle(now);
  change_at_.reset();
  if (on && !on_) {
    starting(std::chrono::milliseconds(0));
    booted(now);
  }
  if (!on && on_) console_.power_off(now);
  on_ = on;
  last_power_by_command_ = false;
  dirty = true;
}

void BmcModel::identify(unsigned seconds, bool forever, Clock::time_point now) {
  ++counters.identify;
  identify_forever_ = forever;
  identify_until_ = now + std::chrono::seconds(seconds);
}

std::uint8_t BmcModel::identify_state(Clock::time_point now) const {
  if (identify_forever_) return 2;
  return now < identify_until_ ? 1 : 0;
}

void BmcModel::set_boot_param(std::size_t selector, bmc::ipmi::ByteView data) {
  boot_params_.at(selector).assign(data.begin(), data.end());
  if (selector == 5) ++counters.boot_sets;
  dirty = true;
}

namespace {

const char* boot_device_name(std::uint8_t selector) {
  switch (selector) {
    case 0x0:
      return "none";
    case 0x1:
      return "pxe";
    case 0x2:
      return "disk";
    case 0x3:
      return "safe";
    case 0x4:
      return "diag";
    case 0x5:
      return "cdrom";
    case 0x6:
      return "bios";
    case 0x7:
      return "floppy-remote";
    case 0x8:
      return "cdrom-remote";
    case 0x9:
      return "media-remote";
    case 0xB:
      return "disk-remote";
    case 0xF:
      return "floppy";
    default:
      return "other";
  }
}

}  // namespace

json BmcModel::boot_flags() const {
  const Bytes& f = boot_params_[5];
  return {{"device", boot_device_name(static_cast<std::uint8_t>((f[1] >> 2) & 0x0F))},
          {"valid", (f[0] & 0x80) != 0},
          {"persistent", (f[0] & 0x40) != 0},
          {"efi", (f[0] & 0x20) != 0}};
}

User* BmcModel::find_user(const std::string& name) {
  for (User& u : users_)
    if (u.name == name) return &u;
  return nullptr;
}

void BmcModel::login_failed(User* user, Clock::time_point now) {
  ++counters.logins_failed;
  if (!user) return;
  if (++user->failures >= config_.lockout_after && config_.lockout_after > 0) {
    user->locked_until = now + config_.lockout_time;
    user->failures = 0;
  }
}

bool BmcModel::locked_out(const User& user, Clock::time_point now) const {
  return faults.lockout || now < user.locked_until;
}

json BmcModel::saved_state() const {
  json boot = json::array();
  for (const Bytes& p : boot_params_) boot.push_back(crypto::to_hex(p));
  // A transition in progress is saved as where it goes.
  return {
      {"power_on", change_at_ ? change_to_ : on_}, {"boot_params", boot}, {"sel", sel_.saved()}};
}

void BmcModel::restore_state(const json& state) {
  if (!state.is_object()) return;
  if (const auto it = state.find("power_on"); it != state.end() && it->is_boolean())
    on_ = it->get<bool>();
  if (const auto it = state.find("boot_params"); it != state.end() && it->is_array()) {
    for (std::size_t i = 0; i < it->size() && i < boot_params_.size(); ++i) {
      Bytes p;
      if ((*it)[i].is_string() && crypto::from_hex((*it)[i].get<std::string>(), p) &&
          p.size() == kBootParamLengths[i])
        boot_params_[i] = std::move(p);
    }
  }
  if (const auto it = state.find("sel"); it != state.end()) sel_.restore(*it);
}

}  // namespace ironhold::sim::ipmi
