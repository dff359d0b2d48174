// The EC2 XML parsers against every sample answer in cloud-samples/aws/ec2-xml (libcloud's
// fixtures, moto's answers, and the two documents generated from the botocore model), each
// compared field by field with its *.botocore.json twin: botocore's own reading of the same XML.
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>

#include "cloudapi/ec2/ec2_xml.hpp"
#include "inventory/error.hpp"
#include "inventory/util/time.hpp"
#include "tests/cloudapi/ec2/ec2_test_files.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace ec2_xml_samples_test {

namespace fs = std::filesystem;
using namespace ironhold::cloudapi::ec2;
using ironhold::test::ec2::aws_samples_dir;
using ironhold::test::ec2::read_text;
using nlohmann::json;

namespace {

// A botocore string field, or nothing when absent (botocore leaves out absent elements).
std::optional<std::string> field(const json& object, const char* key) {
  if (!object.contains(key) || !object[key].is_string()) return std::nullopt;
  return object[key].get<std::string>();
}

std::optional<std::string> detail(const ironhold::CloudInstance& instance, const char* key) {
  if (!instance.details.contains(key)) return std::nullopt;
  return instance.details[key].get<std::string>();
}

// Empty strings are left out of details (they say nothing); botocore keeps them.
std::optional<std::string> non_empty(std::optional<std::string> value) {
  if (value && value->empty()) return std::nullopt;
  return value;
}

void compare_instance(const ironhold::CloudInstance& mine, const json& theirs) {
  INFO("instance " << theirs.value("InstanceId", "?"));
  CHECK(mine.provider_id == theirs["InstanceId"].get<std::string>());
  CHECK(mine.provider_state == theirs["State"]["Name"].get<std::string>());
  CHECK(mine.details["state_code"].get<int>() == (theirs["State"]["Code"].get<int>() & 0xFF));
  CHECK(mine.instance_type == field(theirs, "InstanceType"));
  CHECK(mine.image_id == non_empty(field(theirs, "ImageId")));
  CHECK(mine.zone == non_empty(field(theirs["Placement"], "AvailabilityZone")));
  REQUIRE(mine.launched_at);
  CHECK(ironhold::parse_rfc3339(*mine.launched_at) ==
        ironhold::parse_rfc3339(theirs["LaunchTime"].get<std::string>()));

  std::map<std::string, std::string> tags;
  std::string name;
  for (const auto& tag : theirs.value("Tags", json::array())) {
    tags[tag["Key"]] = tag["Value"];
    if (tag["Key"] == "Name") name = tag["Value"];
  }
  CHECK(mine.tags.get<std::map<std::string, std::string>>() == tags);
  CHECK(mine.name == name);

  CHECK(detail(mine, "private_ip_address") == non_empty(field(theirs, "PrivateIpAddress")));
  CHECK(detail(mine, "public_ip_address") == non_empty(field(theirs, "PublicIpAddress")));
  CHECK(detail(mine, "private_dns_name") == non_empty(field(theirs, "PrivateDnsName")));
  CHECK(detail(mine, "public_dns_name") == non_empty(field(theirs, "PublicDnsName")));
  CHECK(detail(mine, "vpc_id") == non_empty(field(theirs, "VpcId")));
  CHECK(detail(mine, "subnet_id") == non_empty(field(theirs, "SubnetId")));
  CHECK(detail(mine, "key_name") == non_empty(field(theirs, "KeyName")));
  CHECK(detail(mine, "architecture") == non_empty(field(theirs, "Architecture")));
  CHECK(detail(mine, "platform") == non_empty(field(theirs, "Platform")));
  if (theirs.contains("CpuOptions") && theirs["CpuOptions"].contains("CoreCount"))
    CHECK(mine.summary.cpu_count == theirs["CpuOptions"]["CoreCount"].get<int>() *
                                        theirs["CpuOptions"]["ThreadsPerCore"].get<int>());
  else
    CHECK(mine.summary.cpu_count == 0);
}

void check_describe_instances(const std::string& xml, const json& twin) {
  const InstancePage page = parse_describe_instances(xml);
  std::vector<json> expected;
  for (const auto& reservation : twin["Reservations"])
    for (const auto& instance : reservation["Instances"]) expected.push_back(instance);
  REQUIRE(page.instances.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    compare_instance(page.instances[i], expected[i]);
  CHECK(page.next_token == field(twin, "NextToken"));
}

void check_run_instances(const std::string& xml, const json& twin) {
  const auto instances = parse_run_instances(xml);
  REQUIRE(instances.size() == twin["Instances"].size());
  for (std::size_t i = 0; i < instances.size(); ++i)
    compare_instance(instances[i], twin["Instances"][i]);
}

void check_instance_types(const std::string& xml, const json& twin) {
  const InstanceTypePage page = parse_describe_instance_types(xml);
  REQUIRE(page.types.size() == twin["InstanceTypes"].size());
  for (std::size_t i = 0; i < page.types.size(); ++i) {
    const auto& mine = page.types[i];
    const auto& theirs = twin["InstanceTypes"][i];
    INFO("type " << theirs["InstanceType"]);
    CHECK(mine.instance_type == theirs["InstanceType"].get<std::string>());
    CHECK(mine.vcpus == theirs["VCpuInfo"]["DefaultVCpus"].get<int>());
    CHECK(mine.memory_mib == theirs["MemoryInfo"]["SizeInMiB"].get<long long>());
    const json gpus = theirs.contains("GpuInfo") ? theirs["GpuInfo"]["Gpus"] : json::array();
    REQUIRE(mine.gpus.size() == gpus.size());
    for (std::size_t g = 0; g < gpus.size(); ++g) {
      CHECK(mine.gpus[g].name == gpus[g]["Name"].get<std::string>());
      CHECK(mine.gpus[g].manufacturer == gpus[g]["Manufacturer"].get<std::string>());
      CHECK(mine.gpus[g].count == gpus[g]["Count"].get<int>());
      CHECK(mine.gpus[g].memory_mib == gpus[g]["MemoryInfo"]["SizeInMiB"].get<long long>());
    }
  }
  CHECK(page.next_token == field(twin, "NextToken"));
}

void check_state_changes(const std::string& xml, const json& twin, const char* key) {
  const auto changes = parse_state_changes(xml);
  REQUIRE(changes.size() == twin[key].size());
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const auto& theirs = twin[key][i];
    CHECK(changes[i].instance_id == theirs["InstanceId"].get<std::string>());
    // Old answers (libcloud's terminate fixture) say shutdownState, which botocore ignores too.
    const json current = theirs.value("CurrentState", json{{"Name", ""}, {"Code", 0}});
    CHECK(changes[i].current_state == current["Name"].get<std::string>());
    CHECK(changes[i].current_code == current["Code"].get<int>());
    CHECK(changes[i].previous_state == theirs["PreviousState"]["Name"].get<std::string>());
    CHECK(changes[i].previous_code == theirs["PreviousState"]["Code"].get<int>());
  }
}

void check_instance_status(const std::string& xml, const json& twin) {
  const InstanceStatusPage page = parse_describe_instance_status(xml);
  REQUIRE(page.statuses.size() == twin["InstanceStatuses"].size());
  for (std::size_t i = 0; i < page.statuses.size(); ++i) {
    const auto& theirs = twin["InstanceStatuses"][i];
    CHECK(page.statuses[i].instance_id == theirs["InstanceId"].get<std::string>());
    CHECK(page.statuses[i].state == theirs["InstanceState"]["Name"].get<std::string>());
    CHECK(page.statuses[i].system == field(theirs["SystemStatus"], "Status"));
    CHECK(page.statuses[i].instance == field(theirs["InstanceStatus"], "Status"));
  }
  CHECK(page.next_token == field(twin, "NextToken"));
}

void compare_task(const ReplaceRootVolumeTask& mine, const json& theirs) {
  CHECK(mine.task_id == theirs["ReplaceRootVolumeTaskId"].get<std::string>());
  CHECK(mine.instance_id == theirs["InstanceId"].get<std::string>());
  CHECK(mine.state == theirs["TaskState"].get<std::string>());
  CHECK(mine.image_id == field(theirs, "ImageId"));
}

void check_error(const std::string& xml, const json& twin) {
  const auto error = parse_error(xml);
  REQUIRE(error);
  CHECK(error->code == twin["Error"]["Code"].get<std::string>());
  CHECK(error->message == twin["Error"]["Message"].get<std::string>());
  CHECK(error->request_id == twin["ResponseMetadata"]["RequestId"].get<std::string>());
}

// Which parser reads a sample, from its file name.
bool check_sample(const std::string& stem, const std::string& xml, const json& twin) {
  auto has = [&](std::string_view part) { return stem.find(part) != std::string::npos; };
  if (has("describe-instance-types"))
    check_instance_types(xml, twin);
  else if (has("describe-instance-status"))
    check_instance_status(xml, twin);
  else if (has("describe-instances") || has("describe_instances"))
    check_describe_instances(xml, twin);
  else if (has("run-instances") || has("run_instances"))
    check_run_instances(xml, twin);
  else if (has("start"))
    check_state_changes(xml, twin, "StartingInstances");
  else if (has("stop-instances") || has("stop_instances"))
    check_state_changes(xml, twin, "StoppingInstances");
  else if (has("terminate"))
    check_state_changes(xml, twin, "TerminatingInstances");
  else if (has("reboot"))
    CHECK(parse_reboot(xml));
  else if (has("error"))
    check_error(xml, twin);
  else if (stem == "CreateReplaceRootVolumeTask")
    compare_task(parse_create_replace_root_volume_task(xml), twin["ReplaceRootVolumeTask"]);
  else if (stem == "DescribeReplaceRootVolumeTasks") {
    const auto page = parse_describe_replace_root_volume_tasks(xml);
    REQUIRE(page.tasks.size() == twin["ReplaceRootVolumeTasks"].size());
    for (std::size_t i = 0; i < page.tasks.size(); ++i)
      compare_task(page.tasks[i], twin["ReplaceRootVolumeTasks"][i]);
    CHECK(page.next_token == field(twin, "NextToken"));
  } else
    return false;
  return true;
}

}  // namespace

TEST_CASE("EC2 XML samples parse into what botocore reads from them", "[ec2][cloudapi]") {
  const fs::path dir = aws_samples_dir() / "ec2-xml";
  if (!fs::is_directory(dir)) {
    WARN("no EC2 XML samples at " << dir.string() << "; skipped");
    return;
  }
  int checked = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".xml") continue;
    const std::string stem = entry.path().stem().string();
    INFO("sample " << entry.path().string());
    const fs::path twin_path = entry.path().parent_path() / (stem + ".botocore.json");
    REQUIRE(fs::exists(twin_path));
    const json twin = json::parse(read_text(twin_path));
    CHECK(check_sample(stem, read_text(entry.path()), twin));
    ++checked;
  }
  CHECK(checked == 23);
}

TEST_CASE("EC2 GPU instance types agree with the instance-type catalogue", "[ec2][cloudapi]") {
  const fs::path xml = aws_samples_dir() / "ec2-xml" / "moto" / "describe-instance-types-gpu.xml";
  const fs::path catalogue = aws_samples_dir() / "instance-types" / "moto-gpu-instance-types.json";
  if (!fs::exists(xml) || !fs::exists(catalogue)) {
    WARN("no EC2 instance type samples; skipped");
    return;
  }
  const json types = json::parse(read_text(catalogue));
  const auto page = parse_describe_instance_types(read_text(xml));
  REQUIRE(page.types.size() == 3);
  for (const auto& facts : page.types) {
    INFO(facts.instance_type);
    REQUIRE(types.contains(facts.instance_type));
    const json& gpu = types[facts.instance_type]["GpuInfo"]["Gpus"][0];
    REQUIRE(facts.gpus.size() == 1);
    CHECK(facts.gpus[0].name == gpu["Name"].get<std::string>());
    CHECK(facts.gpus[0].count == gpu["Count"].get<int>());
    CHECK(facts.vcpus == types[facts.instance_type]["VCpuInfo"]["DefaultVCpus"].get<int>());
  }
}

TEST_CASE("EC2 XML: namespaces are matched, not ignored", "[ec2][cloudapi]") {
  // A prefixed namespace reads like the default one.
  const std::string prefixed =
      R"(<ec2:RebootInstancesResponse xmlns:ec2="http://ec2.amazonaws.com/doc/2016-11-15/">)"
      R"(<ec2:return>false</ec2:return></ec2:RebootInstancesResponse>)";
  CHECK_FALSE(parse_reboot(prefixed));
  // An element of another namespace with the same local name is not EC2's.
  const std::string foreign =
      R"(<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/" )"
      R"(xmlns:x="urn:other"><x:nextToken>not-ours</x:nextToken><reservationSet/>)"
      R"(</DescribeInstancesResponse>)";
  CHECK_FALSE(parse_describe_instances(foreign).next_token);
}

TEST_CASE("EC2 XML: malformed or unexpected answers are clear errors", "[ec2][cloudapi]") {
  CHECK_THROWS_AS(parse_describe_instances("<DescribeInstancesResponse><reservationSet>"),
                  ironhold::Error);
  CHECK_THROWS_WITH(parse_describe_instances(""), Catch::Contains("not well-formed"));
  CHECK_THROWS_WITH(parse_describe_instance_types("<Other/>"), Catch::Contains("<Other>"));
  CHECK_THROWS_WITH(
      parse_state_changes("<Response><Errors><Error><Code>IncorrectInstanceState</Code><Message>"
                          "no</Message></Error></Errors><RequestID>r</RequestID></Response>"),
      Catch::Contains("IncorrectInstanceState"));
  CHECK_FALSE(parse_error("not xml at all"));
  CHECK_FALSE(parse_error("<Response><Errors/></Response>"));
  // An entity that would read a local file is not expanded.
  const std::string xxe =
      R"(<?xml version="1.0"?><!DOCTYPE r [<!ENTITY e SYSTEM "file:///etc/passwd">]>)"
      R"(<RebootInstancesResponse><return>&e;</return></RebootInstancesResponse>)";
  try {
    CHECK_FALSE(parse_reboot(xxe));
  } catch (const ironhold::Error&) {
    SUCCEED("rejected");
  }
}

TEST_CASE("EC2 states map to power states and status checks to health", "[ec2][cloudapi]") {
  struct Row {
    const char* state;
    ironhold::PowerState power;
    bool gone;
  };
  const Row table[] = {
      {"running", ironhold::PowerState::on, false},
      {"stopped", ironhold::PowerState::off, false},
      {"pending", ironhold::PowerState::transitioning, false},
      {"stopping", ironhold::PowerState::transitioning, false},
      {"shutting-down", ironhold::PowerState::transitioning, false},
      {"terminated", ironhold::PowerState::unknown, true},
      {"hibernating-someday", ironhold::PowerState::unknown, false},
  };
  for (const auto& row : table) {
    INFO(row.state);
    CHECK(map_instance_state(row.state).power == row.power);
    CHECK(map_instance_state(row.state).gone == row.gone);
  }
  using ironhold::Health;
  CHECK(health_of_checks("ok", "ok") == Health::ok);
  CHECK(health_of_checks("impaired", "ok") == Health::critical);
  CHECK(health_of_checks("ok", "impaired") == Health::critical);
  CHECK(health_of_checks("insufficient-data", "ok") == Health::unknown);
  CHECK(health_of_checks("initializing", "initializing") == Health::unknown);
  CHECK(health_of_checks("not-applicable", "not-applicable") == Health::unknown);
  CHECK(health_of_checks(std::nullopt, std::nullopt) == Health::unknown);
}

}  // namespace ec2_xml_samples_test
