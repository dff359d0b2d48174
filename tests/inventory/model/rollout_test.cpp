// A rollout's request, checked, and its planning: which pending nodes start, batch by batch, with
// at most max_parallel_per_rack of one rack updating or in its gate.
#include "inventory/model/rollout.hpp"

#include <catch2/catch.hpp>

#include "inventory/error.hpp"
#include "inventory/util/concat.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace rollout_test {

using namespace ironhold;
using nlohmann::json;

namespace {

const char* kImage = "6f1c1f2e-8a38-4d0e-9f1e-5b7b1a0c2d11";

RolloutNode node(int position, int batch, std::optional<std::string> rack,
                 RolloutNodeState state = RolloutNodeState::pending) {
  RolloutNode n;
  n.node_id = ironhold::util::concat("n", std::to_string(position));
  n.node_name = n.node_id;
  n.position = position;
  n.batch = batch;
  n.rack = std::move(rack);
  n.state = state;
  return n;
}

}  // namespace

TEST_CASE("a rollout request is checked and its defaults filled in", "[model][rollout]") {
  const auto spec = parse_rollout_spec({{"image", kImage}, {"selector", {{"rack", "R1"}}}});
  CHECK(spec.canary == 1);
  CHECK(spec.batch_size == 10);
  CHECK(spec.max_parallel_per_rack == 2);
  CHECK(spec.max_failures == 0);
  CHECK(spec.health_gate_seconds == 300);
  CHECK(spec.task_parameters["image"] == kImage);
  CHECK(spec.task_parameters["reset"] == true);
  CHECK(spec.task_parameters["timeout_s"] == 3600);

  const json base = {{"image", kImage}, {"selector", {{"rack", "R1"}}}};
  auto with = [&](const char* key, json value) {
    json body = base;
    body[key] = std::move(value);
    return body;
  };
  CHECK_THROWS_AS(parse_rollout_spec(with("selector", json::object())), Error);
  CHECK_THROWS_AS(parse_rollout_spec(with("image", "bios.bin")), Error);
  CHECK_THROWS_AS(parse_rollout_spec(with("batch_size", 0)), Error);
  CHECK_THROWS_AS(parse_rollout_spec(with("canary", -1)), Error);
  CHECK_THROWS_AS(parse_rollout_spec(with("health_gate_seconds", "5m")), Error);
  CHECK_THROWS_AS(parse_rollout_spec(with("timeout_s", 3)), Error);
  CHECK_THROWS_AS(parse_rollout_spec(with("speed", "fast")), Error);
  CHECK_THROWS_AS(parse_rollout_spec(json::array()), Error);
  try {
    parse_rollout_spec(with("max_parallel_per_rack", 0));
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::unprocessable);
    CHECK(e.field() == "max_parallel_per_rack");
  }
  CHECK(parse_rollout_spec(with("reset", false)).task_parameters["reset"] == false);
}

TEST_CASE("nodes start batch by batch, the canary alone first", "[model][rollout]") {
  std::vector<RolloutNode> nodes = {node(0, 0, "A"), node(1, 1, "A"), node(2, 1, "B"),
                                    node(3, 2, "B")};
  CHECK(nodes_to_start(nodes, 4) == std::vector<std::size_t>{0});
  nodes[0].state = RolloutNodeState::updating;
  CHECK(nodes_to_start(nodes, 4).empty());  // the canary has not ended
  nodes[0].state = RolloutNodeState::gating;
  CHECK(nodes_to_start(nodes, 4).empty());  // nor passed its gate
  nodes[0].state = RolloutNodeState::succeeded;
  CHECK(nodes_to_start(nodes, 4) == std::vector<std::size_t>{1, 2});
  nodes[1].state = RolloutNodeState::failed;
  nodes[2].state = RolloutNodeState::updating;
  CHECK(nodes_to_start(nodes, 4).empty());
  nodes[2].state = RolloutNodeState::skipped;
  CHECK(nodes_to_start(nodes, 4) == std::vector<std::size_t>{3});
  nodes[3].state = RolloutNodeState::cancelled;
  CHECK(nodes_to_start(nodes, 4).empty());
}

TEST_CASE("no more than max_parallel_per_rack of one rack at once", "[model][rollout]") {
  std::vector<RolloutNode> nodes;
  for (int i = 0; i < 5; ++i) nodes.push_back(node(i, 1, "dc1/R12"));
  nodes.push_back(node(5, 1, "dc1/R13"));
  nodes.push_back(node(6, 1, std::nullopt));  // in no rack: counts alone
  nodes.push_back(node(7, 1, std::nullopt));
  CHECK(nodes_to_start(nodes, 2) == std::vector<std::size_t>{0, 1, 5, 6, 7});
  nodes[0].state = RolloutNodeState::gating;
  nodes[1].state = RolloutNodeState::succeeded;
  CHECK(nodes_to_start(nodes, 2) == std::vector<std::size_t>{2, 5, 6, 7});
  CHECK(nodes_to_start(nodes, 1).size() == 3);  // R12 is busy with node 0
}

}  // namespace rollout_test
