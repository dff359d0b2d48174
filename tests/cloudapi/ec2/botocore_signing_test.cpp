// The EC2 Query requests the driver sends, checked against botocore at run time
// (botocore_sign.py): botocore's own serializer must give the same parameters for the same
// operation, and botocore's SigV4Auth must give the same Authorization header for the same body.
#include <catch2/catch.hpp>
#include <map>

#include "cloudapi/ec2/ec2_request.hpp"
#include "inventory/util/time.hpp"
#include "tests/cloudapi/ec2/python_oracle.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace botocore_signing_test {

using namespace ironhold::cloudapi::ec2;
using nlohmann::json;

namespace {

struct Case {
  Ec2Query query;
  json botocore_params;  // the same request in botocore's terms
  std::string endpoint;
  std::string region;
  bool session_token = false;
};

std::vector<Case> generated_cases() {
  std::vector<Case> cases;
  {
    Ec2Query q("DescribeInstances");
    q.add_filter("instance-state-name", {"running", "stopped"});
    q.add_filter("tag:Team Name", {"gpu team ü", "a~b*c", "x+y/z=1&2"});
    q.add("MaxResults", "5");
    q.add("NextToken", "eyJ2IjoxfQ==/+~*");
    json p = {{"Filters",
               {{{"Name", "instance-state-name"}, {"Values", {"running", "stopped"}}},
                {{"Name", "tag:Team Name"}, {"Values", {"gpu team ü", "a~b*c", "x+y/z=1&2"}}}}},
              {"MaxResults", 5},
              {"NextToken", "eyJ2IjoxfQ==/+~*"}};
    cases.push_back({q, p, "https://ec2.us-east-1.amazonaws.com/", "us-east-1", false});
    cases.push_back({q, p, "https://ec2.us-east-1.amazonaws.com/", "us-east-1", true});
  }
  {
    Ec2Query q("StartInstances");
    q.add_list("InstanceId", {"i-0123456789abcdef0", "i-0fedcba9876543210", "i-00000000000000001"});
    json p = {
        {"InstanceIds", {"i-0123456789abcdef0", "i-0fedcba9876543210", "i-00000000000000001"}}};
    cases.push_back({q, p, "https://ec2.eu-west-1.amazonaws.com/", "eu-west-1", false});
    cases.push_back({q, p, "http://127.0.0.1:8931/", "us-west-2", true});
  }
  {
    Ec2Query q("StopInstances");
    q.add_list("InstanceId", {"i-0123456789abcdef0"});
    q.add("Force", "true");
    json p = {{"InstanceIds", {"i-0123456789abcdef0"}}, {"Force", true}};
    cases.push_back(
        {q, p, "https://ec2.ap-northeast-1.amazonaws.com:443/", "ap-northeast-1", true});
  }
  {
    Ec2Query q("DescribeInstanceStatus");
    q.add("IncludeAllInstances", "true");
    q.add_list("InstanceId", {"i-1", "i-2"});
    json p = {{"IncludeAllInstances", true}, {"InstanceIds", {"i-1", "i-2"}}};
    cases.push_back({q, p, "http://localhost:4566/", "us-east-1", false});
  }
  {
    Ec2Query q("CreateReplaceRootVolumeTask");
    q.add("InstanceId", "i-0123456789abcdef0");
    q.add("ImageId", "ami-0abcdef1234567890");
    q.add("ClientToken", "ironhold rebuild 7 ~*");
    q.add("DeleteReplacedRootVolume", "true");
    json p = {{"InstanceId", "i-0123456789abcdef0"},
              {"ImageId", "ami-0abcdef1234567890"},
              {"ClientToken", "ironhold rebuild 7 ~*"},
              {"DeleteReplacedRootVolume", true}};
    cases.push_back({q, p, "https://ec2.us-east-1.amazonaws.com/", "us-east-1", false});
  }
  return cases;
}

std::map<std::string, std::string> as_map(const QueryParams& params) {
  return {params.begin(), params.end()};
}

}  // namespace

TEST_CASE("EC2 query parameters and SigV4 signatures agree with botocore", "[ec2][cloudapi]") {
  if (!ironhold::test::ec2::botocore_available()) {
    WARN("/usr/bin/python3 with botocore is not installed; skipped");
    return;
  }
  const auto when = ironhold::parse_rfc3339("2026-11-30T06:07:08Z");
  REQUIRE(when);
  AwsCredentials credentials{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", {}};
  const std::string token = "FwoGZXIvYXdzEBYaDHqa0AP/token+with/slashes==";

  const auto cases = generated_cases();
  json job = {{"sign", json::array()}, {"serialize", json::array()}};
  std::vector<SignedEc2Request> signed_requests;
  for (const auto& c : cases) {
    AwsCredentials creds = credentials;
    if (c.session_token) creds.session_token = token;
    auto request = sign_ec2_query(c.query, c.endpoint, creds, c.region, *when);
    json item = {
        {"method", request.method},
        {"url", request.url},
        {"body", request.body},
        {"headers", json::array({json::array({"Content-Type", std::string(kFormContentType)})})},
        {"access_key_id", creds.access_key_id},
        {"secret_access_key", creds.secret_access_key},
        {"region", c.region},
        {"timestamp", "20261130T060708Z"}};
    if (creds.session_token) item["session_token"] = *creds.session_token;
    job["sign"].push_back(item);
    job["serialize"].push_back({{"operation", c.query.action()}, {"params", c.botocore_params}});
    signed_requests.push_back(std::move(request));
  }

  const json answer = ironhold::test::ec2::run_python_oracle("botocore_sign.py", job);
  REQUIRE(answer["sign"].size() == cases.size());
  REQUIRE(answer["serialize"].size() == cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    INFO("case " << i << ": " << cases[i].query.action() << " at " << cases[i].endpoint);
    const auto& request = signed_requests[i];
    auto header = [&](std::string_view name) -> std::string {
      for (const auto& [n, v] : request.headers)
        if (n == name) return v;
      return {};
    };
    CHECK(header("Authorization") == answer["sign"][i]["authorization"].get<std::string>());
    CHECK(header("X-Amz-Date") == answer["sign"][i]["x_amz_date"].get<std::string>());
    if (cases[i].session_token)
      CHECK(header("X-Amz-Security-Token") ==
            answer["sign"][i]["x_amz_security_token"].get<std::string>());
    CHECK(as_map(cases[i].query.params()) ==
          answer["serialize"][i]["params"].get<std::map<std::string, std::string>>());
  }
}

TEST_CASE("EC2 form bodies use RFC 3986 encoding", "[ec2][cloudapi]") {
  Ec2Query q("DescribeInstances");
  q.add_filter("tag:Name", {"a b", "ü~*"});
  CHECK(q.form_body() ==
        "Action=DescribeInstances&Version=2016-11-15&Filter.1.Name=tag%3AName&"
        "Filter.1.Value.1=a%20b&Filter.1.Value.2=%C3%BC~%2A");
  CHECK(host_header_for("https://ec2.us-east-1.amazonaws.com/") == "ec2.us-east-1.amazonaws.com");
  CHECK(host_header_for("http://127.0.0.1:8080/") == "127.0.0.1:8080");
  CHECK(host_header_for("https://h:443/") == "h");
  CHECK_FALSE(host_header_for("ftp://h/"));
  CHECK(default_endpoint("eu-west-1") == "https://ec2.eu-west-1.amazonaws.com/");
}

}  // namespace botocore_signing_test
