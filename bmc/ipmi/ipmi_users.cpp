// IpmiDriver's password change: the user ID of the account the node is managed with is found by
// name (Get User Access says how many IDs the channel has; Get User Name reads each), then Set
// User Password sets it, on the session opened with the current password. Passwords have at
// most 16 bytes: OpenIPMI's ipmi_sim takes the 20-byte form of Set User Password (from ipmitool
// too) and then lets no one in, with the old password or the new; a BMC left like that is lost
// to Ironhold, so longer passwords are refused before anything is sent.
#include "bmc/ipmi/bmc_link.hpp"
#include "bmc/ipmi/commands.hpp"
#include "bmc/ipmi/ipmi_driver.hpp"

namespace ironhold::bmc::ipmi {

namespace asio = boost::asio;

asio::awaitable<ActionReport> IpmiDriver::change_bmc_password(const DriverTarget& target,
                                                              std::string new_password) {
  ActionReport report;
  if (!target.credentials) {
    report.error = DriverError{DriverErrorCode::auth_failed, "the node has no BMC credentials"};
    co_return report;
  }
  if (new_password.empty() || new_password.size() > 16) {
    report.error = DriverError{DriverErrorCode::rejected,
                               "IPMI passwords set here have 1 to 16 bytes; the new one has " +
                                   std::to_string(new_password.size()) + ": nothing was changed"};
    co_return report;
  }
  const std::string& username = target.credentials->username;
  auto params = co_await session_params(target);
  if (auto* e = std::get_if<DriverError>(&params)) {
    report.error = *e;
    co_return report;
  }
  BmcLink link(client_, std::get<std::shared_ptr<const SessionParams>>(params));
  const CallResult access = co_await link.call(get_user_access(1));
  note_outcome(target, access.error);
  if (!access.ok()) {
    report.error = call_error(access, "Get User Access");
    co_return report;
  }
  const auto max_ids = parse_max_user_ids(access.data);
  if (const auto* why = std::get_if<std::string>(&max_ids)) {
    report.error = DriverError{DriverErrorCode::bad_response, *why};
    co_return report;
  }
  std::optional<std::uint8_t> user_id;
  for (std::uint8_t id = 1; id <= std::get<std::uint8_t>(max_ids) && !user_id; ++id) {
    const CallResult named = co_await link.call(get_user_name(id));
    if (!named.ok()) continue;  // an ID the BMC does not use may answer an error
    const auto name = parse_user_name(named.data);
    if (const auto* n = std::get_if<UserName>(&name); n && n->name == username) user_id = id;
  }
  if (!user_id) {
    report.error = DriverError{DriverErrorCode::unsupported,
                               "the BMC has no user named \"" + username + "\" on this channel"};
    co_return report;
  }
  const CallResult set = co_await link.call(set_user_password(*user_id, new_password));
  if (!set.ok()) {
    // The completion code says why (81h: a size it does not take); the password is not in it.
    report.error = call_error(set, "Set User Password of user " + std::to_string(*user_id));
    co_return report;
  }
  report.detail =
      "Set User Password of user " + std::to_string(*user_id) + " (\"" + username + "\")";
  co_return report;
}

}  // namespace ironhold::bmc::ipmi
