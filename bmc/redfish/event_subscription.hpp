#pragma once
// Subscriptions of this service on a BMC's EventService (DMTF DSP0266 "Eventing"): found from
// the service root by links; older subscriptions of ours (their Destination under our prefix, or
// the one we made last) removed before a new one is made, so that a BMC never posts twice to us;
// checked later by reading the subscription back. The reading of the BMC's documents is pure
// (event_service_refusal, subscription_body, is_ours) so it is tested without a BMC.
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "bmc/redfish/redfish_transport.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold::bmc::redfish {

// Why an EventService cannot take our subscription (disabled, no Subscriptions collection, or
// no "Redfish" protocol among those it lists), or nothing when it can.
std::optional<std::string> event_service_refusal(const nlohmann::json& event_service);

// The EventDestination to POST. `event_types`: also send EventTypes (deprecated since
// EventDestination v1.5, yet required by some BMCs) with the types the service offers out of
// Alert and StatusChange; without it, every event the BMC has is asked for.
nlohmann::json subscription_body(const EventSubscriptionRequest& request,
                                 const nlohmann::json& event_service, bool event_types);

// Whether an EventDestination on the BMC is one of ours: it posts under `ours_prefix`.
bool is_ours(const nlohmann::json& destination, const std::string& ours_prefix);

boost::asio::awaitable<EventSubscriptionReport> subscribe(RedfishConnection& connection,
                                                          EventSubscriptionRequest request);
boost::asio::awaitable<SubscriptionCheck> check_subscription(RedfishConnection& connection,
                                                             std::string path);
boost::asio::awaitable<DriverOutcome> unsubscribe(RedfishConnection& connection, std::string path);

}  // namespace ironhold::bmc::redfish
