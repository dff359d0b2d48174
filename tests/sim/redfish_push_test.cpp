// Pushing firmware to a simulated BMC's MultipartHttpPushUri (multipart/form-data, as bmcweb takes
// it): the request's checks through BmcState::handle without a socket, the update methods a BMC
// offers, and over real HTTP(S) a push larger than any other request may be, its Task run to
// Completed, and the limits past which the server answers 413.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <catch2/catch.hpp>
#include <set>
#include <thread>

#include "curl_client.hpp"
#include "inventory/error.hpp"
#include "sim/redfish/bmc_state.hpp"
#include "sim/redfish/fleet.hpp"
#include "sim/redfish/redfish_server.hpp"
#include "sim/redfish/update_methods.hpp"
#include "tests/support/project_mockups.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace redfish_push_test {

namespace rf = ironhold::sim::redfish;
namespace http = boost::beast::http;
using Catch::Matchers::Contains;
using ironhold::test::curl_fetch;
using ironhold::test::CurlCall;
using ironhold::test::CurlReply;
using ironhold::test::project_mockup;
using nlohmann::json;
using namespace std::chrono_literals;
using namespace std::string_literals;

namespace {

const std::string kPush = "/redfish/v1/UpdateService/upload";
const std::string kSimpleUpdate = "/redfish/v1/UpdateService/Actions/UpdateService.SimpleUpdate";
const std::string kBmcEntry = "/redfish/v1/UpdateService/FirmwareInventory/BMC";
const std::string kBiosEntry = "/redfish/v1/UpdateService/FirmwareInventory/BIOS";
const std::string kBoundary = "ironhold-push-5f2a";
const std::string kFormType = "multipart/form-data; boundary=" + kBoundary;

struct Field {
  std::string name, filename, content_type, content;
};

// A multipart/form-data body as RFC 7578 lays it out.
std::string form_body(const std::vector<Field>& fields) {
  std::string body;
  for (const auto& field : fields) {
    body += "--" + kBoundary + "\r\nContent-Disposition: form-data; name=\"" + field.name + "\"";
    if (!field.filename.empty()) body += "; filename=\"" + field.filename + "\"";
    body += "\r\n";
    if (!field.content_type.empty()) body += "Content-Type: " + field.content_type + "\r\n";
    body += "\r\n" + field.content + "\r\n";
  }
  return body + "--" + kBoundary + "--\r\n";
}

Field update_file(std::string image) {
  return {"UpdateFile", "image.bin", "application/octet-stream", std::move(image)};
}

Field update_parameters(std::string text) {
  return {"UpdateParameters", "", "application/json", std::move(text)};
}

// An image the simulated firmware takes: its header line, then binary bytes up to `size`, among
// them CR LF, NUL and runs of dashes like the boundary's.
std::string firmware_image(const std::string& header, std::size_t size) {
  std::string image = header + "\n";
  for (std::size_t i = 0; image.size() < size; ++i) {
    image += static_cast<char>(i * 131 % 256);
    if (i % 1000 == 0) image += "\r\n--" + kBoundary.substr(0, 8) + "\r\n--\0"s;
  }
  image.resize(size);
  return image;
}

rf::Request request(http::verb method, const std::string& target) {
  rf::Request r{method, target, 11};
  r.set(http::field::authorization, "Basic YWRtaW46cGFzc3dvcmQ=");  // admin:password
  return r;
}

rf::Request push_request(std::string body, const std::string& content_type = kFormType) {
  rf::Request r = request(http::verb::post, kPush);
  if (!content_type.empty()) r.set(http::field::content_type, content_type);
  r.body() = std::move(body);
  r.prepare_payload();
  return r;
}

json body_of(const rf::Response& response) {
  return json::parse(response.body(), nullptr, false);
}

// "PropertyMissing" from a Redfish error body's "Base.1.16.0.PropertyMissing".
std::string message_of(const rf::Response& response) {
  const std::string code = body_of(response)["error"].value("code", "");
  return code.substr(code.rfind('.') + 1);
}

// A BMC from one of the project's mockups that keeps the jobs it hands on.
struct PushBmc {
  std::vector<rf::FirmwareJob> jobs;
  rf::BmcState state;

  explicit PushBmc(std::optional<rf::UpdateMethods> methods = std::nullopt,
                   const std::string& mockup = "compute-server")
      : state(rf::Mockup::load(project_mockup(mockup)), config(methods)) {}

  rf::BmcConfig config(std::optional<rf::UpdateMethods> methods) {
    rf::BmcConfig c;
    c.update_methods = methods;
    c.firmware_update = [this](rf::FirmwareJob job) { jobs.push_back(std::move(job)); };
    return c;
  }

  json get(const std::string& path) {
    return body_of(state.handle(request(http::verb::get, path)));
  }
};

// One BMC served over plain HTTP with the limits given, on a thread of its own.
struct LoopbackBmc {
  boost::asio::io_context io;
  rf::BmcState state;
  rf::RedfishServer server;
  std::string base;
  std::thread thread;

  explicit LoopbackBmc(rf::ServerLimits limits)
      : state(rf::Mockup::load(project_mockup("compute-server")), rf::BmcConfig{}),
        server(io, state, false, limits) {
    const auto bound = server.listen({boost::asio::ip::make_address("127.0.0.1"), 0});
    base = "http://127.0.0.1:" + std::to_string(bound.port());
    thread = std::thread([this] { io.run(); });
  }
  ~LoopbackBmc() {
    server.close();
    io.stop();
    thread.join();
  }
};

CurlCall curl_post(std::string body, const std::string& content_type) {
  CurlCall call;
  call.method = "POST";
  call.body = std::move(body);
  call.headers = {"Content-Type: " + content_type};
  return call;
}

// Follows a task monitor until the Task ends (or 30 s pass); every message it showed on the way.
json follow_task(const std::string& monitor_url, std::set<std::string>& messages) {
  json task;
  for (int i = 0; i < 600; ++i) {
    task = curl_fetch(monitor_url).doc();
    for (const auto& message : task.value("Messages", json::array()))
      messages.insert(message.value("Message", ""));
    if (task["TaskState"] == "Completed" || task["TaskState"] == "Exception") break;
    std::this_thread::sleep_for(50ms);
  }
  return task;
}

}  // namespace

TEST_CASE("a push answers 202 with a Task and hands the pushed bytes on", "[sim][redfish][push]") {
  PushBmc bmc;
  REQUIRE(bmc.state.push_uri() == kPush);
  const std::string image = firmware_image("IRONHOLD-FIRMWARE component=BMC version=7.0.0", 5000);
  const std::string parameters =
      json{{"Targets", {kBmcEntry}}, {"@Redfish.OperationApplyTime", "OnReset"}}.dump();
  const auto accepted = bmc.state.handle(
      push_request(form_body({update_parameters(parameters), update_file(image)})));
  INFO(accepted.body());
  REQUIRE(accepted.result() == http::status::accepted);
  const json task = body_of(accepted);
  const std::string task_path = task["@odata.id"];
  CHECK(std::string(accepted[http::field::location]) == task_path);
  CHECK(task["TaskState"] == "New");
  CHECK(task["Payload"] ==
        json{{"TargetUri", kPush}, {"HttpOperation", "POST"}, {"JsonBody", parameters}});
  REQUIRE(bmc.jobs.size() == 1);
  CHECK(bmc.jobs[0].task == task_path);
  CHECK(bmc.jobs[0].image == image);
  CHECK(bmc.jobs[0].image_uri.empty());
  CHECK(bmc.jobs[0].targets == std::vector<std::string>{kBmcEntry});
  CHECK(bmc.jobs[0].apply_on_reset);
  CHECK(bmc.get(task_path)["Id"] == task["Id"]);  // the monitor answers

  // The parameters are optional: the image then says what it updates.
  const auto bare = bmc.state.handle(push_request(form_body({update_file(image)})));
  REQUIRE(bare.result() == http::status::accepted);
  CHECK(body_of(bare)["Payload"]["JsonBody"] == "{}");
  REQUIRE(bmc.jobs.size() == 2);
  CHECK(bmc.jobs[1].targets.empty());
  CHECK_FALSE(bmc.jobs[1].apply_on_reset);

  // SimpleUpdate is an update but no push.
  rf::Request simple = request(http::verb::post, kSimpleUpdate);
  simple.body() = json{{"ImageURI", "http://127.0.0.1:1/fw.bin"}}.dump();
  simple.prepare_payload();
  REQUIRE(bmc.state.handle(simple).result() == http::status::accepted);
  const rf::BmcCounters counters = bmc.state.counters();
  CHECK(counters.firmware_updates == 3);
  CHECK(counters.firmware_pushes == 2);
  CHECK(rf::to_json(counters)["firmware_pushes"] == 2);
  CHECK(bmc.get("/redfish/v1/TaskService/Tasks")["Members@odata.count"] == 3);
}

TEST_CASE("bad pushes are refused with a Redfish error and start nothing", "[sim][redfish][push]") {
  PushBmc bmc;
  const Field file = update_file(firmware_image("IRONHOLD-FIRMWARE component=BMC version=1", 500));
  const auto with_parameters = [&](const std::string& text) {
    return bmc.state.handle(push_request(form_body({update_parameters(text), file})));
  };
  struct Refusal {
    http::status status;
    std::string message;
  };
  const auto refusal = [](const rf::Response& response) {
    return Refusal{response.result(), message_of(response)};
  };

  SECTION("no UpdateFile part") {
    const auto r = refusal(bmc.state.handle(push_request(form_body({update_parameters("{}")}))));
    CHECK(r.status == http::status::bad_request);
    CHECK(r.message == "PropertyMissing");
  }
  SECTION("a body that is not multipart/form-data") {
    const std::string body = form_body({file});
    CHECK(refusal(bmc.state.handle(push_request(body, "application/octet-stream"))).status ==
          http::status::unsupported_media_type);
    CHECK(refusal(bmc.state.handle(push_request(body, ""))).status ==
          http::status::unsupported_media_type);
    const auto no_boundary = refusal(bmc.state.handle(push_request(body, "multipart/form-data")));
    CHECK(no_boundary.status == http::status::bad_request);
    CHECK(no_boundary.message == "UnrecognizedRequestBody");
  }
  SECTION("a multipart body cut short, or with two images") {
    std::string cut = form_body({file});
    cut.resize(cut.size() - 10);
    const auto r = refusal(bmc.state.handle(push_request(cut)));
    CHECK(r.status == http::status::bad_request);
    CHECK(r.message == "UnrecognizedRequestBody");
    CHECK(refusal(bmc.state.handle(push_request(form_body({file, file})))).status ==
          http::status::bad_request);
  }
  SECTION("UpdateParameters that are not a JSON object") {
    CHECK(refusal(with_parameters("{\"Targets\": [")).message == "MalformedJSON");
    CHECK(refusal(with_parameters("[1, 2]")).message == "PropertyValueTypeError");
  }
  SECTION("an apply time the BMC does not offer") {
    const auto r =
        refusal(with_parameters(R"({"@Redfish.OperationApplyTime": "AtMaintenanceWindowStart"})"));
    CHECK(r.status == http::status::bad_request);
    CHECK(r.message == "PropertyValueNotInList");
    CHECK(refusal(with_parameters(R"({"@Redfish.OperationApplyTime": 1})")).message ==
          "PropertyValueTypeError");
  }
  SECTION("targets that are no firmware inventory entry") {
    const json unknown = {{"Targets", {"/redfish/v1/UpdateService/FirmwareInventory/NOPE"}}};
    CHECK(refusal(with_parameters(unknown.dump())).message == "PropertyValueNotInList");
    const json system = {{"Targets", {"/redfish/v1/Systems/1"}}};
    CHECK(refusal(with_parameters(system.dump())).message == "PropertyValueNotInList");
    CHECK(refusal(with_parameters(R"({"Targets": "BMC"})")).message == "PropertyValueTypeError");
  }
  SECTION("a property UpdateParameters does not have") {
    CHECK(refusal(with_parameters(R"({"Oops": true})")).message == "PropertyUnknown");
  }
  SECTION("no credentials") {
    rf::Request anonymous = push_request(form_body({file}));
    anonymous.erase(http::field::authorization);
    CHECK(refusal(bmc.state.handle(anonymous)).status == http::status::unauthorized);
  }
  CHECK(bmc.jobs.empty());
  CHECK(bmc.state.counters().firmware_updates == 0);
  CHECK(bmc.state.counters().firmware_pushes == 0);
}

TEST_CASE(
    "the update methods option (--update-methods) takes simple and multipart and names any other "
    "word",
    "[sim][redfish][push]") {
  const auto simple = rf::parse_update_methods("simple");
  CHECK(simple.simple);
  CHECK_FALSE(simple.multipart);
  const auto both = rf::parse_update_methods(" multipart , simple");
  CHECK(both.simple);
  CHECK(both.multipart);
  CHECK_THROWS_WITH(rf::parse_update_methods("simple,ftp,tftp"),
                    Contains("\"ftp\"") && Contains("\"tftp\""));
  CHECK_THROWS_AS(rf::parse_update_methods(""), ironhold::Error);
  CHECK_THROWS_AS(rf::parse_update_methods(","), ironhold::Error);
  CHECK_THROWS_AS(rf::parse_update_methods("Simple"), ironhold::Error);
}

TEST_CASE("a BMC offers the update methods asked for, else what its mockup declares",
          "[sim][redfish][push]") {
  const std::string update_service = "/redfish/v1/UpdateService";
  const std::string image = firmware_image("IRONHOLD-FIRMWARE component=BMC version=1", 500);
  const auto push_status = [&](PushBmc& bmc) {
    return bmc.state.handle(push_request(form_body({update_file(image)}))).result();
  };
  const auto simple_status = [&](PushBmc& bmc) {
    rf::Request simple = request(http::verb::post, kSimpleUpdate);
    simple.body() = json{{"ImageURI", "http://127.0.0.1:1/fw.bin"}}.dump();
    simple.prepare_payload();
    return bmc.state.handle(simple).result();
  };

  SECTION("the project's mockups: compute-server both, hgx-gpu-server SimpleUpdate only") {
    PushBmc compute;
    CHECK(compute.get(update_service)["MultipartHttpPushUri"] == kPush);
    CHECK(push_status(compute) == http::status::accepted);
    CHECK(simple_status(compute) == http::status::accepted);
    PushBmc hgx(std::nullopt, "hgx-gpu-server");
    CHECK(hgx.state.push_uri().empty());
    CHECK(push_status(hgx) == http::status::not_found);
  }
  SECTION("simple only: no push URI, and a push finds nothing") {
    PushBmc bmc(rf::UpdateMethods{.simple = true, .multipart = false});
    const json service = bmc.get(update_service);
    CHECK_FALSE(service.contains("MultipartHttpPushUri"));
    CHECK(service["Actions"].contains("#UpdateService.SimpleUpdate"));
    CHECK(push_status(bmc) == http::status::not_found);
    CHECK(simple_status(bmc) == http::status::accepted);
  }
  SECTION("multipart only: no SimpleUpdate action") {
    PushBmc bmc(rf::UpdateMethods{.simple = false, .multipart = true});
    const json service = bmc.get(update_service);
    CHECK(service["MultipartHttpPushUri"] == kPush);
    CHECK_FALSE(service.contains("Actions"));
    CHECK(simple_status(bmc) == http::status::not_found);
    CHECK(push_status(bmc) == http::status::accepted);
  }
  SECTION("a mockup without a push URI gets the default one, and a Task service") {
    PushBmc bmc(rf::UpdateMethods{.simple = true, .multipart = true}, "hgx-gpu-server");
    CHECK(bmc.state.push_uri() == kPush);
    CHECK(push_status(bmc) == http::status::accepted);
    CHECK(bmc.get("/redfish/v1/TaskService/Tasks")["Members@odata.count"] == 1);
  }
}

TEST_CASE("a pushed image larger than any other request installs its version over HTTPS",
          "[sim][redfish][push]") {
  ironhold::sim::RedfishFleetOptions options;
  options.mockup_dir = project_mockup("compute-server");
  options.reset_delay = 100ms;
  options.updater.update_time = 400ms;
  ironhold::sim::RedfishFleet fleet(options);
  fleet.start();
  const std::string base = fleet.endpoint(0);
  const auto version_of = [&](const std::string& entry) {
    return curl_fetch(base + entry).doc()["Version"].get<std::string>();
  };
  const std::string before = version_of(kBmcEntry);

  const std::string image =
      firmware_image("IRONHOLD-FIRMWARE component=BMC version=9.9.1", 300 << 10);
  const std::string parameters = json{{"Targets", {kBmcEntry}}}.dump();
  const CurlReply accepted = curl_fetch(
      base + kPush,
      curl_post(form_body({update_parameters(parameters), update_file(image)}), kFormType));
  INFO(accepted.body);
  REQUIRE(accepted.status == 202);
  std::set<std::string> messages;
  const json task = follow_task(base + accepted.headers.at("location"), messages);
  INFO(task.dump(2));
  CHECK(task["TaskState"] == "Completed");
  CHECK(task["Messages"][0]["MessageId"] == "Update.1.0.UpdateSuccessful");
  CHECK(messages.count("Received " + std::to_string(image.size()) + " bytes") == 1);
  CHECK(version_of(kBmcEntry) == "9.9.1");
  CHECK(before != "9.9.1");

  // OnReset: the BIOS's new version waits for the System's next reset.
  const std::string bios_before = version_of(kBiosEntry);
  const CurlReply staged = curl_fetch(
      base + kPush,
      curl_post(form_body({update_parameters(R"({"@Redfish.OperationApplyTime": "OnReset"})"),
                           update_file(firmware_image(
                               "IRONHOLD-FIRMWARE component=BIOS version=4.0.0", 70 << 10))}),
                kFormType));
  REQUIRE(staged.status == 202);
  const json staged_task = follow_task(base + staged.headers.at("location"), messages);
  CHECK(staged_task["Messages"][0]["MessageId"] == "Update.1.0.AwaitToActivate");
  CHECK(version_of(kBiosEntry) == bios_before);
  CurlCall reset = curl_post(json{{"ResetType", "ForceRestart"}}.dump(), "application/json");
  CHECK(curl_fetch(base + "/redfish/v1/Systems/1/Actions/ComputerSystem.Reset", reset).status ==
        204);
  CHECK(version_of(kBiosEntry) == "4.0.0");

  // The update_fails fault fails a push as it fails a SimpleUpdate.
  rf::Faults fails;
  fails.update_fails = true;
  fleet.set_faults(0, fails);
  const CurlReply doomed =
      curl_fetch(base + kPush, curl_post(form_body({update_file(image)}), kFormType));
  REQUIRE(doomed.status == 202);
  CHECK(follow_task(base + doomed.headers.at("location"), messages)["TaskState"] == "Exception");

  const json counters = fleet.describe(0)["counters"];
  CHECK(counters["firmware_pushes"] == 3);
  CHECK(counters["firmware_updates"] == 3);
  CHECK(counters["updates_completed"] == 2);
}

TEST_CASE("only a push may pass 64 KiB, up to its own limit, past either the answer is 413",
          "[sim][redfish][push]") {
  rf::ServerLimits limits;
  limits.push_body_limit = 256 << 10;
  LoopbackBmc bmc(limits);
  const std::string image = firmware_image("IRONHOLD-FIRMWARE component=BMC version=2", 200 << 10);
  const std::string too_big =
      firmware_image("IRONHOLD-FIRMWARE component=BMC version=2", 300 << 10);

  // Past 64 KiB, but a push.
  const CurlReply pushed =
      curl_fetch(bmc.base + kPush, curl_post(form_body({update_file(image)}), kFormType));
  INFO(pushed.body);
  CHECK(pushed.status == 202);
  // A client that waits for 100 Continue is answered before it sends its body.
  CurlCall waiting = curl_post(form_body({update_file(image)}), kFormType);
  waiting.headers.push_back("Expect: 100-continue");
  CHECK(curl_fetch(bmc.base + kPush, waiting).status == 202);

  // Past the push's own limit.
  CurlCall huge = curl_post(form_body({update_file(too_big)}), kFormType);
  huge.headers.push_back("Expect: 100-continue");
  const CurlReply refused = curl_fetch(bmc.base + kPush, huge);
  CHECK(refused.status == 413);
  // Past 64 KiB anywhere else.
  CurlCall large_json =
      curl_post(json{{"ImageURI", "http://127.0.0.1:1/" + std::string(100 << 10, 'a')}}.dump(),
                "application/json");
  large_json.headers.push_back("Expect: 100-continue");
  CHECK(curl_fetch(bmc.base + kSimpleUpdate, large_json).status == 413);
  // A PATCH of the push URI is no push either.
  CurlCall patch = huge;
  patch.method = "PATCH";
  CHECK(curl_fetch(bmc.base + kPush, patch).status == 413);

  CHECK(bmc.state.counters().firmware_pushes == 2);
  CHECK(curl_fetch(bmc.base + "/redfish/v1/UpdateService").status == 200);  // still serving
}

}  // namespace redfish_push_test
