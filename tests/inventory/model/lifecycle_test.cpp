// The lifecycle table walked: the arrows the lifecycle is specified with (written out here from
// the specification, not read from the code) are all possible, through an operator's action or a
// task/poller outcome; nothing is possible by hand from provisioning or cleaning; every refusal
// names the state and what is allowed.
#include "inventory/model/lifecycle.hpp"

#include <catch2/catch.hpp>
#include <deque>
#include <set>

#include "inventory/error.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace lifecycle_test {

using namespace ironhold;
using L = Lifecycle;

namespace {

// Moves that tasks and the poller make, not operators: inspection results, provisioning (the
// reprovision route and its task) and cleaning results.
const std::set<std::pair<L, L>> kAutomatic = {
    {L::enrolled, L::inspecting},           {L::inspecting, L::available},
    {L::inspecting, L::inspect_failed},     {L::available, L::provisioning},
    {L::deployed, L::provisioning},         {L::provisioning, L::deployed},
    {L::provisioning, L::provision_failed}, {L::cleaning, L::available},
    {L::cleaning, L::clean_failed}};

// The specification's arrows: enrolled → inspecting → available → provisioning → deployed;
// deployed → provisioning (reprovision); deployed → cleaning → available (release); failures to
// inspect_failed, provision_failed, clean_failed; retired.
const std::set<std::pair<L, L>> kSpecified = {{L::enrolled, L::inspecting},
                                              {L::inspecting, L::available},
                                              {L::available, L::provisioning},
                                              {L::provisioning, L::deployed},
                                              {L::deployed, L::provisioning},
                                              {L::deployed, L::cleaning},
                                              {L::cleaning, L::available},
                                              {L::inspecting, L::inspect_failed},
                                              {L::provisioning, L::provision_failed},
                                              {L::cleaning, L::clean_failed},
                                              {L::available, L::retired}};

std::set<std::pair<L, L>> all_moves() {
  std::set<std::pair<L, L>> moves = kAutomatic;
  for (const auto& t : lifecycle_transitions()) moves.insert({t.from, t.to});
  return moves;
}

}  // namespace

TEST_CASE("every specified lifecycle arrow is possible", "[lifecycle]") {
  const auto moves = all_moves();
  for (const auto& arrow : kSpecified) {
    INFO(to_string(arrow.first) << " -> " << to_string(arrow.second));
    CHECK(moves.count(arrow) == 1);
  }
}

TEST_CASE("every state is reachable from enrolled and every failure has a way out", "[lifecycle]") {
  const auto moves = all_moves();
  std::set<L> seen{L::enrolled};
  std::deque<L> todo{L::enrolled};
  while (!todo.empty()) {
    const L at = todo.front();
    todo.pop_front();
    for (const auto& [from, to] : moves)
      if (from == at && seen.insert(to).second) todo.push_back(to);
  }
  for (const auto name : enum_names<Lifecycle>()) {
    INFO(name);
    CHECK(seen.count(*parse_enum<Lifecycle>(name)) == 1);
  }
  for (const L failed : {L::inspect_failed, L::provision_failed, L::clean_failed}) {
    INFO(to_string(failed));
    CHECK_FALSE(allowed_actions(failed).empty());
    CHECK(find_transition(failed, LifecycleAction::retire));
  }
}

TEST_CASE("nothing moves a node by hand out of provisioning, cleaning or retired", "[lifecycle]") {
  for (const L busy : {L::provisioning, L::cleaning, L::retired}) {
    INFO(to_string(busy));
    CHECK(allowed_actions(busy).empty());
  }
}

TEST_CASE("a refused action names the state and the allowed actions", "[lifecycle]") {
  for (const auto state_name : enum_names<Lifecycle>()) {
    const L state = *parse_enum<Lifecycle>(state_name);
    for (const auto action_name : enum_names<LifecycleAction>()) {
      const LifecycleAction action = *parse_enum<LifecycleAction>(action_name);
      INFO(state_name << " + " << action_name);
      if (find_transition(state, action)) {
        CHECK_NOTHROW(check_transition(state, action));
        continue;
      }
      try {
        check_transition(state, action);
        FAIL("allowed, but not in the table");
      } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::conflict);
        const std::string message = e.what();
        CHECK(message.find(std::string(state_name)) != std::string::npos);
        for (const auto allowed : allowed_actions(state))
          CHECK(message.find(std::string(to_string(allowed))) != std::string::npos);
      }
    }
  }
}

}  // namespace lifecycle_test
