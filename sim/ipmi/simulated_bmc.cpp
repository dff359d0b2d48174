#include "sim/ipmi/simulated_bmc.hpp"

#include <charconv>

#include "inventory/error.hpp"
#include "inventory/util/log.hpp"
#include "sim/ipmi/fru_image.hpp"
#include "sim/ipmi/rmcp_handler.hpp"
#include "sim/ipmi/sensors.hpp"

namespace ironhold::sim::ipmi {

using nlohmann::json;

SimulatedBmc::SimulatedBmc(BmcConfig config)
    : model_(config), sessions_(config.max_sessions, config.session_timeout) {}

std::optional<bmc::ipmi::Bytes> SimulatedBmc::handle_datagram(bmc::ipmi::ByteView datagram,
                                                              const std::string& peer) {
  std::lock_guard lock(mutex_);
  ++model_.counters.datagrams_received;
  try {
    auto reply = ipmi::handle_datagram(model_, sessions_, datagram, peer, Clock::now());
    console_activated_.store(model_.sol_owner != 0, std::memory_order_relaxed);
    save_if_dirty();
    return reply;
  } catch (const std::exception& e) {
    // Only OpenSSL failing gets here; the datagram goes unanswered like any other bad one.
    log::warn("simulated IPMI BMC dropped a datagram", {{"error", e.what()}});
    return std::nullopt;
  }
}

void SimulatedBmc::count_dropped() {
  std::lock_guard lock(mutex_);
  ++model_.counters.datagrams_received;
  ++model_.counters.datagrams_dropped;
}

Faults SimulatedBmc::faults() const {
  std::lock_guard lock(mutex_);
  return model_.faults;
}

void SimulatedBmc::set_faults(const Faults& faults) {
  std::lock_guard lock(mutex_);
  model_.faults = faults;
}

BmcCounters SimulatedBmc::counters() const {
  std::lock_guard lock(mutex_);
  ipmi::expire_sessions(model_, sessions_, Clock::now());
  return model_.counters;
}

bool SimulatedBmc::power_on() const {
  std::lock_guard lock(mutex_);
  return model_.power_on(Clock::now());
}

void SimulatedBmc::set_power(const std::string& state) {
  bool on = false;
  if (state == "on" || state == "On")
    on = true;
  else if (state != "off" && state != "Off")
    throw invalid("state must be \"on\" or \"off\", got \"" + state + "\"", "state");
  std::lock_guard lock(mutex_);
  model_.set_power(on, Clock::now());
  save_if_dirty();
}

json SimulatedBmc::boot_flags() const {
  std::lock_guard lock(mutex_);
  return model_.boot_flags();
}

namespace {

const char* unit_name(std::uint8_t unit) {
  switch (unit) {
    case 1:
      return "degrees C";
    case 4:
      return "Volts";
    case 6:
      return "Watts";
    case 18:
      return "RPM";
    default:
      return "";
  }
}

const SensorDef* sensor_named(const std::string& name, std::size_t& position) {
  const auto sensors = gpu_server_sensors();
  unsigned number = 0;
  const auto [p, ec] = std::from_chars(name.data(), name.data() + name.size(), number);
  const bool numeric = ec == std::errc{} && p == name.data() + name.size();
  for (std::size_t i = 0; i < sensors.size(); ++i) {
    if (sensors[i].name == name || (numeric && sensors[i].number == number)) {
      position = i;
      return &sensors[i];
    }
  }
  return nullptr;
}

}  // namespace

json SimulatedBmc::sensors() const {
  std::lock_guard lock(mutex_);
  json out = json::array();
  const auto table = gpu_server_sensors();
  for (std::size_t i = 0; i < table.size(); ++i) {
    const SensorDef& s = table[i];
    const std::uint8_t raw = model_.reading(i);
    json j = {{"number", s.number}, {"name", s.name}, {"raw", raw}};
    if (s.discrete()) {
      j["type"] = "discrete";
      j["state"] = raw;
    } else {
      j["type"] = "threshold";
      j["unit"] = unit_name(s.base_unit);
      j["value"] = sensor_value(s, raw);
      j["state"] = threshold_state_name(threshold_status(s, raw));
    }
    out.push_back(std::move(j));
  }
  return out;
}

json SimulatedBmc::set_sensor(const std::string& name, double value) {
  std::size_t at = 0;
  const SensorDef* s = sensor_named(name, at);
  if (!s) throw not_found("no sensor \"" + name + "\"");
  std::optional<std::uint8_t> raw;
  if (s->discrete()) {
    if (value >= 0 && value <= 0xFF && value == static_cast<double>(static_cast<int>(value)))
      raw = static_cast<std::uint8_t>(value);
  } else {
    raw = sensor_raw(*s, value);
  }
  if (!raw)
    throw invalid(
        "value " + std::to_string(value) + " is out of range for sensor \"" + s->name + "\"",
        "value");
  {
    std::lock_guard lock(mutex_);
    model_.set_reading(at, *raw);
  }
  return sensors().at(at);
}

json SimulatedBmc::add_sel(const std::string& sensor, unsigned offset, bool deassertion) {
  std::size_t at = 0;
  const SensorDef* s = sensor_named(sensor, at);
  if (!s) throw not_found("no sensor \"" + sensor + "\"");
  if (offset > 15) throw invalid("offset must be 0 to 15", "offset");
  std::lock_guard lock(mutex_);
  SelEvent event;
  event.sensor_type = s->sensor_type;
  event.sensor_number = s->number;
  event.event_type = s->reading_type;
  event.deassertion = deassertion;
  event.data1 = static_cast<std::uint8_t>(offset);
  if (!s->discrete()) {
    // A threshold event carries the reading and the threshold it crossed.
    event.data1 = static_cast<std::uint8_t>(0x50 | offset);
    event.data2 = model_.reading(at);
    event.data3 = s->thresholds[std::min<unsigned>(offset / 2, 5)];
  }
  const std::uint16_t id = model_.sel().add(event, unix_now());
  model_.dirty = true;
  save_if_dirty();
  const json all = model_.sel().describe();
  for (const json& entry : all)
    if (entry["record_id"] == id) return entry;
  return json::object();
}

json SimulatedBmc::sel() const {
  std::lock_guard lock(mutex_);
  return model_.sel().describe();
}

std::optional<std::string> SimulatedBmc::user_password(const std::string& name) {
  std::lock_guard lock(mutex_);
  if (const User* user = model_.find_user(name)) return user->password;
  return std::nullopt;
}

json SimulatedBmc::sessions() const {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  ipmi::expire_sessions(model_, sessions_, now);
  json out = json::array();
  for (const auto& s : sessions_.all()) {
    const char* stage = s->stage == Session::Stage::active       ? "active"
                        : s->stage == Session::Stage::rakp2_sent ? "rakp2_sent"
                                                                 : "opened";
    out.push_back(
        {{"id", s->bmc_id},
         {"user", s->user},
         {"privilege", privilege_name(s->privilege)},
         {"cipher_suite", s->suite.id},
         {"stage", stage},
         {"peer", s->peer},
         {"idle_seconds",
          std::chrono::duration_cast<std::chrono::seconds>(now - s->last_activity).count()}});
  }
  return out;
}

std::size_t SimulatedBmc::expire_sessions() {
  std::lock_guard lock(mutex_);
  return sessions_.clear();
}

json SimulatedBmc::describe() const {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  ipmi::expire_sessions(model_, sessions_, now);
  json out = {{"power", model_.power_on(now) ? "on" : "off"},
              {"identify", model_.identify_state(now) != 0},
              {"boot", model_.boot_flags()},
              {"faults", active_faults(model_.faults)},
              {"counters", to_json(model_.counters)},
              {"sessions", sessions_.size()}};
  if (const auto pending = model_.pending_power()) out["pending_power"] = *pending ? "on" : "off";
  const FruIdentity fru = fru_identity(model_.config().index);
  out["fru"] = {{"manufacturer", kFruManufacturer},     {"product", kFruProductName},
                {"chassis_serial", fru.chassis_serial}, {"board_serial", fru.board_serial},
                {"product_serial", fru.product_serial}, {"asset_tag", fru.asset_tag}};
  return out;
}

void SimulatedBmc::set_udp_port(std::uint16_t port) {
  std::lock_guard lock(mutex_);
  model_.udp_port = port;
}

bool SimulatedBmc::sol_active() const {
  std::lock_guard lock(mutex_);
  for (const auto& s : sessions_.all())
    if (s->sol) return true;
  return false;
}

std::vector<OutgoingDatagram> SimulatedBmc::sol_pump() {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  model_.power_on(now);  // a cycle in progress reaches its boot, and the boot log starts
  try {
    return ipmi::sol_pump(model_, sessions_, now);
  } catch (const std::exception& e) {
    log::warn("simulated IPMI BMC could not send console output", {{"error", e.what()}});
    return {};
  }
}

json SimulatedBmc::console() const {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  model_.power_on(now);
  // Output nobody is connected to still happens: take it into the history.
  const bool active = ipmi::sol_session(model_, sessions_) != nullptr;
  if (!active) model_.console().take_output(now);
  return {{"active", active},
          {"powered", model_.console().powered()},
          {"history", printable_ascii(model_.console().history())},
          {"received", printable_ascii(model_.console().received())}};
}

void SimulatedBmc::console_print(const std::string& text) {
  std::lock_guard lock(mutex_);
  model_.console().print(text, Clock::now());
}

void SimulatedBmc::restore_state(const json& state) {
  std::lock_guard lock(mutex_);
  model_.restore_state(state);
  model_.dirty = false;
}

void SimulatedBmc::set_persist(std::function<void(const json&)> persist) {
  std::lock_guard lock(mutex_);
  persist_ = std::move(persist);
}

void SimulatedBmc::save_if_dirty() {
  if (!model_.dirty) return;
  model_.dirty = false;
  if (persist_) persist_(model_.saved_state());
}

}  // namespace ironhold::sim::ipmi
