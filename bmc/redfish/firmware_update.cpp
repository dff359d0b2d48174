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

std::variant<UpdatePlan, DriverError> choose_update(const json& update_service,
                                                    FirmwareTransfer wanted,
                                                    const std::string& image_url) {
  const json* found_action =
      read_object(read_object(&update_service, "Actions"), "#UpdateService.SimpleUpdate");
  const json action = found_action ? *found_action : json();
  const std::string simple_target = path_of(read_string(&action, "target").value_or(""));
  const std::string push_uri =
      path_of(read_string(&update_service, "MultipartHttpPushUri").value_or(""));

  // Why a pull is not possible, or the plan for it.
  std::variant<UpdatePlan, DriverError> pull = DriverError{
      DriverErrorCode::unsupported, "the BMC's UpdateService has no SimpleUpdate action"};
  if (!simple_target.empty() && image_url.empty()) {
    pull = DriverError{DriverErrorCode::unsupported,
                       "the BMC would download the image, but this service has no URL it could "
                       "download from (start it with --advertise-url)"};
  } else if (!simple_target.empty()) {
    auto body = simple_update_body(action, image_url);
    if (auto* e = std::get_if<DriverError>(&body))
      pull = std::move(*e);
    else
      pull = UpdatePlan{FirmwareTransfer::pull, simple_target, std::get<json>(std::move(body))};
  }
  std::variant<UpdatePlan, DriverError> push = DriverError{
      DriverErrorCode::unsupported, "the BMC's UpdateService has no MultipartHttpPushUri"};
  if (!push_uri.empty()) push = UpdatePlan{FirmwareTransfer::push, push_uri, nullptr};

  switch (wanted) {
    case FirmwareTransfer::pull:
      return pull;
    case FirmwareTransfer::push:
      return push;
    case FirmwareTransfer::automatic:
      break;
  }
  if (std::holds_alternative<UpdatePlan>(pull)) return pull;
  if (std::holds_alternative<UpdatePlan>(push)) return push;
  return DriverError{
      DriverErrorCode::unsupported,
      "the BMC takes no firmware this service can send: " + std::get<DriverError>(pull).message +
          "; " + std::get<DriverError>(push).message +
          (update_service.contains("HttpPushUri")
               ? " (its HttpPushUri, deprecated in Redfish, is not supported)"
               : "")};
}

std::vector<http::FormPart> push_parts(const std::string& file, const std::string& image_name) {
  http::FormPart parameters;
  parameters.name = "UpdateParameters";
  parameters.content_type = "application/json";
  parameters.data = "{}";
  http::FormPart image;
  image.name = "UpdateFile";
  image.content_type = "application/octet-stream";
  image.file = file;
  image.filename = image_name.empty() ? "firmware.bin" : image_name;
  return {std::move(parameters), std::move(image)};
}

std::chrono::milliseconds push_timeout(std::int64_t size) {
  constexpr std::int64_t kSlowestBytesPerSecond = 256 * 1024;
  const std::int64_t seconds = 120 + std::max<std::int64_t>(size, 0) / kSlowestBytesPerSecond;
  return std::chrono::seconds(seconds);
}

bool is_pushed_update(const json& task, const std::string& task_path, const std::string& push_uri,
                      const std::vector<std::string>& tasks_before) {
  if (std::find(tasks_before.begin(), tasks_before.end(), task_path) != tasks_before.end())
    return false;
  const json* payload = read_object(&task, "Payload");
  if (payload == nullptr) return true;
  return path_of(read_string(payload, "TargetUri").value_or("")) == push_uri;
}

namespace {

// The paths of the BMC's tasks, newest first (most BMCs list the newest last), at most 64: a BMC
// keeps a few dozen. None when it has no TaskService.
using TaskPaths = std::variant<std::vector<std::string>, DriverError>;
asio::awaitable<TaskPaths> list_tasks(RedfishConnection& connection) {
  std::vector<std::string> members;
  std::string root_path = "/redfish/v1/";
  Found root = co_await get_resource(connection, std::move(root_path));
  if (auto* e = std::get_if<DriverError>(&root)) co_return std::move(*e);
  std::string service_path = link(std::get<Resource>(root).doc, "TaskService");
  if (service_path.empty()) co_return members;
  Found service = co_await get_resource(connection, std::move(service_path));
  if (auto* e = std::get_if<DriverError>(&service)) co_return std::move(*e);
  std::string tasks_path = link(std::get<Resource>(service).doc, "Tasks");
  if (tasks_path.empty()) co_return members;
  Found tasks = co_await get_resource(connection, std::move(tasks_path));
  if (auto* e = std::get_if<DriverError>(&tasks)) co_return std::move(*e);
  if (const json& doc = std::get<Resource>(tasks).doc;
      doc.contains("Members") && doc["Members"].is_array())
    for (const auto& member : doc["Members"])
      if (auto path = link_path(member); !path.empty()) members.push_back(std::move(path));
  std::reverse(members.begin(), members.end());
  if (members.size() > 64) members.resize(64);
  co_return members;
}

// Sends the plan's request and reads the BMC's first answer.
asio::awaitable<FirmwareUpdateReport> send_update(RedfishConnection& connection,
                                                  const UpdatePlan& plan,
                                                  const std::shared_ptr<const SpooledImage>& image,
                                                  const std::string& image_name) {
  CallResult result;
  if (plan.transfer == FirmwareTransfer::push) {
    std::string path = plan.target;
    auto sending = connection.post_form(std::move(path), push_parts(image->path(), image_name),
                                        push_timeout(image->size()));
    result = co_await std::move(sending);
    // A push is answered like any action: an error status is the BMC refusing the image.
    if (auto* reply = std::get_if<RedfishReply>(&result); reply && reply->status >= 300)
      result = error_from_status(reply->status, reply->body, "POST " + plan.target);
  } else {
    std::string method = "POST";
    std::string path = plan.target;
    std::optional<json> payload = plan.body;
    http::HeaderList no_headers;
    auto sending = connection.call(std::move(method), std::move(path), std::move(payload),
                                   std::move(no_headers));
    result = co_await std::move(sending);
  }
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

}  // namespace

asio::awaitable<FirmwareUpdateReport> start_update(RedfishConnection& connection,
                                                   FirmwareUpdateRequest request) {
  std::string root_path = "/redfish/v1/";
  Found root = co_await get_resource(connection, std::move(root_path));
  if (auto* e = std::get_if<DriverError>(&root)) co_return failure(connection, std::move(*e));
  std::string service_path = link(std::get<Resource>(root).doc, "UpdateService");
  if (service_path.empty())
    co_return failure(connection, {DriverErrorCode::unsupported, "the BMC has no UpdateService"});
  Found service = co_await get_resource(connection, std::move(service_path));
  if (auto* e = std::get_if<DriverError>(&service)) co_return failure(connection, std::move(*e));
  auto chosen = choose_update(std::get<Resource>(service).doc, request.transfer, request.image_url);
  if (auto* e = std::get_if<DriverError>(&chosen)) co_return failure(connection, std::move(*e));
  const UpdatePlan plan = std::get<UpdatePlan>(std::move(chosen));

  json sent = {{"transfer", to_string(plan.transfer)}, {"target", plan.target}};
  std::shared_ptr<const SpooledImage> image;
  if (plan.transfer == FirmwareTransfer::push) {
    // What the BMC had before, so that its task for this push can be told apart after a crash.
    TaskPaths before = co_await list_tasks(connection);
    if (auto* e = std::get_if<DriverError>(&before)) co_return failure(connection, std::move(*e));
    sent["tasks_before"] = std::get<std::vector<std::string>>(before);
    if (!request.spool)
      co_return failure(connection, {DriverErrorCode::unsupported,
                                     "the BMC takes pushed images only, and none was provided"});
    auto spooling = request.spool();
    SpoolResult spooled = co_await std::move(spooling);
    if (auto* e = std::get_if<DriverError>(&spooled)) co_return failure(connection, std::move(*e));
    image = std::get<std::shared_ptr<const SpooledImage>>(std::move(spooled));
  }
  if (request.before_send) {
    auto recording = request.before_send(sent);
    const bool go_on = co_await std::move(recording);
    if (!go_on) {
      FirmwareUpdateReport report;
      report.state = UpdateState::gone;
      report.message = "not sent: the task was interrupted";
      co_return with_connection(connection, std::move(report));
    }
  }
  auto sending = send_update(connection, plan, image, request.image_name);
  FirmwareUpdateReport report = co_await std::move(sending);
  co_return report;
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
                                                       FirmwareUpdateRequest request, json sent) {
  const bool pushed = read_string(&sent, "transfer") == "push";
  const std::string push_uri = read_string(&sent, "target").value_or("");
  std::vector<std::string> tasks_before;
  if (const auto it = sent.is_object() ? sent.find("tasks_before") : sent.end();
      it != sent.end() && it->is_array())
    for (const auto& path : *it)
      if (path.is_string()) tasks_before.push_back(path.get<std::string>());
  // A pulled image's URL: its path and query carry the signature, unique per URL; the host part
  // may differ when the service came back on another address.
  const std::string& image_url = request.image_url;
  const auto authority = image_url.find("://");
  const auto path_start = authority == std::string::npos ? 0 : image_url.find('/', authority + 3);
  const std::string signed_part =
      path_start == std::string::npos ? image_url : image_url.substr(path_start);

  FirmwareUpdateReport none;
  none.state = UpdateState::gone;
  none.message =
      pushed ? "the BMC has no task for this push" : "the BMC has no task for this image";
  TaskPaths listed = co_await list_tasks(connection);
  if (auto* e = std::get_if<DriverError>(&listed)) co_return failure(connection, std::move(*e));
  for (auto& path : std::get<std::vector<std::string>>(listed)) {
    const std::string task_path = path;
    Found task = co_await get_resource(connection, std::move(path));
    if (auto* e = std::get_if<DriverError>(&task)) co_return failure(connection, std::move(*e));
    const json& doc = std::get<Resource>(task).doc;
    if (pushed) {
      if (!is_pushed_update(doc, task_path, push_uri, tasks_before)) continue;
    } else {
      const std::string body = read_string(read_object(&doc, "Payload"), "JsonBody").value_or("");
      if (signed_part.empty() || body.find(signed_part) == std::string::npos) continue;
    }
    FirmwareUpdateReport found = read_update_task(200, doc);
    found.monitor = task_path;
    co_return with_connection(connection, std::move(found));
  }
  co_return with_connection(connection, std::move(none));
}

}  // namespace ironhold::bmc::redfish
