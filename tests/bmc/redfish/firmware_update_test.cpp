// Reading a firmware update's Task as BMCs write it (DMTF Task.v1: TaskState, TaskStatus,
// PercentComplete, Messages; a task monitor's 202 while it runs), and the SimpleUpdate body a BMC
// that lists its transfer protocols gets.
#include "bmc/redfish/firmware_update.hpp"

#include <catch2/catch.hpp>

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
