#pragma once
// The EventService's pure parts, without a socket or a lock: an event subscription
// (EventDestination) checked from a client's JSON and shown back as a Redfish document, which
// events it wants, and what BmcState hands the fleet's EventSender (event_sender.hpp) to deliver.
// BmcState's side is bmc_events.cpp.
#include <chrono>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ironhold::sim::redfish {

// A BMC keeps at most this many subscriptions (its collection's members), as real BMCs cap them.
inline constexpr std::size_t max_subscriptions = 20;

// What a subscription does once an event's delivery failed DeliveryRetryAttempts more times
// (DMTF EventDestination.DeliveryRetryPolicy): terminate_after_retries deletes it (our default,
// as many BMCs do), suspend_retries disables it until EventDestination.ResumeSubscription, and
// retry_forever keeps retrying the event at the same interval.
enum class RetryPolicy { terminate_after_retries, suspend_retries, retry_forever };
std::optional<RetryPolicy> retry_policy_from(std::string_view name);
const char* name_of(RetryPolicy policy);

// "http://host:port/path" or "https://..."; nothing for anything else.
struct DestinationUrl {
  bool tls = false;
  std::string host;  // without brackets for IPv6
  std::string port;
  std::string target = "/";
};
std::optional<DestinationUrl> parse_destination(std::string_view url);

// A subscription the simulator delivers to (one a client created with Protocol "Redfish").
struct Subscription {
  std::string id;
  std::string name;
  std::string destination;
  std::optional<std::string> context;
  std::vector<std::pair<std::string, std::string>> headers;  // HttpHeaders, in order
  std::vector<std::string> registry_prefixes, resource_types, event_types;
  RetryPolicy policy = RetryPolicy::terminate_after_retries;
  bool suspended = false;  // SuspendRetries gave up on it
};

// What --state-dir keeps of a subscription (headers included: the file is private), and back;
// nothing for a saved object that does not fit.
nlohmann::json to_saved(const Subscription& s);
std::optional<Subscription> subscription_from_saved(const nlohmann::json& saved);

// The EventDestination document at `path` (HttpHeaders null: it is write-only).
nlohmann::json subscription_document(const std::string& path, const Subscription& s);
// For describe(): [{"id", "destination", "context" (null when none), "state"}] (no headers).
nlohmann::json describe_subscriptions(const std::map<std::string, Subscription>& by_path);

// A subscription's properties checked: either the error to answer (a Redfish error's message key
// and its arguments) or the values. `creating`: a POST (Destination and Protocol required,
// everything settable) rather than a PATCH (Context, DeliveryRetryPolicy and HttpHeaders only).
struct SubscriptionProblem {
  std::string message;  // "PropertyMissing", "PropertyValueTypeError", ...
  std::string value;    // the offending value (JSON text), when the message takes one
  std::string property;
};
// `event_types`: the EventService's EventTypesForSubscription.
std::optional<SubscriptionProblem> apply_subscription_body(
    const nlohmann::json& body, bool creating, const std::vector<std::string>& event_types,
    Subscription& into);

// The registry of a MessageId ("ResourceEvent" of "ResourceEvent.1.0.ResourceStatusChangedOK").
std::string registry_of(const std::string& message_id);
// The resource type an @odata.type names ("ComputerSystem" of "#ComputerSystem.v1_20_0...").
std::string type_of(const std::string& odata_type);

// Whether a subscription's filters let `record` (one Event's EventRecord) through.
// `origin_types`: the names its OriginOfCondition goes by ("ComputerSystem", "Systems").
bool wants(const Subscription& s, const nlohmann::json& record,
           const std::vector<std::string>& origin_types);

// One event document for one subscription, as BmcState hands it on.
struct EventDelivery {
  unsigned bmc = 0;          // the fleet's index of the BMC
  std::string subscription;  // the subscription's @odata.id
  std::string body;          // the Event document
};

// Where a subscription's events go now, as the EventSender asks before each attempt.
struct DeliveryTarget {
  DestinationUrl url;
  std::vector<std::pair<std::string, std::string>> headers;
  unsigned retry_attempts = 3;              // the EventService's DeliveryRetryAttempts
  std::chrono::seconds retry_interval{60};  // its DeliveryRetryIntervalSeconds
  RetryPolicy policy = RetryPolicy::terminate_after_retries;
};

// A reset's power transition, as BmcState hands it on: the fleet calls
// BmcState::power_settled(system, generation) once `in` has passed.
struct PowerSettle {
  unsigned bmc = 0;
  std::string system;  // the System's @odata.id
  std::chrono::milliseconds in{0};
  std::uint64_t generation = 0;
};

}  // namespace ironhold::sim::redfish
