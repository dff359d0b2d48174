// BmcState's serial port: the HostConsole of the first System, the Manager's SerialConsole
// property that advertises it over SSH, and the calls the SSH console server makes.
#include "sim/redfish/bmc_state.hpp"
#include "sim/redfish/mockup.hpp"

namespace ironhold::sim::redfish {

using nlohmann::json;

void BmcState::find_serial_port() {
  if (power_.empty()) return;
  console_system_ = power_.begin()->first;
  // The Manager that manages that System, else the service's first Manager.
  const json& system = documents_.at(console_system_).json;
  const json* managed_by = nullptr;
  if (const auto links = system.find("Links"); links != system.end() && links->is_object())
    if (const auto it = links->find("ManagedBy"); it != links->end() && it->is_array())
      managed_by = &*it;
  if (managed_by && !managed_by->empty() && (*managed_by)[0].is_object() &&
      (*managed_by)[0].contains("@odata.id") && (*managed_by)[0]["@odata.id"].is_string()) {
    const std::string path = resource_path((*managed_by)[0]["@odata.id"].get<std::string>());
    if (documents_.count(path)) console_manager_ = path;
  }
  if (console_manager_.empty())
    for (const auto& [path, doc] : documents_)
      if (doc.is_json && doc.json.value("@odata.type", "").rfind("#Manager.", 0) == 0) {
        console_manager_ = path;
        break;
      }
}

std::string BmcState::boot_device(const std::string& system_path) const {
  const json& system = documents_.at(system_path).json;
  const auto boot = system.find("Boot");
  if (boot == system.end() || !boot->is_object()) return "disk";
  if (boot->value("BootSourceOverrideEnabled", std::string("Disabled")) == "Disabled")
    return "disk";
  const std::string target = boot->value("BootSourceOverrideTarget", std::string("None"));
  if (target == "Pxe") return "pxe";
  if (target == "Cd") return "cdrom";
  return "disk";
}

void BmcState::advertise_ssh_console(unsigned port, const std::string& entry_command) {
  std::lock_guard lock(mutex_);
  if (console_manager_.empty()) return;
  json& manager = documents_.at(console_manager_).json;
  json ssh = {{"ServiceEnabled", true}, {"Port", port}, {"SharedWithManagerCLI", false}};
  if (!entry_command.empty()) {
    ssh["SharedWithManagerCLI"] = true;
    ssh["ConsoleEntryCommand"] = entry_command;
  }
  json& serial = manager["SerialConsole"];
  if (!serial.is_object()) serial = json::object();
  serial["ServiceEnabled"] = true;
  serial["MaxConcurrentSessions"] = 1;
  serial["ConnectTypesSupported"] = json::array({"SSH"});
  serial["SSH"] = std::move(ssh);
}

bool BmcState::console_login(const std::string& username, const std::string& password) {
  std::lock_guard lock(mutex_);
  const bool ok = username == config_.username && password == config_.password;
  ++(ok ? counters_.ssh_logins : counters_.ssh_failed_logins);
  return ok;
}

void BmcState::console_attached(bool attached) {
  std::lock_guard lock(mutex_);
  if (attached) {
    ++console_viewers_;
    ++counters_.console_sessions;
  } else if (console_viewers_ > 0) {
    --console_viewers_;
  }
}

void BmcState::console_type(std::string_view keys) {
  std::lock_guard lock(mutex_);
  console_.type(keys, config_.now());
}

std::string BmcState::console_take_output() {
  std::lock_guard lock(mutex_);
  return console_.take_output(config_.now());
}

std::optional<Clock::time_point> BmcState::console_next_output_at() const {
  std::lock_guard lock(mutex_);
  return console_.next_output_at();
}

void BmcState::console_print(const std::string& text) {
  std::lock_guard lock(mutex_);
  console_.print(text, config_.now());
}

json BmcState::console() {
  std::lock_guard lock(mutex_);
  // Output nobody is attached to still happens: take it into the history.
  if (console_viewers_ == 0) console_.take_output(config_.now());
  return {{"active", console_viewers_ > 0},
          {"powered", console_.powered()},
          {"history", printable_ascii(console_.history())},
          {"received", printable_ascii(console_.received())}};
}

}  // namespace ironhold::sim::redfish
