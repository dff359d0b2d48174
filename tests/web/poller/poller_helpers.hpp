#pragma once
// What the end-to-end poller tests share: a poller that runs every second, and a wait for a node
// to reach a state through the API.
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "inventory/poller/poller.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

namespace ironhold::test {

using namespace std::chrono_literals;

inline PollerOptions fast_poller() {
  PollerOptions o;
  o.intervals.status = 1s;
  o.intervals.sensors = 2s;
  o.intervals.inventory = 3600s;
  o.intervals.failure_backoff = 1s;
  o.intervals.max_failure_backoff = 2s;
  o.idle_wait = 100ms;
  o.flush_interval = 50ms;
  return o;
}

// Waits (up to a generous deadline: CI machines are slow and shared) for the node to satisfy
// `ready`; returns the node as last read.
template <class Pred>
nlohmann::json wait_for_node(TestServer& server, const std::string& token, const std::string& id,
                             Pred ready, std::chrono::seconds deadline = 60s) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  nlohmann::json node;
  while (std::chrono::steady_clock::now() < until) {
    const auto res = http_get(server.port(), "/api/v1/nodes/" + id, token);
    if (res.status == 200) {
      node = res.json();
      if (ready(node)) return node;
    }
    std::this_thread::sleep_for(100ms);
  }
  return node;
}

}  // namespace ironhold::test
