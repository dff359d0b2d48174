#include "bmc/ipmi/ipmi_driver.hpp"

#include <boost/asio/ip/udp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "bmc/ipmi/normalize.hpp"
#include "bmc/ipmi/sol_console.hpp"
#include "inventory/crypto/primitives.hpp"

namespace ironhold::bmc::ipmi {

namespace asio = boost::asio;
using asio::ip::udp;

namespace {

constexpr std::uint16_t kDefaultPort = 623;
constexpr std::uint8_t kBmcOwner = 0x20;
constexpr std::uint8_t kNotPresent = 0xCB;

template <class T>
const DriverError* error_in(const std::variant<T, DriverError>& v) {
  return std::get_if<DriverError>(&v);
}

std::string minutes_text(AuthBackoff::Clock::duration d) {
  const auto minutes = std::chrono::duration_cast<std::chrono::minutes>(d).count() + 1;
  return std::to_string(minutes) + " min";
}

std::string power_action_name(ChassisControl control) {
  switch (control) {
    case ChassisControl::power_off:
      return "power down";
    case ChassisControl::power_on:
      return "power up";
    case ChassisControl::power_cycle:
      return "power cycle";
    case ChassisControl::hard_reset:
      return "hard reset";
    case ChassisControl::diagnostic_interrupt:
      return "diagnostic interrupt";
    case ChassisControl::soft_off:
      return "soft shutdown (ACPI)";
  }
  return "?";
}

BootTarget boot_target(BootDevice device) {
  switch (device) {
    case BootDevice::pxe:
      return BootTarget::pxe;
    case BootDevice::disk:
      return BootTarget::disk;
    case BootDevice::cd:
      return BootTarget::cdrom;
    case BootDevice::bios:
      return BootTarget::bios_setup;
  }
  return BootTarget::none;
}

}  // namespace

IpmiDriver::IpmiDriver(asio::any_io_executor executor, IpmiDriverOptions options)
    : executor_(executor),
      options_(std::move(options)),
      client_(executor, options_.lan),
      backoff_(options_.auth_backoff, options_.now) {}

// ---------------------------------------------------------------------------------------------
// Targets, credentials and their backoff

namespace {

bool same_credentials(const std::optional<Credentials>& a, const std::optional<Credentials>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (a->username == b->username && a->password == b->password);
}

}  // namespace

std::shared_ptr<const SessionParams> IpmiDriver::cached_params(const DriverTarget& target) {
  std::lock_guard lock(memory_mutex_);
  const auto it = memory_.find(target.node_id);
  if (it == memory_.end() || !it->second.params) return nullptr;
  const NodeMemory& m = it->second;
  const bool same = m.endpoint.host == target.endpoint.host &&
                    m.endpoint.port == target.endpoint.port &&
                    m.endpoint.scheme == target.endpoint.scheme &&
                    same_credentials(m.credentials, target.credentials) && m.kg == target.kg &&
                    m.options == target.options;
  return same ? m.params : nullptr;
}

asio::awaitable<std::variant<std::shared_ptr<const SessionParams>, DriverError>>
IpmiDriver::session_params(const DriverTarget& target) {
  auto cached = cached_params(target);
  if (!cached) {
    auto built = co_await build_params(target);
    if (auto* e = std::get_if<DriverError>(&built)) co_return *e;
    auto params = std::make_shared<SessionParams>(std::get<SessionParams>(std::move(built)));
    params->prepare();
    std::lock_guard lock(memory_mutex_);
    NodeMemory& m = memory_[target.node_id];
    m.params = params;
    m.endpoint = target.endpoint;
    m.credentials = target.credentials;
    m.kg = target.kg;
    m.options = target.options;
    m.backoff_key = backoff_key(*params);
    cached = params;
  }
  std::string key;
  {
    std::lock_guard lock(memory_mutex_);
    NodeMemory& m = memory_[target.node_id];
    if (!m.rejected) co_return cached;  // never rejected: nothing to look up
    key = m.backoff_key;
  }
  if (const auto barred = backoff_.barred_for(key))
    co_return DriverError{DriverErrorCode::auth_failed,
                          "the BMC rejected these credentials; not tried again for " +
                              minutes_text(*barred) +
                              " (BMCs lock accounts). Change them to try at once"};
  co_return cached;
}

// The session parameters a target asks for (uncached), or why it cannot be reached.
asio::awaitable<std::variant<SessionParams, DriverError>> IpmiDriver::build_params(
    const DriverTarget& target) {
  SessionParams p;
  const Endpoint& endpoint = target.endpoint;
  if (endpoint.scheme != "ipmi")
    co_return DriverError{
        DriverErrorCode::unsupported,
        "the IPMI driver needs an ipmi:// endpoint, not \"" + endpoint.to_string() + "\""};
  if (!target.credentials)
    co_return DriverError{DriverErrorCode::auth_failed,
                          "the node has no credentials: IPMI needs a user name and password"};
  p.user = target.credentials->username;
  p.password = target.credentials->password;
  if (target.kg && !crypto::from_hex(*target.kg, p.bmc_key))
    co_return DriverError{DriverErrorCode::auth_failed, "the node's BMC key (kg) is not hex"};
  if (const auto suites = target.options.find("cipher_suites");
      suites != target.options.end() && suites->is_array()) {
    std::vector<std::uint8_t> listed;
    for (const auto& id : *suites)
      if (id.is_number_integer() && id.get<int>() >= 0 && id.get<int>() <= 255)
        listed.push_back(static_cast<std::uint8_t>(id.get<int>()));
    if (!listed.empty()) p.cipher_suites = std::move(listed);
  }
  if (const auto privilege = target.options.find("privilege");
      privilege != target.options.end() && privilege->is_string())
    p.privilege = *privilege == "operator" ? kPrivilegeOperator : kPrivilegeAdministrator;

  const std::uint16_t port = endpoint.port.value_or(kDefaultPort);
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(endpoint.host, ec);
  if (!ec) {
    p.bmc = udp::endpoint(address, port);
  } else {
    udp::resolver resolver(executor_);
    const auto results = co_await resolver.async_resolve(
        endpoint.host, std::to_string(port), asio::redirect_error(asio::use_awaitable, ec));
    if (ec || results.empty())
      co_return DriverError{DriverErrorCode::unreachable,
                            "the BMC's host name \"" + endpoint.host + "\" does not resolve"};
    p.bmc = results.begin()->endpoint();
  }
  co_return p;
}

std::string IpmiDriver::backoff_key(const SessionParams& p) const {
  const std::string secrets = p.password + "\n" + std::string(p.bmc_key.begin(), p.bmc_key.end());
  return endpoint_text(p.bmc) + "\n" + p.user + "\n" + crypto::to_hex(crypto::sha256(secrets));
}

void IpmiDriver::note_outcome(const DriverTarget& target, const std::optional<DriverError>& error) {
  const bool rejected = error && error->code == DriverErrorCode::auth_failed;
  std::string key;
  {
    std::lock_guard lock(memory_mutex_);
    NodeMemory& m = memory_[target.node_id];
    if (!rejected && (error || !m.rejected)) return;  // the common case: nothing to change
    m.rejected = rejected;
    key = m.backoff_key;
  }
  if (key.empty()) return;
  if (rejected)
    backoff_.record_rejection(key);
  else
    backoff_.record_success(key);
}

// ---------------------------------------------------------------------------------------------
// Polls

asio::awaitable<StatusReport> IpmiDriver::poll_status(const DriverTarget& target) {
  StatusReport report;
  auto params = co_await session_params(target);
  if (auto* e = error_in(params)) {
    report.error = *e;
    co_return report;
  }
  BmcLink link(client_, std::get<std::shared_ptr<const SessionParams>>(params));
  const Command ask = get_chassis_status();
  const CallResult r = co_await link.call(ask);
  note_outcome(target, r.error);
  if (!r.ok()) {
    report.error = call_error(r, "Get Chassis Status");
    co_return report;
  }
  auto parsed = parse_chassis_status(r.data);
  if (auto* why = std::get_if<std::string>(&parsed)) {
    report.error = DriverError{DriverErrorCode::bad_response, *why};
    co_return report;
  }
  const ChassisStatus& chassis = std::get<ChassisStatus>(parsed);
  SystemStatus status;
  status.system_id = kSystemId;
  status.power_state = chassis.power_on ? PowerState::on : PowerState::off;
  Health sensors = Health::unknown;
  {
    std::lock_guard lock(memory_mutex_);
    if (auto it = memory_.find(target.node_id); it != memory_.end())
      sensors = it->second.sensor_health;
  }
  status.health = worse(chassis_health(chassis), sensors);
  report.systems.push_back(status);
  co_return report;
}

asio::awaitable<std::variant<std::shared_ptr<const SdrRepository>, DriverError>> IpmiDriver::sdr_of(
    const DriverTarget& target, BmcLink& link) {
  {
    std::lock_guard lock(memory_mutex_);
    if (auto it = memory_.find(target.node_id); it != memory_.end() && it->second.sdr)
      co_return it->second.sdr;
  }
  auto read = co_await read_sdr_repository(link, options_.limits);
  if (auto* e = error_in(read)) co_return *e;
  auto sdr = std::make_shared<const SdrRepository>(std::get<SdrRepository>(std::move(read)));
  std::lock_guard lock(memory_mutex_);
  memory_[target.node_id].sdr = sdr;
  co_return sdr;
}

asio::awaitable<std::variant<std::vector<SensorReading>, DriverError>> IpmiDriver::read_sensors(
    const DriverTarget& target, BmcLink& link, const SdrRepository& sdr) {
  std::vector<const SdrRecord*> sensors;
  for (const auto& record : sdr.records) {
    const bool reading =
        record.type == SdrType::full_sensor || record.type == SdrType::compact_sensor;
    // Sensors of other controllers need bridging, which this driver does not do.
    if (reading && record.owner_id == kBmcOwner && record.owner_lun == 0)
      sensors.push_back(&record);
  }
  const auto names = unique_sensor_names(sensors);
  std::vector<SensorReading> readings;
  Health health = Health::ok;
  for (std::size_t i = 0; i < sensors.size(); ++i) {
    const Command ask = get_sensor_reading(sensors[i]->sensor_number);
    const CallResult r = co_await link.call(ask);
    if (r.error) co_return *r.error;
    SensorReadingRaw raw;
    if (r.completion_code == kNotPresent) continue;  // a sensor of an absent part
    if (r.completion_code == 0) {
      auto parsed = parse_sensor_reading(r.data);
      if (auto* value = std::get_if<SensorReadingRaw>(&parsed)) raw = *value;
    }
    SensorReading reading = to_sensor_reading(*sensors[i], raw, names[i]);
    health = worse(health, reading.status);
    readings.push_back(std::move(reading));
  }
  std::lock_guard lock(memory_mutex_);
  memory_[target.node_id].sensor_health = health;
  co_return readings;
}

asio::awaitable<std::variant<std::vector<HardwareEvent>, DriverError>> IpmiDriver::read_events(
    const DriverTarget& target, BmcLink& link) {
  auto info = co_await read_sel_info(link);
  if (auto* e = error_in(info)) co_return *e;
  const std::uint32_t last_addition = std::get<SelInfo>(info).last_addition;
  {
    std::lock_guard lock(memory_mutex_);
    auto& memory = memory_[target.node_id];
    if (memory.sel_last_addition == last_addition) co_return std::vector<HardwareEvent>{};
  }
  auto sel = co_await read_sel(link, options_.limits);
  if (auto* e = error_in(sel)) co_return *e;
  std::vector<HardwareEvent> events;
  for (const auto& entry : std::get<SelContents>(sel).entries) events.push_back(to_event(entry));
  {
    std::lock_guard lock(memory_mutex_);
    memory_[target.node_id].sel_last_addition = last_addition;
  }
  co_return first_reports(target.node_id, std::move(events));
}

std::vector<HardwareEvent> IpmiDriver::first_reports(const std::string& node_id,
                                                     std::vector<HardwareEvent> events) {
  std::lock_guard lock(memory_mutex_);
  auto& reported = memory_[node_id].reported_events;
  std::vector<HardwareEvent> fresh;
  for (auto& event : events)
    if (reported.insert(event.source_id).second) fresh.push_back(std::move(event));
  return fresh;
}

asio::awaitable<SensorReport> IpmiDriver::poll_sensors(const DriverTarget& target) {
  SensorReport report;
  auto params = co_await session_params(target);
  if (auto* e = error_in(params)) {
    report.error = *e;
    co_return report;
  }
  BmcLink link(client_, std::get<std::shared_ptr<const SessionParams>>(params));
  auto sdr = co_await sdr_of(target, link);
  if (auto* e = error_in(sdr)) {
    note_outcome(target, *e);
    report.error = *e;
    co_return report;
  }
  auto readings = co_await read_sensors(target, link, *std::get<0>(sdr));
  if (auto* e = error_in(readings)) {
    report.error = *e;
    co_return report;
  }
  auto events = co_await read_events(target, link);
  if (auto* e = error_in(events)) {
    report.error = *e;
    co_return report;
  }
  note_outcome(target, std::nullopt);
  SystemSensors system;
  system.system_id = kSystemId;
  system.sensors = std::get<std::vector<SensorReading>>(std::move(readings));
  system.events = std::get<std::vector<HardwareEvent>>(std::move(events));
  report.systems.push_back(std::move(system));
  co_return report;
}

asio::awaitable<InspectionReport> IpmiDriver::inspect(const DriverTarget& target) {
  InspectionReport report;
  auto params = co_await session_params(target);
  if (auto* e = error_in(params)) {
    report.error = *e;
    co_return report;
  }
  BmcLink link(client_, std::get<std::shared_ptr<const SessionParams>>(params));
  auto fail = [&](DriverError error) {
    note_outcome(target, error);
    report.error = std::move(error);
    report.systems.clear();
    return report;
  };

  // The BMC itself: its firmware, IPMI version and vendor ids.
  const Command ask_id = get_device_id();
  const CallResult id_result = co_await link.call(ask_id);
  if (!id_result.ok()) co_return fail(call_error(id_result, "Get Device ID"));
  auto device = parse_device_id(id_result.data);
  if (auto* why = std::get_if<std::string>(&device))
    co_return fail(DriverError{DriverErrorCode::bad_response, *why});
  const DeviceId& bmc = std::get<DeviceId>(device);

  SystemInventory system;
  system.system_id = kSystemId;
  report.manager_firmware = bmc.firmware;
  system.firmware.push_back(FirmwareItem{"BMC", "BMC firmware", bmc.firmware, false, "bmc"});
  Component controller;
  controller.kind = ComponentKind::other;
  controller.slot = "bmc";
  controller.name = "BMC";
  controller.firmware_version = bmc.firmware;
  controller.status = Health::ok;
  controller.details = {{"ipmi_version", bmc.ipmi_version},
                        {"manufacturer_id", bmc.manufacturer_id},
                        {"product_id", bmc.product_id},
                        {"device_id", bmc.device_id},
                        {"device_revision", bmc.device_revision}};
  system.components.push_back(std::move(controller));

  // The system GUID where the BMC gives one (optional in the spec).
  const Command ask_guid = get_system_guid();
  const CallResult guid_result = co_await link.call(ask_guid);
  if (guid_result.error) co_return fail(*guid_result.error);
  if (guid_result.ok()) system.identity.uuid = parse_system_guid(guid_result.data);

  const Command ask_chassis = get_chassis_status();
  const CallResult chassis_result = co_await link.call(ask_chassis);
  if (!chassis_result.ok()) co_return fail(call_error(chassis_result, "Get Chassis Status"));
  auto chassis = parse_chassis_status(chassis_result.data);
  if (auto* why = std::get_if<std::string>(&chassis))
    co_return fail(DriverError{DriverErrorCode::bad_response, *why});
  system.status.system_id = kSystemId;
  system.status.power_state =
      std::get<ChassisStatus>(chassis).power_on ? PowerState::on : PowerState::off;

  // FRU 0 is the server; the SDR's FRU locators name the others (power supplies, ...).
  auto sdr = co_await sdr_of(target, link);
  if (auto* e = error_in(sdr)) co_return fail(*e);
  const SdrRepository& repository = *std::get<0>(sdr);
  std::vector<std::pair<std::uint8_t, std::string>> frus{{0, "System"}};
  for (const auto& record : repository.records)
    if (record.type == SdrType::fru_locator && record.fru_device_id && *record.fru_device_id != 0)
      frus.emplace_back(*record.fru_device_id, record.name);
  for (const auto& [fru_id, name] : frus) {
    auto fru = co_await read_fru(link, fru_id, options_.limits);
    if (auto* e = error_in(fru)) {
      // A FRU device that is absent or unreadable is a fact about that part, not a failure of
      // the inspection; a BMC that stopped answering is.
      if (e->code == DriverErrorCode::timeout || e->code == DriverErrorCode::auth_failed)
        co_return fail(*e);
      continue;
    }
    const FruData& data = std::get<FruData>(fru);
    if (fru_id == 0) {
      const auto uuid = system.identity.uuid;
      system.identity = identity_from_fru(data);
      system.identity.uuid = uuid;
    }
    for (auto& component : fru_components(data, fru_id, name))
      system.components.push_back(std::move(component));
  }

  auto readings = co_await read_sensors(target, link, repository);
  if (auto* e = error_in(readings)) co_return fail(*e);
  system.sensors = std::get<std::vector<SensorReading>>(std::move(readings));
  Health health = chassis_health(std::get<ChassisStatus>(chassis));
  for (const auto& sensor : system.sensors) {
    health = worse(health, sensor.status);
    if (sensor.kind == "fan") {
      Component fan;
      fan.kind = ComponentKind::fan;
      fan.slot = "sensor/" + sensor.name;
      fan.name = sensor.name;
      fan.status = sensor.status;
      system.components.push_back(std::move(fan));
    }
  }
  system.status.health = health;

  // Every SEL entry not reported before, whether or not the SEL changed since the last poll.
  {
    std::lock_guard lock(memory_mutex_);
    memory_[target.node_id].sel_last_addition.reset();
  }
  auto events = co_await read_events(target, link);
  if (auto* e = error_in(events)) co_return fail(*e);
  system.events = std::get<std::vector<HardwareEvent>>(std::move(events));

  note_outcome(target, std::nullopt);
  report.systems.push_back(std::move(system));
  co_return report;
}

// ---------------------------------------------------------------------------------------------
// Actions

asio::awaitable<ActionReport> IpmiDriver::send_action(const DriverTarget& target, Command command,
                                                      std::string detail) {
  ActionReport report;
  report.detail = std::move(detail);
  auto params = co_await session_params(target);
  if (auto* e = error_in(params)) {
    report.error = *e;
    co_return report;
  }
  BmcLink link(client_, std::get<std::shared_ptr<const SessionParams>>(params));
  const CallResult r = co_await link.call(command);
  note_outcome(target, r.error);
  if (!r.ok()) report.error = call_error(r, report.detail);
  co_return report;
}

asio::awaitable<ActionReport> IpmiDriver::power(const DriverTarget& target, std::string,
                                                PowerAction action) {
  ChassisControl control = ChassisControl::power_on;
  switch (action) {
    case PowerAction::on:
      control = ChassisControl::power_on;
      break;
    case PowerAction::off:
      control = ChassisControl::power_off;
      break;
    case PowerAction::cycle:
      control = ChassisControl::power_cycle;
      break;
    case PowerAction::reset:
      control = ChassisControl::hard_reset;
      break;
    case PowerAction::soft_off:
      control = ChassisControl::soft_off;
      break;
  }
  if (control == ChassisControl::power_cycle) {
    // A power cycle of a server that is off does nothing on many BMCs (or is refused): turn it on.
    StatusReport status = co_await poll_status(target);
    if (status.error) {
      ActionReport report;
      report.error = status.error;
      report.detail = "Chassis Control: power cycle";
      co_return report;
    }
    if (!status.systems.empty() && status.systems[0].power_state == PowerState::off) {
      const Command up = chassis_control(ChassisControl::power_on);
      ActionReport report =
          co_await send_action(target, up, "Chassis Control: power up (the server was off)");
      co_return report;
    }
  }
  const Command command = chassis_control(control);
  ActionReport report =
      co_await send_action(target, command, "Chassis Control: " + power_action_name(control));
  co_return report;
}

asio::awaitable<ActionReport> IpmiDriver::set_boot(const DriverTarget& target, std::string,
                                                   BootRequest boot) {
  BootFlags flags;
  flags.valid = true;
  flags.persistent = boot.persistent;
  flags.target = boot_target(boot.device);
  if (boot.mode) {
    flags.efi = *boot.mode == BootMode::uefi;
  } else {
    // Keep the BMC's BIOS/EFI choice: read it first.
    auto params = co_await session_params(target);
    if (auto* e = error_in(params)) {
      ActionReport report;
      report.error = *e;
      co_return report;
    }
    BmcLink link(client_, std::get<std::shared_ptr<const SessionParams>>(params));
    const Command ask = get_boot_flags();
    const CallResult r = co_await link.call(ask);
    if (r.error) {
      ActionReport report;
      report.error = r.error;
      co_return report;
    }
    if (r.ok())
      if (auto current = parse_boot_flags(r.data); std::holds_alternative<BootFlags>(current))
        flags.efi = std::get<BootFlags>(current).efi;
  }
  std::string detail = "Set System Boot Options: boot flags " +
                       std::string(to_string(boot.device)) +
                       (boot.persistent ? ", persistent" : ", next boot only") +
                       (flags.efi ? ", EFI" : ", legacy BIOS");
  const Command command = set_boot_flags(flags);
  ActionReport report = co_await send_action(target, command, std::move(detail));
  co_return report;
}

asio::awaitable<ActionReport> IpmiDriver::identify(const DriverTarget& target, std::string,
                                                   bool on) {
  // One data byte: an interval of up to 255 s (the two-byte "force on" form is not universal).
  const Command command = chassis_identify(on ? 255 : 0);
  ActionReport report = co_await send_action(
      target, command, on ? "Chassis Identify: on for 255 s" : "Chassis Identify: off");
  co_return report;
}

asio::awaitable<ActionReport> IpmiDriver::reset_controller(const DriverTarget& target) {
  const Command command = bmc_cold_reset();
  ActionReport report = co_await send_action(target, command, "BMC Cold Reset");
  if (!report.error) {
    // The BMC restarts and forgets its sessions; close ours rather than wait for a timeout.
    auto params = co_await session_params(target);
    if (auto* p = std::get_if<std::shared_ptr<const SessionParams>>(&params))
      co_await client_.close_sessions((*p)->bmc);
    std::lock_guard lock(memory_mutex_);
    memory_.erase(target.node_id);
  }
  co_return report;
}

namespace {

class SolNodeConsole final : public NodeConsole {
 public:
  explicit SolNodeConsole(std::shared_ptr<SolConsole> sol) : sol_(std::move(sol)) {}
  bool write(std::string_view bytes) override { return sol_->write(bytes); }
  void send_break() override { sol_->send_break(); }
  asio::awaitable<void> close() override { co_await sol_->close(); }
  bool is_open() const override { return sol_->open(); }

 private:
  std::shared_ptr<SolConsole> sol_;
};

}  // namespace

asio::awaitable<ConsoleOpenReport> IpmiDriver::open_console(const DriverTarget& target, std::string,
                                                            ConsoleEvents events) {
  ConsoleOpenReport report;
  report.protocol = "ipmi-sol";
  auto params = co_await session_params(target);
  if (auto* e = error_in(params)) {
    report.error = *e;
    co_return report;
  }
  SolConsoleEvents sol_events{std::move(events.output), std::move(events.ended)};
  auto opened = co_await SolConsole::open(
      client_, *std::get<std::shared_ptr<const SessionParams>>(params), std::move(sol_events));
  if (auto* error = std::get_if<DriverError>(&opened)) {
    note_outcome(target, *error);
    report.error = *error;
    co_return report;
  }
  note_outcome(target, std::nullopt);
  report.console =
      std::make_shared<SolNodeConsole>(std::get<std::shared_ptr<SolConsole>>(std::move(opened)));
  co_return report;
}

asio::awaitable<void> IpmiDriver::shutdown() {
  co_await client_.close_all();
}

}  // namespace ironhold::bmc::ipmi
