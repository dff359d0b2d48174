#include "bmc/redfish/accounts.hpp"

#include "bmc/redfish/actions.hpp"
#include "bmc/redfish/json_read.hpp"
#include "bmc/redfish/resources.hpp"

namespace ironhold::bmc::redfish {

namespace asio = boost::asio;
using nlohmann::json;

namespace account_parts {

struct Account {
  Resource account;
  json service;  // the AccountService, for its password rules
};
using AccountOrError = std::variant<Account, DriverError>;

asio::awaitable<AccountOrError> find_account(RedfishConnection& connection, std::string username) {
  std::string root_path = "/redfish/v1";
  Found root = co_await get_resource(connection, std::move(root_path));
  if (auto* e = std::get_if<DriverError>(&root)) co_return std::move(*e);
  std::string service_path = link(std::get<Resource>(root).doc, "AccountService");
  if (service_path.empty())
    co_return DriverError{DriverErrorCode::unsupported,
                          "the BMC's service root links no AccountService"};
  Found service = co_await get_resource(connection, std::move(service_path));
  if (auto* e = std::get_if<DriverError>(&service)) co_return std::move(*e);
  const json service_doc = std::get<Resource>(service).doc;
  std::string accounts_path = link(service_doc, "Accounts");
  if (accounts_path.empty())
    co_return DriverError{DriverErrorCode::unsupported,
                          "the BMC's AccountService links no Accounts"};
  Found collection = co_await get_resource(connection, std::move(accounts_path));
  if (auto* e = std::get_if<DriverError>(&collection)) co_return std::move(*e);
  for (const auto& member : read_links(&std::get<Resource>(collection).doc, "Members")) {
    std::string path = member;
    Found account = co_await get_resource(connection, std::move(path));
    auto* found = std::get_if<Resource>(&account);
    if (found && read_string(&found->doc, "UserName") == username)
      co_return Account{std::move(*found), service_doc};
  }
  co_return DriverError{DriverErrorCode::unsupported, "the BMC lists no account named \"" +
                                                          username + "\" in its AccountService"};
}

}  // namespace account_parts

std::string redact(std::string text, const std::string& secret) {
  if (secret.empty()) return text;
  for (auto at = text.find(secret); at != std::string::npos; at = text.find(secret, at + 8))
    text.replace(at, secret.size(), "********");
  return text;
}

asio::awaitable<ActionReport> change_password(RedfishConnection& connection, std::string username,
                                              std::string new_password) {
  auto finding = account_parts::find_account(connection, username);
  account_parts::AccountOrError found = co_await std::move(finding);
  if (auto* e = std::get_if<DriverError>(&found)) {
    e->message = redact(e->message, new_password);
    co_return action_report(connection, "", std::move(*e));
  }
  // Named members, not a structured binding: GCC 12 miscompiles those in coroutines.
  const Resource& account = std::get<account_parts::Account>(found).account;
  const json& service = std::get<account_parts::Account>(found).service;
  const auto min = read_number(&service, "MinPasswordLength");
  const auto max = read_number(&service, "MaxPasswordLength");
  const auto length = static_cast<double>(new_password.size());
  if ((min && length < *min) || (max && *max > 0 && length > *max))
    co_return action_report(
        connection, "",
        DriverError{DriverErrorCode::rejected,
                    "the BMC takes passwords of " +
                        std::to_string(static_cast<int>(min.value_or(0))) + " to " +
                        (max ? std::to_string(static_cast<int>(*max)) : std::string("any")) +
                        " characters; the new one has " + std::to_string(new_password.size()) +
                        ": nothing was changed"});
  http::HeaderList headers;
  if (account.etag) headers.push_back({"If-Match", *account.etag});
  std::string method = "PATCH";
  std::string path = account.path;
  std::optional<json> body = json{{"Password", new_password}};
  CallResult result = co_await connection.call(std::move(method), std::move(path), std::move(body),
                                               std::move(headers));
  if (auto* e = std::get_if<DriverError>(&result)) {
    e->message = "the BMC refused the new password of \"" + username +
                 "\": " + redact(e->message, new_password);
    co_return action_report(connection, "", std::move(*e));
  }
  co_return action_report(connection,
                          "PATCH Password of " + account.path + " (\"" + username + "\")");
}

}  // namespace ironhold::bmc::redfish
