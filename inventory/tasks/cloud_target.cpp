#include "inventory/tasks/cloud_target.hpp"

namespace ironhold::tasks {

namespace asio = boost::asio;

namespace {

ActionReport unsupported(const std::string& what) {
  ActionReport report;
  report.error = DriverError{DriverErrorCode::unsupported, "a cloud instance has no " + what};
  return report;
}

}  // namespace

asio::awaitable<ActionReport> CloudTarget::power(PowerAction action) {
  return cloud_.power(node_id_, action);
}

asio::awaitable<ActionReport> CloudTarget::set_boot(BootRequest) {
  co_return unsupported("boot device setting");
}

asio::awaitable<ActionReport> CloudTarget::identify(bool) {
  co_return unsupported("identify LED");
}

asio::awaitable<ActionReport> CloudTarget::insert_virtual_media(std::string) {
  ActionReport report;
  report.error = DriverError{DriverErrorCode::unsupported, "a cloud instance has no virtual media"};
  co_return report;
}

asio::awaitable<ActionReport> CloudTarget::eject_virtual_media() {
  ActionReport report;
  report.error = DriverError{DriverErrorCode::unsupported, "a cloud instance has no virtual media"};
  co_return report;
}

asio::awaitable<BiosReport> CloudTarget::read_bios() {
  BiosReport report;
  report.error =
      DriverError{DriverErrorCode::unsupported, "a cloud instance's BIOS is its provider's"};
  co_return report;
}

asio::awaitable<ActionReport> CloudTarget::write_bios(BiosChange) {
  ActionReport report;
  report.error =
      DriverError{DriverErrorCode::unsupported, "a cloud instance's BIOS is its provider's"};
  co_return report;
}

asio::awaitable<ActionReport> CloudTarget::change_bmc_password(std::string) {
  ActionReport report;
  report.error = DriverError{DriverErrorCode::unsupported, "a cloud instance has no BMC account"};
  co_return report;
}

asio::awaitable<DriverOutcome> CloudTarget::check_login(Credentials) {
  DriverOutcome out;
  out.error = DriverError{DriverErrorCode::unsupported, "a cloud instance has no BMC account"};
  co_return out;
}

asio::awaitable<ActionReport> CloudTarget::rebuild(RebuildRequest request) {
  return cloud_.rebuild(node_id_, std::move(request));
}

asio::awaitable<TargetReading> CloudTarget::read() {
  // The call (which copies the id into its frame) stays out of the co_await expression: GCC 12
  // destroys temporaries inside one too early.
  auto describing = cloud_.describe(node_id_);
  InstanceReport report = co_await std::move(describing);
  TargetReading reading;
  if (report.error) {
    reading.error = report.error;
  } else if (!report.instance || report.instance->gone) {
    reading.error = DriverError{DriverErrorCode::bad_response,
                                "the provider no longer knows this instance (terminated?)"};
  } else {
    reading.power = report.instance->power_state;
    reading.detail = "provider state " + report.instance->provider_state;
  }
  co_return reading;
}

asio::awaitable<TargetInspection> CloudTarget::inspect() {
  auto inspecting = cloud_.inspect(node_id_);  // outside the co_await expression, as in read()
  InstanceReport report = co_await std::move(inspecting);
  TargetInspection out;
  if (report.error) {
    out.error = report.error;
  } else if (!report.instance || report.instance->gone) {
    out.error = DriverError{DriverErrorCode::bad_response,
                            "the provider no longer knows this instance (terminated?)"};
  } else {
    const CloudInstance& i = *report.instance;
    out.detail = "provider state " + i.provider_state + "; the account's sync records it";
    out.result = {{"provider_state", i.provider_state},
                  {"power_state", to_string(i.power_state)},
                  {"gpu_count", i.summary.gpu_count}};
  }
  co_return out;
}

namespace {

FirmwareUpdateReport no_firmware() {
  FirmwareUpdateReport report;
  report.state = UpdateState::failed;
  report.error = DriverError{DriverErrorCode::unsupported,
                             "a cloud instance's firmware is its provider's to update"};
  return report;
}

}  // namespace

asio::awaitable<FirmwareUpdateReport> CloudTarget::start_firmware_update(FirmwareUpdateRequest) {
  co_return no_firmware();
}
asio::awaitable<FirmwareUpdateReport> CloudTarget::firmware_update_status(std::string) {
  co_return no_firmware();
}
asio::awaitable<FirmwareUpdateReport> CloudTarget::find_firmware_update(FirmwareUpdateRequest,
                                                                        nlohmann::json) {
  co_return no_firmware();
}

}  // namespace ironhold::tasks
