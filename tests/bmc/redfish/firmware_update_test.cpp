// Reading a firmware update's Task as BMCs write it (DMTF Task.v1: TaskState, TaskStatus,
// PercentComplete, Messages; a task monitor's 202 while it runs), and the SimpleUpdate body a BMC
// that lists its transfer protocols gets.
#include "bmc/redfish/firmware_update.hpp"

#include <catch2/catch.hpp>

// This file's names, apart from those of the other test files compiled with it.
namespace firmware_update_test {

using namespace ironhold;
using namespace ironhold::bmc::redfish;
using nlohmann::json;

TEST_CASE("a Task's state, progress and messages say how an update stands",
          "[bmc][redfish][firmware]") {
  const auto running = read_update_task(
      200,
      {{"TaskState", "Running"},
       {"PercentComplete", 40},
       {"Messages",
        {{{"MessageId", "Update.1.0.TransferringToComponent"}, {"Message", "Flashing the BMC"}}}}});
  CHECK(running.state == UpdateState::running);
  CHECK(running.percent == 40);
  CHECK(running.message == "Flashing the BMC");
  CHECK_FALSE(running.awaits_reset);

  const auto staged = read_update_task(
      200, {{"TaskState", "Completed"},
            {"TaskStatus", "OK"},
            {"Messages", {{{"MessageId", "Update.1.0.AwaitToActivate"}, {"Message", "reset"}}}}});
  CHECK(staged.state == UpdateState::completed);
  CHECK(staged.awaits_reset);

  const auto exception = read_update_task(200, {{"TaskState", "Exception"}});
  CHECK(exception.state == UpdateState::failed);
  CHECK(exception.message.find("Exception") != std::string::npos);
  CHECK(read_update_task(200, {{"TaskState", "Killed"}}).state == UpdateState::failed);
  CHECK(read_update_task(200, {{"TaskState", "Completed"}, {"TaskStatus", "Critical"}}).state ==
        UpdateState::failed);
  for (const char* going : {"New", "Starting", "Pending", "Suspended", "Service"})
    CHECK(read_update_task(200, {{"TaskState", going}}).state == UpdateState::running);
}

TEST_CASE("a task monitor's answers and missing tasks", "[bmc][redfish][firmware]") {
  CHECK(read_update_task(202, nullptr).state == UpdateState::running);
  CHECK(read_update_task(200, nullptr).state == UpdateState::completed);
  CHECK(read_update_task(204, nullptr).state == UpdateState::completed);
  CHECK(read_update_task(404, nullptr).state == UpdateState::gone);
  CHECK(read_update_task(410, {{"error", {{"message", "gone"}}}}).state == UpdateState::gone);
}

TEST_CASE("a Task with values of the wrong type is read without throwing",
          "[bmc][redfish][firmware]") {
  const auto odd = read_update_task(200, {{"TaskState", "Running"},
                                          {"PercentComplete", "lots"},
                                          {"Messages", "not a list"},
                                          {"TaskStatus", 7}});
  CHECK(odd.state == UpdateState::running);
  CHECK(odd.percent == -1);
  const auto weird = read_update_task(
      200, {{"TaskState", "Completed"}, {"TaskStatus", nullptr}, {"Messages", {1, "x", nullptr}}});
  CHECK(weird.state == UpdateState::completed);
  CHECK(read_update_task(200, {{"TaskState", 3}}).state == UpdateState::completed);
  CHECK(read_update_task(200, {{"TaskState", "Running"}, {"PercentComplete", 250}}).percent == 100);
}

TEST_CASE("the SimpleUpdate body names the transfer protocol only when the BMC lists them",
          "[bmc][redfish][firmware]") {
  const std::string url = "https://10.0.0.5:8443/api/v1/firmware/images/x/content?expires=1";
  const auto plain = simple_update_body({{"target", "/x"}}, url);
  REQUIRE(std::holds_alternative<json>(plain));
  CHECK(std::get<json>(plain) == json{{"ImageURI", url}});

  const auto listed = simple_update_body(
      {{"target", "/x"}, {"TransferProtocol@Redfish.AllowableValues", {"HTTP", "HTTPS"}}}, url);
  REQUIRE(std::holds_alternative<json>(listed));
  CHECK(std::get<json>(listed)["TransferProtocol"] == "HTTPS");

  const auto foreign = simple_update_body(
      {{"target", "/x"}, {"TransferProtocol@Redfish.AllowableValues", {"CIFS", "NFS"}}}, url);
  REQUIRE(std::holds_alternative<DriverError>(foreign));
  CHECK(std::get<DriverError>(foreign).code == DriverErrorCode::unsupported);
  CHECK(std::get<DriverError>(foreign).message.find("CIFS, NFS") != std::string::npos);
}

namespace {

// UpdateService resources as BMCs publish them: SimpleUpdate only (with or without listed
// protocols), MultipartHttpPushUri only (OpenBMC's bmcweb with TFTP off), both, and neither.
json simple_only(json protocols = nullptr) {
  json action = {{"target", "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate"}};
  if (!protocols.is_null()) action["TransferProtocol@Redfish.AllowableValues"] = protocols;
  return {{"Actions", {{"#UpdateService.SimpleUpdate", action}}}};
}
json push_only() {
  return {{"MultipartHttpPushUri", "/redfish/v1/UpdateService/update"}};
}
json both() {
  json service = simple_only({"HTTP", "HTTPS"});
  service["MultipartHttpPushUri"] = "https://10.1.2.3/redfish/v1/UpdateService/update";
  return service;
}

UpdatePlan plan_of(const std::variant<UpdatePlan, DriverError>& chosen) {
  if (const auto* e = std::get_if<DriverError>(&chosen)) FAIL(e->message);
  return std::get<UpdatePlan>(chosen);
}
std::string refusal_of(const std::variant<UpdatePlan, DriverError>& chosen) {
  REQUIRE(std::holds_alternative<DriverError>(chosen));
  CHECK(std::get<DriverError>(chosen).code == DriverErrorCode::unsupported);
  return std::get<DriverError>(chosen).message;
}

}  // namespace

TEST_CASE("the update goes as a URL when the BMC takes one, else pushed",
          "[bmc][redfish][firmware]") {
  const std::string url = "http://10.0.0.5:8080/api/v1/firmware/images/x/content?signature=s";
  using T = FirmwareTransfer;

  const UpdatePlan pulled = plan_of(choose_update(both(), T::automatic, url));
  CHECK(pulled.transfer == T::pull);
  CHECK(pulled.target == "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate");
  CHECK(pulled.body["ImageURI"] == url);
  CHECK(pulled.body["TransferProtocol"] == "HTTP");

  // Asked for a push, or no URL to give, or a URL whose scheme the BMC does not download.
  const UpdatePlan pushed = plan_of(choose_update(both(), T::push, url));
  CHECK(pushed.transfer == T::push);
  CHECK(pushed.target == "/redfish/v1/UpdateService/update");  // the host part dropped
  CHECK(plan_of(choose_update(both(), T::automatic, "")).transfer == T::push);
  json tftp_only = both();
  tftp_only["Actions"]["#UpdateService.SimpleUpdate"]["TransferProtocol@Redfish.AllowableValues"] =
      {"TFTP"};
  CHECK(plan_of(choose_update(tftp_only, T::automatic, url)).transfer == T::push);
  CHECK(plan_of(choose_update(push_only(), T::automatic, url)).transfer == T::push);
  CHECK(plan_of(choose_update(simple_only(), T::automatic, url)).transfer == T::pull);

  // What cannot work says why, in terms an operator can act on.
  CHECK(refusal_of(choose_update(push_only(), T::pull, url)).find("no SimpleUpdate") !=
        std::string::npos);
  CHECK(refusal_of(choose_update(simple_only(), T::push, url)).find("no MultipartHttpPushUri") !=
        std::string::npos);
  CHECK(refusal_of(choose_update(simple_only(), T::automatic, "")).find("--advertise-url") !=
        std::string::npos);
  const std::string neither = refusal_of(choose_update(
      {{"HttpPushUri", "/FWUpdate"}, {"MultipartHttpPushUri", 42}}, T::automatic, url));
  CHECK(neither.find("no SimpleUpdate") != std::string::npos);
  CHECK(neither.find("HttpPushUri, deprecated") != std::string::npos);
  CHECK(refusal_of(choose_update(simple_only({"NFS"}), T::automatic, url)).find("NFS") !=
        std::string::npos);
  CHECK(refusal_of(choose_update(json::array(), T::automatic, url)).find("no SimpleUpdate") !=
        std::string::npos);
}

TEST_CASE("a push is an UpdateParameters part and the image, allowed time by its size",
          "[bmc][redfish][firmware]") {
  const auto parts = push_parts("/var/tmp/spool/abc", "bmc-2.1.bin");
  REQUIRE(parts.size() == 2);
  CHECK(parts[0].name == "UpdateParameters");
  CHECK(parts[0].content_type == "application/json");
  CHECK(json::parse(parts[0].data).is_object());
  CHECK(parts[1].name == "UpdateFile");
  CHECK(parts[1].file == "/var/tmp/spool/abc");
  CHECK(parts[1].filename == "bmc-2.1.bin");
  CHECK(push_parts("/f", "")[1].filename == "firmware.bin");

  // Never less than the usual request time, and more for each megabyte.
  CHECK(push_timeout(0) >= std::chrono::seconds(60));
  CHECK(push_timeout(64 << 20) > push_timeout(1 << 20));
  CHECK(push_timeout(64 << 20) >= std::chrono::seconds((64 << 20) / (1 << 20)));
  CHECK(push_timeout(-5) == push_timeout(0));
}

TEST_CASE("a push's task is one the BMC did not have before, for the push URI",
          "[bmc][redfish][firmware]") {
  const std::string uri = "/redfish/v1/UpdateService/update";
  const std::vector<std::string> before = {"/redfish/v1/TaskService/Tasks/1"};
  const json ours = {{"TaskState", "Running"},
                     {"Payload", {{"TargetUri", uri}, {"HttpOperation", "POST"}}}};
  CHECK(is_pushed_update(ours, "/redfish/v1/TaskService/Tasks/2", uri, before));
  CHECK_FALSE(is_pushed_update(ours, "/redfish/v1/TaskService/Tasks/1", uri, before));
  // An absolute TargetUri names the same resource.
  CHECK(is_pushed_update({{"Payload", {{"TargetUri", "https://bmc" + uri}}}}, "/t/3", uri, before));
  // Another operation's task is not ours; a task without a payload may be.
  CHECK_FALSE(is_pushed_update(
      {{"Payload", {{"TargetUri", "/redfish/v1/Systems/1/Actions/ComputerSystem.Reset"}}}}, "/t/4",
      uri, before));
  CHECK(is_pushed_update({{"TaskState", "Running"}}, "/t/5", uri, before));
  CHECK_FALSE(is_pushed_update({{"Payload", {{"TargetUri", 7}}}}, "/t/6", uri, before));
}

}  // namespace firmware_update_test
