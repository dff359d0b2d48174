#include "bmc/redfish/event_subscription.hpp"

#include <algorithm>

#include "bmc/redfish/json_read.hpp"
#include "bmc/redfish/resources.hpp"

namespace ironhold::bmc::redfish {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

// A BMC keeps a few dozen subscriptions at most; reading more members than that is a broken
// collection, not a fleet of listeners.
constexpr std::size_t kMaxSubscriptionsRead = 64;

template <class Report>
Report failed(const RedfishConnection& connection, DriverError error) {
  Report report;
  report.error = std::move(error);
  report.tls_fingerprint = connection.fingerprint();
  return report;
}

bool offers(const json& event_service, std::string_view list, std::string_view value) {
  const json* values = read_array(&event_service, list);
  if (!values) return false;
  return std::any_of(values->begin(), values->end(),
                     [&](const json& v) { return v.is_string() && v.get<std::string>() == value; });
}

asio::awaitable<CallResult> send(RedfishConnection& connection, std::string method,
                                 std::string path, std::optional<json> body) {
  auto exchanging = connection.exchange(std::move(method), std::move(path), std::move(body), {});
  CallResult result = co_await std::move(exchanging);
  co_return result;
}

// DELETE of one subscription: gone already (404, 410) is as good as removed.
asio::awaitable<std::optional<DriverError>> remove(RedfishConnection& connection,
                                                   std::string path) {
  auto deleting = send(connection, "DELETE", path, std::nullopt);
  CallResult result = co_await std::move(deleting);
  if (auto* e = std::get_if<DriverError>(&result)) co_return std::move(*e);
  const auto& reply = std::get<RedfishReply>(result);
  if (reply.status >= 400 && reply.status != 404 && reply.status != 410)
    co_return error_from_status(reply.status, reply.body, "DELETE " + path);
  co_return std::nullopt;
}

}  // namespace

std::optional<std::string> event_service_refusal(const json& event_service) {
  if (read_bool(&event_service, "ServiceEnabled") == false)
    return "the BMC's EventService is disabled (ServiceEnabled false)";
  if (link(event_service, "Subscriptions").empty())
    return "the BMC's EventService has no Subscriptions collection";
  // Services list the protocols they deliver by only since EventService v1.7; none listed means
  // Redfish (the protocol every EventService has).
  if (read_array(&event_service, "SupportedDeliveryProtocols") &&
      !offers(event_service, "SupportedDeliveryProtocols", "Redfish"))
    return "the BMC's EventService does not deliver by the Redfish protocol";
  return std::nullopt;
}

json subscription_body(const EventSubscriptionRequest& request, const json& event_service,
                       bool event_types) {
  json body = {
      {"Destination", request.destination}, {"Protocol", "Redfish"}, {"Context", request.context}};
  if (event_types) {
    json types = json::array();
    for (std::string_view type : {"Alert", "StatusChange"})
      if (offers(event_service, "EventTypesForSubscription", type)) types.push_back(type);
    if (!types.empty()) body["EventTypes"] = std::move(types);
  }
  return body;
}

bool is_ours(const json& destination, const std::string& ours_prefix) {
  const auto url = read_string(&destination, "Destination");
  return url && !ours_prefix.empty() && url->starts_with(ours_prefix);
}

asio::awaitable<EventSubscriptionReport> subscribe(RedfishConnection& connection,
                                                   EventSubscriptionRequest request) {
  using Report = EventSubscriptionReport;
  auto reading_root = get_resource(connection, "/redfish/v1/");
  Found root = co_await std::move(reading_root);
  if (auto* e = std::get_if<DriverError>(&root)) co_return failed<Report>(connection, *e);
  std::string service_path = link(std::get<Resource>(root).doc, "EventService");
  if (service_path.empty())
    co_return failed<Report>(connection,
                             {DriverErrorCode::unsupported, "the BMC has no EventService"});
  auto reading_service = get_resource(connection, service_path);
  Found service = co_await std::move(reading_service);
  if (auto* e = std::get_if<DriverError>(&service)) co_return failed<Report>(connection, *e);
  const json event_service = std::get<Resource>(std::move(service)).doc;
  if (auto refusal = event_service_refusal(event_service))
    co_return failed<Report>(connection, {DriverErrorCode::unsupported, *refusal});
  const std::string collection = link(event_service, "Subscriptions");

  // Ours from before go first: a BMC caps its subscriptions, and two of ours would post each
  // event twice.
  Report report;
  auto listing = get_resource(connection, collection);
  Found listed = co_await std::move(listing);
  if (auto* e = std::get_if<DriverError>(&listed)) co_return failed<Report>(connection, *e);
  std::vector<std::string> members = read_links(&std::get<Resource>(listed).doc, "Members");
  if (members.size() > kMaxSubscriptionsRead) members.resize(kMaxSubscriptionsRead);
  for (const std::string& member : members) {
    bool stale = member == request.previous;
    if (!stale) {
      auto reading = get_resource(connection, member);
      Found found = co_await std::move(reading);
      stale = std::holds_alternative<Resource>(found) &&
              is_ours(std::get<Resource>(found).doc, request.ours_prefix);
    }
    if (!stale) continue;
    auto removing = remove(connection, member);
    if (auto error = co_await std::move(removing))
      co_return failed<Report>(connection, std::move(*error));
    ++report.removed;
  }

  // With EventTypes first where the service lists them (older BMCs require them), then without
  // (newer ones refuse the deprecated property).
  const bool lists_types = read_array(&event_service, "EventTypesForSubscription") != nullptr;
  std::optional<DriverError> refused;
  const int forms = lists_types ? 2 : 1;
  for (int form = 0; form < forms; ++form) {
    const bool with_types = lists_types && form == 0;
    auto posting =
        send(connection, "POST", collection, subscription_body(request, event_service, with_types));
    CallResult result = co_await std::move(posting);
    if (auto* e = std::get_if<DriverError>(&result)) co_return failed<Report>(connection, *e);
    const auto& reply = std::get<RedfishReply>(result);
    if (reply.status >= 200 && reply.status < 300) {
      report.subscription = reply.location ? path_of(*reply.location) : std::string();
      if (report.subscription.empty()) report.subscription = id_of(reply.body);
      if (report.subscription.empty())
        co_return failed<Report>(connection,
                                 {DriverErrorCode::bad_response,
                                  "the BMC accepted the subscription but did not say where it is"});
      report.tls_fingerprint = connection.fingerprint();
      co_return report;
    }
    refused = error_from_status(reply.status, reply.body, "POST " + collection);
    if (reply.status != 400) break;  // only a refused body is worth another form
  }
  co_return failed<Report>(connection, std::move(*refused));
}

asio::awaitable<SubscriptionCheck> check_subscription(RedfishConnection& connection,
                                                      std::string path) {
  auto reading = send(connection, "GET", path, std::nullopt);
  CallResult result = co_await std::move(reading);
  if (auto* e = std::get_if<DriverError>(&result))
    co_return failed<SubscriptionCheck>(connection, *e);
  const auto& reply = std::get<RedfishReply>(result);
  SubscriptionCheck check;
  check.tls_fingerprint = connection.fingerprint();
  if (reply.status == 404 || reply.status == 410) co_return check;
  if (reply.status >= 400)
    co_return failed<SubscriptionCheck>(connection,
                                        error_from_status(reply.status, reply.body, "GET " + path));
  check.state = SubscriptionState::present;
  check.destination = read_string(&reply.body, "Destination");
  co_return check;
}

asio::awaitable<DriverOutcome> unsubscribe(RedfishConnection& connection, std::string path) {
  DriverOutcome outcome;
  auto removing = remove(connection, std::move(path));
  outcome.error = co_await std::move(removing);
  outcome.tls_fingerprint = connection.fingerprint();
  co_return outcome;
}

}  // namespace ironhold::bmc::redfish
