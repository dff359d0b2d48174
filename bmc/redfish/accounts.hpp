#pragma once
// Redfish user accounts: the password of the account a node is managed with, changed through the
// AccountService. The account is the Accounts member whose UserName is the one Ironhold logs in
// as, found from the service root by links. A PATCH of its Password (with If-Match when the BMC
// gave an ETag) changes it; the AccountService's MinPasswordLength and MaxPasswordLength are
// checked first, so a password the BMC would refuse is never sent. BMCs name a refused value in
// their error (DMTF's PropertyValueFormatError does): every message is redacted before it leaves.
#include <boost/asio/awaitable.hpp>
#include <string>

#include "bmc/redfish/redfish_transport.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold::bmc::redfish {

// `text` with every occurrence of `secret` (non-empty) replaced by "********".
std::string redact(std::string text, const std::string& secret);

boost::asio::awaitable<ActionReport> change_password(RedfishConnection& connection,
                                                     std::string username,
                                                     std::string new_password);

}  // namespace ironhold::bmc::redfish
