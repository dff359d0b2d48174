// An independent client against the EC2 simulator: botocore (Debian's python3-botocore) lists the
// instances with its DescribeInstances paginator and stops one, over real HTTP on loopback; the
// simulator's own state must agree.
#include <catch2/catch.hpp>

#include "tests/cloudapi/ec2/ec2_sim_fixture.hpp"
#include "tests/cloudapi/ec2/python_oracle.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace ec2_simulator_botocore_test {

using ironhold::test::ec2::Ec2SimOnLoopback;
using nlohmann::json;

TEST_CASE("botocore lists and stops instances on the EC2 simulator", "[ec2][cloudapi]") {
  if (!ironhold::test::ec2::botocore_available()) {
    WARN("/usr/bin/python3 with botocore is not installed; skipped");
    return;
  }
  ironhold::sim::cloud::ec2::Ec2SimulatorOptions options;
  options.transition = std::chrono::hours(1);  // the stop stays in "stopping" for the check
  Ec2SimOnLoopback fixture(options);
  const json job = {{"endpoint", fixture.endpoint},
                    {"region", options.region},
                    {"access_key_id", options.access_key_id},
                    {"secret_access_key", options.secret_access_key},
                    {"page_size", 5}};
  const json answer = ironhold::test::ec2::run_python_oracle("botocore_client.py", job);

  const json sim_state = fixture.sim.instances();
  REQUIRE(answer["instances"].size() == sim_state.size());
  // The simulator's page size (2) is below botocore's PageSize (5): three pages.
  CHECK(answer["pages"] == 3);
  for (std::size_t i = 0; i < sim_state.size(); ++i) {
    CHECK(answer["instances"][i]["id"] == sim_state[i]["id"]);
    CHECK(answer["instances"][i]["type"] == sim_state[i]["type"]);
    CHECK(answer["instances"][i]["name"] == sim_state[i]["tags"]["Name"]);
  }
  REQUIRE(answer.contains("stopped"));
  const std::string stopped = answer["stopped"]["id"];
  CHECK(answer["stopped"]["previous"] == "running");
  CHECK(answer["stopped"]["current"] == "stopping");
  bool found = false;
  for (const auto& instance : sim_state) {
    if (instance["id"] != stopped) continue;
    found = true;
    CHECK(instance["state"] == "stopping");
    CHECK(instance["target_state"] == "stopped");
  }
  CHECK(found);
}

}  // namespace ec2_simulator_botocore_test
