#include "inventory/tasks/bmc_target.hpp"

#include <atomic>

#include "inventory/util/on_pool.hpp"

namespace ironhold::tasks {

namespace asio = boost::asio;

asio::awaitable<ActionReport> BmcTarget::power(PowerAction action) {
  return driver_.power(target_, system_id_, action);
}

asio::awaitable<ActionReport> BmcTarget::set_boot(BootRequest boot) {
  return driver_.set_boot(target_, system_id_, boot);
}

asio::awaitable<ActionReport> BmcTarget::identify(bool on) {
  return driver_.identify(target_, system_id_, on);
}

asio::awaitable<ActionReport> BmcTarget::insert_virtual_media(std::string image_url) {
  return driver_.insert_virtual_media(target_, system_id_, std::move(image_url));
}

asio::awaitable<ActionReport> BmcTarget::eject_virtual_media() {
  return driver_.eject_virtual_media(target_, system_id_);
}

asio::awaitable<BiosReport> BmcTarget::read_bios() {
  return driver_.read_bios(target_, system_id_);
}

asio::awaitable<ActionReport> BmcTarget::write_bios(BiosChange change) {
  return driver_.write_bios(target_, system_id_, std::move(change));
}

asio::awaitable<ActionReport> BmcTarget::change_bmc_password(std::string new_password) {
  return driver_.change_bmc_password(target_, std::move(new_password));
}

asio::awaitable<DriverOutcome> BmcTarget::check_login(Credentials credentials) {
  DriverTarget other = target_;
  other.credentials = std::move(credentials);
  // A driver keeps what it learnt per node (sessions, a rejected password's back-off): each check
  // is kept apart from what the node's polls use, and from the checks before it.
  static std::atomic<unsigned long> checks{0};
  other.node_id += "#login-check-" + std::to_string(++checks);
  other.previous_failures = 0;
  other.on_wait = nullptr;
  // Awaited here, not returned: the driver's coroutine refers to `other`, which lives in this
  // frame.
  DriverOutcome outcome = co_await driver_.check_login(other);
  co_return outcome;
}

asio::awaitable<ActionReport> BmcTarget::rebuild(RebuildRequest) {
  ActionReport report;
  report.error = DriverError{
      DriverErrorCode::unsupported,
      "an owned server is reprovisioned over PXE or virtual media, not rebuilt in place"};
  co_return report;
}

asio::awaitable<FirmwareUpdateReport> BmcTarget::start_firmware_update(
    FirmwareUpdateRequest request) {
  return driver_.start_firmware_update(target_, std::move(request));
}

asio::awaitable<FirmwareUpdateReport> BmcTarget::firmware_update_status(std::string monitor) {
  return driver_.firmware_update_status(target_, std::move(monitor));
}

asio::awaitable<FirmwareUpdateReport> BmcTarget::find_firmware_update(FirmwareUpdateRequest request,
                                                                      nlohmann::json sent) {
  return driver_.find_firmware_update(target_, std::move(request), std::move(sent));
}

asio::awaitable<TargetReading> BmcTarget::read() {
  StatusReport report = co_await driver_.poll_status(target_);
  TargetReading reading;
  if (report.error) {
    reading.error = report.error;
    co_return reading;
  }
  const SystemStatus* system = nullptr;
  for (const auto& s : report.systems)
    if (system_id_.empty() || s.system_id == system_id_) {
      system = &s;
      break;
    }
  if (!system) {
    reading.error = DriverError{DriverErrorCode::bad_response,
                                "the BMC no longer lists System \"" + system_id_ + "\""};
    co_return reading;
  }
  reading.power = system->power_state;
  reading.last_reset = system->last_reset_time;
  reading.detail = "power " + std::string(to_string(system->power_state));
  if (system->last_reset_time) reading.detail += ", last reset " + *system->last_reset_time;
  co_return reading;
}

asio::awaitable<TargetInspection> BmcTarget::inspect() {
  TargetInspection out;
  if (!polls_) {
    out.error = DriverError{DriverErrorCode::unsupported, "this server records no inspections"};
    co_return out;
  }
  const auto started = std::chrono::steady_clock::now();
  InspectionReport report = co_await driver_.inspect(target_);
  std::size_t components = 0, firmware = 0;
  for (const auto& system : report.systems) {
    components += system.components.size();
    firmware += system.firmware.size();
  }
  if (report.error) {
    out.error = report.error;
  } else {
    out.detail = std::to_string(report.systems.size()) + " System(s), " +
                 std::to_string(components) + " components, " + std::to_string(firmware) +
                 " firmware items";
    out.result = {
        {"systems", report.systems.size()}, {"components", components}, {"firmware", firmware}};
    for (const auto& system : report.systems)
      if (system_id_.empty() || system.system_id == system_id_) {
        out.firmware = system.firmware;
        break;
      }
  }
  // Recorded like the poller's inspection (errors too: the node shows what the BMC said), and
  // the daily inspection counts from now.
  db::PollResult result;
  result.kind = db::PollKind::inventory;
  result.node_id = target_.node_id;
  result.duration = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started);
  result.next_in = std::chrono::hours(24);
  result.report = std::move(report);
  // With no lease of its own on the schedule: a poller's inspection of the node in flight (this
  // instance's too, whose leases carry the same name) keeps its lease and records its own.
  auto record = [polls = polls_, result = std::move(result)] {
    const db::PollResult one[] = {result};
    polls->record(one, std::string());
  };
  co_await on_pool(pool_, std::move(record));
  co_return out;
}

}  // namespace ironhold::tasks
