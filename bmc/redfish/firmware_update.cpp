#include "bmc/redfish/firmware_update.hpp"

#include <algorithm>
#include <cctype>

#include "bmc/redfish/json_read.hpp"
#include "bmc/redfish/resources.hpp"

namespace ironhold::bmc::redfish {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

// Task states that are still going (DMTF Task.v1 TaskState), and those that ended badly.
bool is_going(const std::string& state) {
  static const char* const going[] = {"New",     "Starting", "Running", "Suspended", "Interrupted",
                                      "Pending", "Stopping", "Service", "Cancelling"};
  return std::any_of(std::begin(going), std::end(going), [&](const char* s) { return state == s; });
}
bool is_failure(const std::string& state) {
  return state == "Exception" || state == "Killed" || state == "Cancelled";
}

FirmwareUpdateReport with_connection(const RedfishConnection& connection,
                                     FirmwareUpdateReport report) {
  report.tls_fingerprint = connection.fingerprint();
  return report;
}

FirmwareUpdateReport failure(const RedfishConnection& connection, DriverError error) {
  FirmwareUpdateReport report;
  report.state = UpdateState::failed;
  report.error = std::move(error);
  return with_connection(connection, std::move(report));
}

std::string scheme_of(const std::string& url) {
  const auto colon = url.find("://");
  std::string scheme = colon == std::string::npos ? "" : url.substr(0, colon);
  for (char& c : scheme) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return scheme;
}

}  // namespace

std::variant<json, DriverError> simple_update_body(const json& action,
                                                   const std::string& image_url) {
  json body = {{"ImageURI", image_url}};
  const auto allowed =
      action.is_object() ? action.find("TransferProtocol@Redfish.AllowableValues") : action.end();
  if (action.is_object() && allowed != action.end() && allowed->is_array()) {
    const std::string scheme = scheme_of(image_url);
    std::string listed;
    for (const auto& value : *allowed) {
      if (!value.is_string()) continue;
      if (value.get<std::string>() == scheme) {
        body["TransferProtocol"] = scheme;
        return body;
      }
      listed += (listed.empty() ? "" : ", ") + value.get<std::string>();
    }
    return DriverError{DriverErrorCode::unsupported,
                       "the BMC's SimpleUpdate does not take " +
                           (scheme.empty() ? std::string("this URL") : scheme) +
                           " downloads (it takes: " + listed + ")"};
  }
  return body;
}

FirmwareUpdateReport read_update_task(long status, const json& body) {
  FirmwareUpdateReport report;
  if (status == 404 || status == 410) {
    report.state = UpdateState::gone;
    report.message = "the BMC has no such task (HTTP " + std::to_string(status) + ")";
    return report;
  }
  const bool is_task =
      body.is_object() && body.contains("TaskState") && body["TaskState"].is_string();
  if (!is_task) {
    // A task monitor answers 202 while the operation runs, then the operation's own answer.
    report.state = status == 202 ? UpdateState::running : UpdateState::completed;
    if (const auto message = redfish_error_message(body); !message.empty())
      report.message = message;
    return report;
  }
  const std::string state = body["TaskState"].get<std::string>();
  if (const auto pc = read_number(&body, "PercentComplete"))
    report.percent = static_cast<int>(std::clamp(*pc, 0.0, 100.0));
  if (const auto messages = body.find("Messages"); messages != body.end() && messages->is_array())
    for (const auto& m : *messages) {
      if (!m.is_object()) continue;
      if (read_string(&m, "MessageId").value_or("").find("AwaitToActivate") != std::string::npos)
        report.awaits_reset = true;
      if (auto text = read_string(&m, "Message")) report.message = std::move(*text);
    }
  if (report.message.size() > 400) report.message.resize(400);
  if (is_going(state)) {
    report.state = UpdateState::running;
  } else if (is_failure(state)) {
    report.state = UpdateState::failed;
    if (report.message.empty()) report.message = "the BMC's task ended " + state;
  } else if (state == "Completed") {
    // Completed with TaskStatus Critical is how some BMCs say it failed.
    report.state = read_string(&body, "TaskStatus") == "Critical" ? UpdateState::failed
                                                                  : UpdateState::completed;
  } else {
    report.state = UpdateState::running;  // a state newer than this driver: keep following
    report.message = "task state " + state + (report.message.empty() ? "" : ": " + report.message);
  }
  return report;
}

asio::awaitable<FirmwareUpdateReport> start_simple_update(RedfishConnection& connection,
                                                          FirmwareUpdateRequest request) {
  std::string root_path = "/redfish/v1/";
  Found root = co_await get_resource(connection, std::move(root_path));
  if (auto* e = std::get_if<DriverError>(&root)) co_return failure(connection, std::move(*e));
  std::string service_path = link(std::get<Resource>(root).doc, "UpdateService");
  if (service_path.empty())
    co_return failure(connection, {DriverErrorCode::unsupported, "the BMC has no UpdateService"});
  Found service = co_await get_resource(connection, std::move(service_path));
  if (auto* e = std::get_if<DriverError>(&service)) co_return failure(connection, std::move(*e));
  const json& doc = std::get<Resource>(service).doc;
  const json* found_action =
      read_object(read_object(&doc, "Actions"), "#UpdateService.SimpleUpdate");
  const json action = found_action ? *found_action : json();
  const std::string target = path_of(read_string(&action, "target").value_or(""));
  if (target.empty())
    co_return failure(
        connection,
        {DriverErrorCode::unsupported,
         doc.contains("MultipartHttpPushUri")
             ? "the BMC offers only MultipartHttpPushUri, which Ironhold does not push to yet "
               "(it needs UpdateService.SimpleUpdate)"
             : "the BMC's UpdateService has no SimpleUpdate action"});
  auto body = simple_update_body(action, request.image_url);
  if (auto* e = std::get_if<DriverError>(&body)) co_return failure(connection, std::move(*e));

  std::string method = "POST";
  std::string path = target;
  std::optional<json> payload = std::get<json>(std::move(body));
  http::HeaderList no_headers;
  CallResult result = co_await connection.call(std::move(method), std::move(path),
                                               std::move(payload), std::move(no_headers));
  if (auto* e = std::get_if<DriverError>(&result)) co_return failure(connection, std::move(*e));
  const RedfishReply& reply = std::get<RedfishReply>(result);
  FirmwareUpdateReport report = read_update_task(reply.status, reply.body);
  if (reply.location) report.monitor = path_of(*reply.location);
  if (report.monitor.empty()) report.monitor = link_path(reply.body);
  if (report.monitor.empty() && reply.status == 202)
    co_return failure(connection,
                      {DriverErrorCode::bad_response,
                       "the BMC accepted the update (202) but named no task to follow"});
  co_return with_connection(connection, std::move(report));
}

asio::awaitable<FirmwareUpdateReport> read_update_status(RedfishConnection& connection,
                                                         std::string monitor) {
  std::string method = "GET";
  std::optional<json> no_body;
  http::HeaderList no_headers;
  CallResult result = co_await connection.exchange(std::move(method), monitor, std::move(no_body),
                                                   std::move(no_headers));
  if (auto* e = std::get_if<DriverError>(&result)) co_return failure(connection, std::move(*e));
  const RedfishReply& reply = std::get<RedfishReply>(result);
  if (reply.status >= 400 && reply.status != 404 && reply.status != 410)
    co_return failure(connection, error_from_status(reply.status, reply.body, "GET " + monitor));
  FirmwareUpdateReport report = read_update_task(reply.status, reply.body);
  report.monitor = monitor;
  co_return with_connection(connection, std::move(report));
}

asio::awaitable<FirmwareUpdateReport> find_update_task(RedfishConnection& connection,
                                                       std::string image_url) {
  // The path and query carry the signature, unique per URL; the host part may differ when the
  // service came back on another address.
  const auto authority = image_url.find("://");
  const auto path_start =
      authority == std::string::npos ? 0 : image_url.find('/', authority + 3);
  const std::string signed_part =
      path_start == std::string::npos ? image_url : image_url.substr(path_start);
  FirmwareUpdateReport none;
  none.state = UpdateState::gone;
  none.message = "the BMC has no task for this image";
  std::string root_path = "/redfish/v1/";
  Found root = co_await get_resource(connection, std::move(root_path));
  if (auto* e = std::get_if<DriverError>(&root)) co_return failure(connection, std::move(*e));
  std::string service_path = link(std::get<Resource>(root).doc, "TaskService");
  if (service_path.empty()) co_return with_connection(connection, std::move(none));
  Found service = co_await get_resource(connection, std::move(service_path));
  if (auto* e = std::get_if<DriverError>(&service)) co_return failure(connection, std::move(*e));
  std::string tasks_path = link(std::get<Resource>(service).doc, "Tasks");
  if (tasks_path.empty()) co_return with_connection(connection, std::move(none));
  Found tasks = co_await get_resource(connection, std::move(tasks_path));
  if (auto* e = std::get_if<DriverError>(&tasks)) co_return failure(connection, std::move(*e));
  std::vector<std::string> members;
  if (const json& doc = std::get<Resource>(tasks).doc;
      doc.contains("Members") && doc["Members"].is_array())
    for (const auto& member : doc["Members"])
      if (auto path = link_path(member); !path.empty()) members.push_back(std::move(path));
  // The newest tasks are listed last by most BMCs; a BMC keeps a few dozen at most.
  std::reverse(members.begin(), members.end());
  if (members.size() > 64) members.resize(64);
  for (auto& path : members) {
    const std::string task_path = path;
    Found task = co_await get_resource(connection, std::move(path));
    if (auto* e = std::get_if<DriverError>(&task)) co_return failure(connection, std::move(*e));
    const json& doc = std::get<Resource>(task).doc;
    const std::string sent = read_string(read_object(&doc, "Payload"), "JsonBody").value_or("");
    if (sent.find(signed_part) == std::string::npos) continue;
    FirmwareUpdateReport found = read_update_task(200, doc);
    found.monitor = task_path;
    co_return with_connection(connection, std::move(found));
  }
  co_return with_connection(connection, std::move(none));
}

}  // namespace ironhold::bmc::redfish
