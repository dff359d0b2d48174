// The EC2 simulator's handler: SigV4 checking with EC2's errors, the Describe actions with
// pagination and filters, state transitions, replace-root-volume tasks and injected faults. Its
// answers are read with the driver's XML parsers (themselves checked against botocore's reading
// of real samples).
#include <catch2/catch.hpp>
#include <set>

#include "cloudapi/ec2/ec2_xml.hpp"
#include "tests/cloudapi/ec2/ec2_sim_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace ec2_simulator_test {

using namespace ironhold::cloudapi::ec2;
using ironhold::sim::cloud::ApiReply;
using ironhold::sim::cloud::ApiRequest;
using ironhold::sim::cloud::ec2::Ec2SimulatorOptions;
using ironhold::test::ec2::Ec2SimOnLoopback;

namespace {

std::string error_code(const ApiReply& reply) {
  const auto error = parse_error(reply.body);
  return error ? error->code : "(not an EC2 error: " + reply.body + ")";
}

Ec2SimulatorOptions options_with_transition(std::chrono::milliseconds transition) {
  Ec2SimulatorOptions options;
  options.transition = transition;
  return options;
}

std::string state_in_sim(Ec2SimOnLoopback& fixture, const std::string& id) {
  for (const auto& instance : fixture.sim.instances())
    if (instance["id"] == id) return instance["state"];
  return "absent";
}

ApiReply control(Ec2SimOnLoopback& fixture, const std::string& method, const std::string& path,
                 const std::string& body = {}) {
  ApiRequest request;
  request.method = method;
  request.target = path;
  request.body = body;
  return fixture.sim.handle(request);
}

}  // namespace

TEST_CASE("EC2 simulator refuses requests that are not signed with its key", "[ec2][cloudapi]") {
  Ec2SimOnLoopback fixture;
  const Ec2Query query("DescribeInstances");

  ApiRequest unsigned_request = fixture.signed_request(query, fixture.credentials());
  unsigned_request.headers.erase(
      std::remove_if(unsigned_request.headers.begin(), unsigned_request.headers.end(),
                     [](const auto& h) { return h.first == "Authorization"; }),
      unsigned_request.headers.end());
  auto reply = fixture.sim.handle(unsigned_request);
  CHECK(reply.status == 401);
  CHECK(error_code(reply) == "AuthFailure");

  auto unknown_key = fixture.credentials();
  unknown_key.access_key_id = "AKIAUNKNOWNKEY000000";
  reply = fixture.sim.handle(fixture.signed_request(query, unknown_key));
  CHECK(reply.status == 401);
  CHECK(error_code(reply) == "AuthFailure");

  auto wrong_secret = fixture.credentials();
  wrong_secret.secret_access_key += "x";
  reply = fixture.sim.handle(fixture.signed_request(query, wrong_secret));
  CHECK(reply.status == 403);
  CHECK(error_code(reply) == "SignatureDoesNotMatch");
  CHECK(reply.body.find("<Response><Errors><Error><Code>SignatureDoesNotMatch</Code>") !=
        std::string::npos);

  // A body changed after signing no longer matches its signature.
  ApiRequest tampered = fixture.signed_request(query, fixture.credentials());
  tampered.body += "&InstanceId.1=i-0e2c5000000000001";
  CHECK(error_code(fixture.sim.handle(tampered)) == "SignatureDoesNotMatch");

  reply = fixture.sim.handle(fixture.signed_request(
      query, fixture.credentials(), std::chrono::system_clock::now() - std::chrono::minutes(6)));
  CHECK(reply.status == 400);
  CHECK(error_code(reply) == "RequestExpired");

  reply = fixture.call(query);
  CHECK(reply.status == 200);
}

TEST_CASE("EC2 simulator requires its session token when it has one", "[ec2][cloudapi]") {
  Ec2SimulatorOptions options;
  options.session_token = "FwoGZXIvYXdzEXAMPLETOKEN";
  Ec2SimOnLoopback fixture(options);
  CHECK(fixture.call(Ec2Query("DescribeInstances")).status == 200);
  auto no_token = fixture.credentials();
  no_token.session_token.reset();
  const auto reply =
      fixture.sim.handle(fixture.signed_request(Ec2Query("DescribeInstances"), no_token));
  CHECK(reply.status == 401);
  CHECK(error_code(reply) == "AuthFailure");
}

TEST_CASE("EC2 simulator pages DescribeInstances and applies filters", "[ec2][cloudapi]") {
  Ec2SimOnLoopback fixture;
  std::vector<std::string> ids;
  std::optional<std::string> token;
  int pages = 0;
  do {
    Ec2Query query("DescribeInstances");
    query.add("MaxResults", "1000");
    if (token) query.add("NextToken", *token);
    const auto reply = fixture.call(query);
    REQUIRE(reply.status == 200);
    const auto page = parse_describe_instances(reply.body);
    CHECK(page.instances.size() <= 2);
    for (const auto& i : page.instances) ids.push_back(i.provider_id);
    token = page.next_token;
    ++pages;
  } while (token && pages < 10);
  CHECK(pages == 3);
  CHECK(ids.size() == 6);
  CHECK(std::set<std::string>(ids.begin(), ids.end()).size() == 6);

  Ec2Query running("DescribeInstances");
  running.add_filter("instance-state-name", {"running"});
  running.add_filter("tag:Name", {"train-*"});
  auto page = parse_describe_instances(fixture.call(running).body);
  REQUIRE(page.instances.size() == 2);
  CHECK(page.next_token);
  for (const auto& i : page.instances) {
    CHECK(i.provider_state == "running");
    CHECK(i.name.rfind("train-", 0) == 0);
  }

  Ec2Query by_id("DescribeInstances");
  by_id.add_list("InstanceId", {"i-0e2c5000000000005"});
  page = parse_describe_instances(fixture.call(by_id).body);
  REQUIRE(page.instances.size() == 1);
  CHECK(page.instances[0].instance_type == "g5.xlarge");
  CHECK(page.instances[0].summary.cpu_count == 4);
  CHECK(page.instances[0].tags["team"] == "inference");

  Ec2Query missing("DescribeInstances");
  missing.add_list("InstanceId", {"i-0e2c50000000000ff"});
  CHECK(error_code(fixture.call(missing)) == "InvalidInstanceID.NotFound");
  Ec2Query malformed("DescribeInstances");
  malformed.add_list("InstanceId", {"vm-1"});
  CHECK(error_code(fixture.call(malformed)) == "InvalidInstanceID.Malformed");
  Ec2Query bad_token("DescribeInstances");
  bad_token.add("NextToken", "nonsense");
  CHECK(error_code(fixture.call(bad_token)) == "InvalidParameterValue");
  CHECK(error_code(fixture.call(Ec2Query("RunAway"))) == "InvalidAction");
}

TEST_CASE("EC2 simulator describes its GPU instance types", "[ec2][cloudapi]") {
  Ec2SimOnLoopback fixture;
  Ec2Query query("DescribeInstanceTypes");
  query.add_list("InstanceType", {"p5.48xlarge", "p4d.24xlarge"});
  const auto page = parse_describe_instance_types(fixture.call(query).body);
  REQUIRE(page.types.size() == 2);
  CHECK(page.types[0].instance_type == "p5.48xlarge");
  CHECK(page.types[0].vcpus == 192);
  REQUIRE(page.types[0].gpus.size() == 1);
  CHECK(page.types[0].gpus[0].name == "H100");
  CHECK(page.types[0].gpus[0].count == 8);
  CHECK(page.types[0].gpus[0].memory_mib == 81920);
  CHECK(page.types[1].gpus[0].name == "A100");
  Ec2Query unknown("DescribeInstanceTypes");
  unknown.add_list("InstanceType", {"z9.huge"});
  CHECK(error_code(fixture.call(unknown)) == "InvalidInstanceType");
}

TEST_CASE("EC2 simulator stops and starts through the transitional states", "[ec2][cloudapi]") {
  Ec2SimOnLoopback slow(options_with_transition(std::chrono::hours(1)));
  const std::string id = "i-0e2c5000000000001";
  Ec2Query stop("StopInstances");
  stop.add_list("InstanceId", {id});
  auto changes = parse_state_changes(slow.call(stop).body);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].previous_state == "running");
  CHECK(changes[0].current_state == "stopping");
  CHECK(changes[0].current_code == 64);
  CHECK(state_in_sim(slow, id) == "stopping");

  Ec2Query start("StartInstances");
  start.add_list("InstanceId", {id});
  const auto refused = slow.call(start);
  CHECK(refused.status == 400);
  CHECK(error_code(refused) == "IncorrectInstanceState");
  Ec2Query reboot("RebootInstances");
  reboot.add_list("InstanceId", {id});
  CHECK(error_code(slow.call(reboot)) == "IncorrectInstanceState");

  Ec2SimOnLoopback quick(options_with_transition(std::chrono::milliseconds(0)));
  parse_state_changes(quick.call(stop).body);
  CHECK(state_in_sim(quick, id) == "stopped");
  changes = parse_state_changes(quick.call(start).body);
  CHECK(changes[0].current_state == "pending");
  CHECK(state_in_sim(quick, id) == "running");
  CHECK(parse_reboot(quick.call(reboot).body));
  CHECK(quick.sim.instances()[0]["reboots"] == 1);
}

TEST_CASE("EC2 simulator replaces a root volume through a task", "[ec2][cloudapi]") {
  Ec2SimOnLoopback fixture(options_with_transition(std::chrono::milliseconds(0)));
  Ec2Query create("CreateReplaceRootVolumeTask");
  create.add("InstanceId", "i-0e2c5000000000003");
  create.add("ImageId", "ami-0123456789abcdef0");
  create.add("ClientToken", "token-1");
  create.add("DeleteReplacedRootVolume", "true");
  const auto task = parse_create_replace_root_volume_task(fixture.call(create).body);
  CHECK(task.state == "pending");
  CHECK(task.instance_id == "i-0e2c5000000000003");
  // The same client token gives the same task.
  CHECK(parse_create_replace_root_volume_task(fixture.call(create).body).task_id == task.task_id);

  Ec2Query describe("DescribeReplaceRootVolumeTasks");
  describe.add_list("ReplaceRootVolumeTaskId", {task.task_id});
  const auto page = parse_describe_replace_root_volume_tasks(fixture.call(describe).body);
  REQUIRE(page.tasks.size() == 1);
  CHECK(page.tasks[0].state == "succeeded");
  CHECK(fixture.sim.instances()[2]["image_id"] == "ami-0123456789abcdef0");

  Ec2Query stopped("CreateReplaceRootVolumeTask");
  stopped.add("InstanceId", "i-0e2c5000000000002");
  CHECK(error_code(fixture.call(stopped)) == "IncorrectInstanceState");
}

TEST_CASE("EC2 simulator injects throttling and errors, and terminates on request",
          "[ec2][cloudapi]") {
  Ec2SimOnLoopback fixture;
  auto reply = control(fixture, "POST", "/_sim/faults", R"({"throttle_next": 1, "error_next": 1})");
  REQUIRE(reply.status == 200);
  reply = fixture.call(Ec2Query("DescribeInstances"));
  CHECK(reply.status == 503);
  CHECK(error_code(reply) == "RequestLimitExceeded");
  reply = fixture.call(Ec2Query("DescribeInstances"));
  CHECK(reply.status == 500);
  CHECK(error_code(reply) == "InternalError");
  CHECK(fixture.call(Ec2Query("DescribeInstances")).status == 200);

  reply = control(fixture, "POST", "/_sim/faults", R"({"latency_ms": 25})");
  CHECK(fixture.call(Ec2Query("DescribeInstances")).delay == std::chrono::milliseconds(25));
  control(fixture, "POST", "/_sim/faults", R"({"latency_ms": 0})");
  CHECK(control(fixture, "POST", "/_sim/faults", R"({"latency_ms": -1})").status == 400);

  CHECK(control(fixture, "POST", "/_sim/instances/i-0e2c5000000000006/terminate").status == 200);
  Ec2Query query("DescribeInstances");
  query.add_list("InstanceId", {"i-0e2c5000000000006"});
  const auto page = parse_describe_instances(fixture.call(query).body);
  REQUIRE(page.instances.size() == 1);
  CHECK(page.instances[0].gone);
  CHECK(page.instances[0].details["state_code"] == 48);
  CHECK(control(fixture, "POST", "/_sim/instances/i-404/terminate").status == 404);
  CHECK(control(fixture, "GET", "/_sim/instances").status == 200);
}

}  // namespace ec2_simulator_test
