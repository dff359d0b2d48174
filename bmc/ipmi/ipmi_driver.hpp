#pragma once
// The IPMI NodeDriver: every node enrolled with driver "ipmi" (an ipmi://host[:port] endpoint)
// is served by one instance through one LanClient, so all of them share one UDP socket and the
// service's Asio loop. It remembers per node the SDR repository (read once, then only sensor
// readings), the health the sensors last gave (so the 30-second status poll is one command), the
// SEL's last addition time (so an unchanged SEL is not read again) and the entries reported.
#include <boost/asio/any_io_executor.hpp>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "bmc/ipmi/auth_backoff.hpp"
#include "bmc/ipmi/bmc_link.hpp"
#include "bmc/ipmi/lan_client.hpp"
#include "bmc/ipmi/repository_reader.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold::bmc::ipmi {

struct IpmiDriverOptions {
  LanClientOptions lan;
  ReadLimits limits;
  AuthBackoffOptions auth_backoff;
  std::function<AuthBackoff::Clock::time_point()> now = [] { return AuthBackoff::Clock::now(); };
};

class IpmiDriver final : public NodeDriver {
 public:
  IpmiDriver(boost::asio::any_io_executor executor, IpmiDriverOptions options = {});

  boost::asio::awaitable<StatusReport> poll_status(const DriverTarget& target) override;
  boost::asio::awaitable<SensorReport> poll_sensors(const DriverTarget& target) override;
  boost::asio::awaitable<InspectionReport> inspect(const DriverTarget& target) override;

  boost::asio::awaitable<ActionReport> power(const DriverTarget& target, std::string system_id,
                                             PowerAction action) override;
  boost::asio::awaitable<ActionReport> set_boot(const DriverTarget& target, std::string system_id,
                                                BootRequest boot) override;
  boost::asio::awaitable<ActionReport> identify(const DriverTarget& target, std::string system_id,
                                                bool on) override;
  boost::asio::awaitable<ActionReport> reset_controller(const DriverTarget& target) override;
  // Serial-over-LAN (sol_console.hpp), on a session of its own.
  boost::asio::awaitable<ConsoleOpenReport> open_console(const DriverTarget& target,
                                                         std::string system_id,
                                                         ConsoleEvents events) override;

  boost::asio::awaitable<void> shutdown() override;

  LanClient& client() { return client_; }

  // The one System behind an IPMI BMC.
  static constexpr const char* kSystemId = "system";

 private:
  struct NodeMemory {
    // The prepared session parameters and what they were made from: rebuilt only when the
    // target's endpoint, credentials, key or options change.
    std::shared_ptr<const SessionParams> params;
    Endpoint endpoint;
    std::optional<Credentials> credentials;
    std::optional<std::string> kg;
    nlohmann::json options;
    std::string backoff_key;
    bool rejected = false;  // the last call said auth_failed (so a success must clear the bar)

    std::shared_ptr<const SdrRepository> sdr;  // read once per driver instance
    Health sensor_health = Health::unknown;
    std::optional<std::uint32_t> sel_last_addition;
    std::set<std::string> reported_events;
  };

  // The session parameters for a target, or why there are none (no credentials, a bad option);
  // also refuses credentials that are barred after a rejection.
  boost::asio::awaitable<std::variant<std::shared_ptr<const SessionParams>, DriverError>>
  session_params(const DriverTarget& target);
  boost::asio::awaitable<std::variant<SessionParams, DriverError>> build_params(
      const DriverTarget& target);
  // The params cached for the target when it has not changed since they were made.
  std::shared_ptr<const SessionParams> cached_params(const DriverTarget& target);
  std::string backoff_key(const SessionParams& params) const;
  // Records what a call's error says about the node's credentials.
  void note_outcome(const DriverTarget& target, const std::optional<DriverError>& error);

  boost::asio::awaitable<std::variant<std::shared_ptr<const SdrRepository>, DriverError>> sdr_of(
      const DriverTarget& target, BmcLink& link);
  boost::asio::awaitable<std::variant<std::vector<SensorReading>, DriverError>> read_sensors(
      const DriverTarget& target, BmcLink& link, const SdrRepository& sdr);
  // New SEL entries as events (none read when the SEL has not changed since the last read).
  boost::asio::awaitable<std::variant<std::vector<HardwareEvent>, DriverError>> read_events(
      const DriverTarget& target, BmcLink& link);
  std::vector<HardwareEvent> first_reports(const std::string& node_id,
                                           std::vector<HardwareEvent> events);
  boost::asio::awaitable<ActionReport> send_action(const DriverTarget& target, Command command,
                                                   std::string detail);

 public:
  // Set User Password (App 47h) for the user ID whose name is the target's username, found with
  // Get User Access and Get User Name (ipmi_users.cpp).
  boost::asio::awaitable<ActionReport> change_bmc_password(const DriverTarget& target,
                                                           std::string new_password) override;

 private:
  boost::asio::any_io_executor executor_;
  IpmiDriverOptions options_;
  LanClient client_;
  AuthBackoff backoff_;
  mutable std::mutex memory_mutex_;  // never held across a suspension
  std::map<std::string, NodeMemory> memory_;
};

}  // namespace ironhold::bmc::ipmi
