// The BMC's user accounts (AccountService.Accounts), enough for a client to change the password
// of the account it logs in with: a PATCH of Password, checked against the AccountService's
// MinPasswordLength and MaxPasswordLength and refused when it holds the user name, after which
// logins need the new password (sessions already open stay, as on iDRAC and XCC). A refused
// password is named in the error, value and all, as DMTF's PropertyValueFormatError does: a client
// must keep it out of its own logs. Documents never show a password (Password: null).
#include "sim/redfish/bmc_state.hpp"
#include "sim/redfish/errors.hpp"
#include "sim/redfish/mockup.hpp"

namespace ironhold::sim::redfish {

using nlohmann::json;

void BmcState::find_accounts() {
  const auto root = documents_.find("/redfish/v1");
  if (root == documents_.end() || !root->second.json.is_object()) return;
  account_service_path_ = link_path(root->second.json, "AccountService");
  const auto service = documents_.find(account_service_path_);
  if (service == documents_.end() || !service->second.json.is_object()) return;
  const auto collection = documents_.find(link_path(service->second.json, "Accounts"));
  if (collection == documents_.end() || !collection->second.json.is_object()) return;
  for (const auto& member : collection->second.json.value("Members", json::array())) {
    const std::string path = link_path(json{{"m", member}}, "m");
    if (documents_.count(path)) accounts_.insert(path);
  }
}

Response BmcState::patch_account(const std::string& path, const json& body) {
  json& account = documents_.at(path).json;
  const json service = documents_.count(account_service_path_)
                           ? documents_.at(account_service_path_).json
                           : json::object();
  std::optional<std::string> password;
  json changes = json::object();
  for (const auto& [key, value] : body.items()) {
    if (key == "Password") {
      if (!value.is_string()) return property_value_type_error(value.dump(), key);
      const std::string text = value.get<std::string>();
      const auto min = service.value("MinPasswordLength", 0);
      const auto max = service.value("MaxPasswordLength", 0);
      if (static_cast<int>(text.size()) < min || (max > 0 && static_cast<int>(text.size()) > max))
        return property_value_format_error(text, key);
      // As iDRAC and XCC do: a password may not contain the account's name.
      const std::string user = account.value("UserName", "");
      if (!user.empty() && text.find(user) != std::string::npos)
        return property_value_format_error(text, key);
      password = text;
      continue;
    }
    if (key != "Enabled" && key != "RoleId" && key != "Locked") return property_unknown(key);
    if (!account.contains(key)) return property_unknown(key);
    changes[key] = value;
  }
  for (const auto& [key, value] : changes.items()) account[key] = value;
  if (password) {
    ++counters_.password_changes;
    if (account.value("UserName", "") == config_.username) config_.password = *password;
  }
  changed();
  return json_response(http::status::ok, account);
}

}  // namespace ironhold::sim::redfish
