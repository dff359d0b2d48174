#pragma once
// What the task tests share: enrolling a simulated BMC, posting an action, and waiting for a task
// to end, all through the real API.
#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

namespace ironhold::test {

using namespace std::chrono_literals;

inline std::string enroll_redfish(TestServer& server, const std::string& token,
                                  const std::string& name, const std::string& endpoint,
                                  const std::string& password = "password") {
  const auto res = http_send(server.port(), "POST", "/api/v1/nodes",
                             {{"name", name},
                              {"driver", "redfish"},
                              {"endpoint", endpoint},
                              {"credentials", {{"username", "admin"}, {"password", password}}}},
                             token);
  INFO(res.body);
  REQUIRE(res.status == 201);
  return res.json()["id"];
}

// POST /api/v1/nodes/{node}/{action} with `body` (and an Idempotency-Key when given).
inline HttpResult post_action(TestServer& server, const std::string& token, const std::string& node,
                              const std::string& action, const nlohmann::json& body,
                              const std::string& idempotency_key = "") {
  HttpRequest req;
  req.method = "POST";
  req.target = "/api/v1/nodes/" + node + "/" + action;
  req.body = body.dump();
  req.token = token;
  if (!idempotency_key.empty()) req.headers["Idempotency-Key"] = idempotency_key;
  return http_request(server.port(), req);
}

// Posts the action, expects 202, returns the task's id.
inline std::string start_task(TestServer& server, const std::string& token, const std::string& node,
                              const std::string& action, const nlohmann::json& body) {
  const auto res = post_action(server, token, node, action, body);
  INFO(res.body);
  REQUIRE(res.status == 202);
  const std::string id = res.json()["id"];
  CHECK(res.header("location") == "/api/v1/tasks/" + id);
  return id;
}

inline nlohmann::json get_task(TestServer& server, const std::string& token,
                               const std::string& id) {
  const auto res = http_get(server.port(), "/api/v1/tasks/" + id, token);
  REQUIRE(res.status == 200);
  return res.json();
}

// Waits (generously: CI machines are slow and shared) until the task satisfies `ready`.
template <class Pred>
nlohmann::json wait_task(TestServer& server, const std::string& token, const std::string& id,
                         Pred ready, std::chrono::seconds deadline = 90s) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  nlohmann::json task;
  while (std::chrono::steady_clock::now() < until) {
    task = get_task(server, token, id);
    if (ready(task)) return task;
    std::this_thread::sleep_for(100ms);
  }
  return task;
}

inline bool task_ended(const nlohmann::json& t) {
  return t["state"] == "succeeded" || t["state"] == "failed" || t["state"] == "cancelled";
}

inline nlohmann::json wait_task_end(TestServer& server, const std::string& token,
                                    const std::string& id) {
  return wait_task(server, token, id, task_ended);
}

// The step named `name` of a task, or null.
inline nlohmann::json step_of(const nlohmann::json& task, const std::string& name) {
  for (const auto& s : task["steps"])
    if (s["name"] == name) return s;
  return nullptr;
}

}  // namespace ironhold::test
