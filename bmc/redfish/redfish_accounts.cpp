// RedfishDriver's account password change (accounts.hpp) and its fresh-login check: a session
// cache of its own, so that neither a session opened with the old password nor the shared cache's
// memory of rejected credentials decides the answer; the session it opens is logged out again.
#include "bmc/redfish/accounts.hpp"
#include "bmc/redfish/redfish_driver.hpp"
#include "bmc/redfish/resources.hpp"
#include "bmc/redfish/with_connection.hpp"

namespace ironhold::bmc::redfish {

namespace asio = boost::asio;

asio::awaitable<ActionReport> RedfishDriver::change_bmc_password(const DriverTarget& target,
                                                                 std::string new_password) {
  if (!target.credentials) {
    ActionReport report;
    report.error = DriverError{DriverErrorCode::auth_failed, "the node has no BMC credentials"};
    co_return report;
  }
  auto act = [username = target.credentials->username,
              new_password = std::move(new_password)](RedfishConnection& connection) {
    return change_password(connection, username, new_password);
  };
  auto acting = with_connection(target, std::move(act));
  co_return co_await std::move(acting);
}

asio::awaitable<DriverOutcome> RedfishDriver::check_login(const DriverTarget& target) {
  DriverOutcome out;
  auto resolved = resolve_target(target);
  if (auto* e = std::get_if<DriverError>(&resolved)) {
    out.error = std::move(*e);
    co_return out;
  }
  SessionCache fresh;
  {
    RedfishConnection connection(client_, fresh, options_.transport,
                                 std::get<RedfishTarget>(std::move(resolved)));
    std::string root_path = "/redfish/v1";
    Found root = co_await get_resource(connection, std::move(root_path));
    if (auto* e = std::get_if<DriverError>(&root)) {
      out.error = std::move(*e);
    } else {
      // The root answers anyone; its Systems collection only a client that logged in.
      std::string systems = link(std::get<Resource>(root).doc, "Systems");
      if (systems.empty()) systems = "/redfish/v1/Systems";
      Found listed = co_await get_resource(connection, std::move(systems));
      if (auto* e = std::get_if<DriverError>(&listed)) out.error = std::move(*e);
    }
    out.tls_fingerprint = connection.fingerprint();
  }
  for (auto& session : fresh.take_all())
    if (session.mode == AuthMode::session) co_await log_out(client_, options_.transport, session);
  co_return out;
}

}  // namespace ironhold::bmc::redfish
