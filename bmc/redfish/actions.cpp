// The actions, sent: each finds its resource from the service root by links (never a fixed
// path), reads what the BMC allows, and sends what plan_reset / boot_patch / identify_patch say.
#include "bmc/redfish/actions.hpp"

#include <algorithm>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "bmc/redfish/resources.hpp"

namespace ironhold::bmc::redfish {

namespace asio = boost::asio;
using nlohmann::json;

ActionReport action_report(const RedfishConnection& connection, std::string detail,
                           std::optional<DriverError> error) {
  ActionReport out;
  out.detail = std::move(detail);
  out.error = std::move(error);
  out.tls_fingerprint = connection.fingerprint();
  return out;
}

asio::awaitable<std::optional<DriverError>> send_request(RedfishConnection& connection,
                                                         std::string method, std::string path,
                                                         json body) {
  http::HeaderList no_headers;
  CallResult result = co_await connection.call(std::move(method), std::move(path), std::move(body),
                                               std::move(no_headers));
  if (auto* e = std::get_if<DriverError>(&result)) co_return std::move(*e);
  co_return std::nullopt;
}

namespace {

// The allowed ResetType values: on the action itself, or in its @Redfish.ActionInfo.
asio::awaitable<std::optional<std::vector<std::string>>> allowed_reset_types(
    RedfishConnection& connection, const json& action) {
  if (auto listed = allowable_values(action, "ResetType")) co_return listed;
  std::string info_path;
  if (const auto it = action.find("@Redfish.ActionInfo"); it != action.end() && it->is_string())
    info_path = path_of(it->get<std::string>());
  if (info_path.empty()) co_return std::nullopt;
  Found info = co_await get_resource(connection, std::move(info_path));
  auto* resource = std::get_if<Resource>(&info);
  if (resource == nullptr) co_return std::nullopt;
  const auto parameters = resource->doc.find("Parameters");
  if (parameters == resource->doc.end() || !parameters->is_array()) co_return std::nullopt;
  for (const auto& p : *parameters) {
    if (!p.is_object() || p.value("Name", std::string()) != "ResetType") continue;
    const auto values = p.find("AllowableValues");
    if (values == p.end() || !values->is_array()) break;
    std::vector<std::string> out;
    for (const auto& v : *values)
      if (v.is_string()) out.push_back(v.get<std::string>());
    co_return out;
  }
  co_return std::nullopt;
}

asio::awaitable<std::optional<DriverError>> post_reset(RedfishConnection& connection,
                                                       const std::string& target,
                                                       const std::string& type) {
  auto sending = send_request(connection, "POST", target, json{{"ResetType", type}});
  co_return co_await std::move(sending);
}

asio::awaitable<std::optional<DriverError>> wait_for_off(RedfishConnection& connection,
                                                         const std::string& system_path,
                                                         const ActionOptions& options) {
  const auto deadline = std::chrono::steady_clock::now() + options.power_off_timeout;
  asio::steady_timer timer(co_await asio::this_coro::executor);
  std::string state;
  for (;;) {
    std::string path = system_path;
    Found found = co_await get_resource(connection, std::move(path));
    if (auto* e = std::get_if<DriverError>(&found)) co_return std::move(*e);
    state = std::get<Resource>(found).doc.value("PowerState", std::string());
    if (state == "Off") co_return std::nullopt;
    if (std::chrono::steady_clock::now() + options.power_poll_interval > deadline) break;
    timer.expires_after(options.power_poll_interval);
    co_await timer.async_wait(asio::use_awaitable);
  }
  co_return DriverError{DriverErrorCode::timeout,
                        "ForceOff sent, but the System is still " +
                            (state.empty() ? std::string("not Off") : state) + " after " +
                            std::to_string(options.power_off_timeout.count() / 1000) + " s"};
}

// A resource's reset action (`name`, e.g. "#ComputerSystem.Reset") and its target path;
// the target is empty when the resource has no such action.
struct ResetAction {
  json action;
  std::string target;
};

ResetAction find_reset_action(const Resource& resource, const std::string& name) {
  ResetAction out;
  if (const auto actions = resource.doc.find("Actions");
      actions != resource.doc.end() && actions->is_object())
    out.action = actions->value(name, json());
  if (out.action.is_object())
    if (const auto target = out.action.find("target");
        target != out.action.end() && target->is_string())
      out.target = path_of(target->get<std::string>());
  return out;
}

// A BMC that will not take Boot on the System itself (iDRAC 10 calls it read-only; others take
// it only as a pending setting) takes it through the System's @Redfish.Settings object, applied
// at the next reset, which a reprovision sends next.
asio::awaitable<ActionReport> boot_through_settings(RedfishConnection& connection,
                                                    const SettingsTarget& settings, json patch,
                                                    std::string detail, DriverError refused) {
  auto planned = settings_patch(std::move(patch), settings);
  if (auto* e = std::get_if<DriverError>(&planned))
    co_return action_report(connection, "",
                            DriverError{e->code, refused.message + "; " + e->message});
  json body_json = std::get<json>(std::move(planned));
  std::string apply_time;
  if (const auto it = body_json.find("@Redfish.SettingsApplyTime"); it != body_json.end())
    apply_time = it->value("ApplyTime", std::string());
  std::string method = "PATCH";
  std::string path = settings.path;
  std::optional<json> body = std::move(body_json);
  http::HeaderList no_headers;
  CallResult result = co_await connection.exchange(std::move(method), std::move(path),
                                                   std::move(body), std::move(no_headers));
  if (auto* e = std::get_if<DriverError>(&result))
    co_return action_report(connection, "",
                            DriverError{e->code, refused.message + "; then " + e->message});
  const RedfishReply& reply = std::get<RedfishReply>(result);
  if (reply.status < 200 || reply.status >= 300) {
    DriverError second = error_from_status(reply.status, reply.body, "PATCH " + settings.path);
    co_return action_report(connection, "",
                            DriverError{second.code, refused.message + "; then " + second.message});
  }
  detail += " through the settings object " + settings.path;
  if (!apply_time.empty()) detail += " (ApplyTime " + apply_time + ")";
  co_return action_report(connection, detail);
}

}  // namespace

asio::awaitable<ActionReport> power_action(RedfishConnection& connection, std::string system_id,
                                           PowerAction action, ActionOptions options) {
  std::string collection = "Systems";
  Found system = co_await find_member(connection, std::move(collection), std::move(system_id));
  if (auto* e = std::get_if<DriverError>(&system))
    co_return action_report(connection, "", std::move(*e));
  const Resource& resource = std::get<Resource>(system);
  const ResetAction reset = find_reset_action(resource, "#ComputerSystem.Reset");
  const std::string& target = reset.target;
  if (target.empty())
    co_return action_report(
        connection, "",
        DriverError{DriverErrorCode::unsupported, "the System has no ComputerSystem.Reset action"});

  const auto allowed = co_await allowed_reset_types(connection, reset.action);
  auto plan = plan_reset(action, allowed);
  if (auto* e = std::get_if<DriverError>(&plan))
    co_return action_report(connection, "", std::move(*e));
  const auto& steps = std::get<std::vector<std::string>>(plan);
  std::string detail;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (i > 0) {
      // The off+on fallback of a cycle: On only once the System is really off.
      auto waited = co_await wait_for_off(connection, resource.path, options);
      if (waited) co_return action_report(connection, detail, std::move(waited));
    }
    auto failed = co_await post_reset(connection, target, steps[i]);
    if (failed) co_return action_report(connection, detail, std::move(failed));
    detail += (i == 0 ? "ResetType " : " then ") + steps[i];
  }
  co_return action_report(connection, detail);
}

asio::awaitable<ActionReport> set_boot_override(RedfishConnection& connection,
                                                std::string system_id, BootRequest boot) {
  std::string collection = "Systems";
  Found system = co_await find_member(connection, std::move(collection), std::move(system_id));
  if (auto* e = std::get_if<DriverError>(&system))
    co_return action_report(connection, "", std::move(*e));
  Resource resource = std::get<Resource>(std::move(system));
  const std::string wanted = boot_target(boot.device);
  const json boot_doc = resource.doc.value("Boot", json::object());
  if (const auto allowed = allowable_values(boot_doc, "BootSourceOverrideTarget");
      allowed && std::find(allowed->begin(), allowed->end(), wanted) == allowed->end()) {
    std::string list;
    for (const auto& v : *allowed) list += (list.empty() ? "" : ", ") + v;
    co_return action_report(
        connection, "",
        DriverError{DriverErrorCode::unsupported,
                    "boot target " + wanted + " not allowed by the BMC (allowed: " + list + ")"});
  }
  const json patch = boot_patch(boot, resource.doc);
  std::string detail = "PATCH Boot";
  for (const auto& [name, value] : patch["Boot"].items())
    detail += " " + name + "=" + value.get<std::string>();

  // With an ETag, If-Match makes the PATCH fail (412) instead of overwriting a change made in
  // between; then the resource is read again, once, and the PATCH repeated with the new ETag.
  for (int attempt = 1;; ++attempt) {
    http::HeaderList headers;
    if (resource.etag) headers.emplace_back("If-Match", *resource.etag);
    std::string method = "PATCH";
    std::string path = resource.path;
    std::optional<json> body = patch;
    CallResult result = co_await connection.exchange(std::move(method), std::move(path),
                                                     std::move(body), std::move(headers));
    if (auto* e = std::get_if<DriverError>(&result))
      co_return action_report(connection, "", std::move(*e));
    const RedfishReply& reply = std::get<RedfishReply>(result);
    if (reply.status == 412 && attempt == 1) {
      std::string again = resource.path;
      Found reread = co_await get_resource(connection, std::move(again));
      if (auto* e = std::get_if<DriverError>(&reread))
        co_return action_report(connection, "", std::move(*e));
      resource = std::get<Resource>(std::move(reread));
      continue;
    }
    const std::string label = "PATCH " + resource.path;
    if (reply.status < 200 || reply.status >= 300) {
      DriverError refused = error_from_status(reply.status, reply.body, label);
      const auto settings = settings_target(resource.doc);
      if (!settings || (reply.status != 400 && reply.status != 403 && reply.status != 405))
        co_return action_report(connection, "", std::move(refused));
      co_return co_await boot_through_settings(connection, *settings, patch, std::move(detail),
                                               std::move(refused));
    }
    if (resource.etag) detail += " (If-Match " + *resource.etag + ")";
    co_return action_report(connection, detail);
  }
}

asio::awaitable<ActionReport> set_identify(RedfishConnection& connection, std::string system_id,
                                           bool on) {
  std::string collection = "Systems";
  Found system = co_await find_member(connection, std::move(collection), std::move(system_id));
  if (auto* e = std::get_if<DriverError>(&system))
    co_return action_report(connection, "", std::move(*e));
  const Resource& resource = std::get<Resource>(system);
  auto patch = identify_patch(resource.doc, on);
  if (!patch)
    co_return action_report(
        connection, "",
        DriverError{DriverErrorCode::unsupported,
                    "the System has neither LocationIndicatorActive nor IndicatorLED"});
  const std::string detail = "PATCH " + patch->dump();
  std::string method = "PATCH";
  std::string path = resource.path;
  http::HeaderList no_headers;
  CallResult result = co_await connection.call(std::move(method), std::move(path), std::move(patch),
                                               std::move(no_headers));
  if (auto* e = std::get_if<DriverError>(&result))
    co_return action_report(connection, "", std::move(*e));
  co_return action_report(connection, detail);
}

asio::awaitable<ActionReport> reset_manager(RedfishConnection& connection) {
  std::string collection = "Managers";
  std::string first;
  Found manager = co_await find_member(connection, std::move(collection), std::move(first));
  if (auto* e = std::get_if<DriverError>(&manager))
    co_return action_report(connection, "", std::move(*e));
  const ResetAction reset = find_reset_action(std::get<Resource>(manager), "#Manager.Reset");
  if (reset.target.empty())
    co_return action_report(
        connection, "",
        DriverError{DriverErrorCode::unsupported, "the Manager has no Manager.Reset action"});
  const auto allowed = co_await allowed_reset_types(connection, reset.action);
  std::string type = "GracefulRestart";
  if (allowed && std::find(allowed->begin(), allowed->end(), type) == allowed->end()) {
    if (allowed->empty())
      co_return action_report(
          connection, "",
          DriverError{DriverErrorCode::unsupported, "Manager.Reset allows no ResetType"});
    type = allowed->front();
  }
  auto failed = co_await post_reset(connection, reset.target, type);
  if (failed) co_return action_report(connection, "", std::move(failed));
  co_return action_report(connection, "Manager.Reset ResetType " + type);
}

}  // namespace ironhold::bmc::redfish
