// The simulator's test controls under /_sim/ (no auth, JSON): faults for the next requests,
// terminating a server, expiring every token, and the raw state.
#include <charconv>

#include "sim/cloud/openstack/sim_state.hpp"

namespace ironhold::sim::cloud::openstack {

using nlohmann::json;

namespace {

ApiReply control_error(unsigned status, const std::string& message) {
  return json_reply(status, json{{"error", message}});
}

std::optional<unsigned long long> count_field(const json& body, const char* key) {
  const auto it = body.find(key);
  if (it == body.end() || !it->is_number_unsigned()) return std::nullopt;
  return it->get<unsigned long long>();
}

ApiReply set_faults(OpenStackSimulator::State& state, const ApiRequest& request) {
  const json body =
      request.body.empty() ? json::object() : json::parse(request.body, nullptr, false);
  if (!body.is_object()) return control_error(400, "the body must be a JSON object");
  for (const auto& [key, value] : body.items()) {
    if (key != "throttle_next" && key != "error_next" && key != "latency_ms")
      return control_error(400, "unknown fault \"" + key + "\"");
    if (!value.is_number_unsigned())
      return control_error(400, "\"" + key + "\" must be a non-negative integer");
  }
  if (const auto n = count_field(body, "throttle_next"))
    state.faults.throttle_next = static_cast<unsigned>(*n);
  if (const auto n = count_field(body, "error_next"))
    state.faults.error_next = static_cast<unsigned>(*n);
  if (const auto n = count_field(body, "latency_ms"))
    state.faults.latency = std::chrono::milliseconds(*n);
  return json_reply(200, json{{"throttle_next", state.faults.throttle_next},
                              {"error_next", state.faults.error_next},
                              {"latency_ms", state.faults.latency.count()}});
}

ApiReply terminate(OpenStackSimulator::State& state, const std::string& id) {
  SimServer* s = state.server(id);
  if (!s) return control_error(404, "no server " + id);
  const auto now = std::chrono::system_clock::now();
  s->status = "DELETED";
  s->vm_state = "deleted";
  s->power_state = 0;
  s->task_state.reset();
  s->pending.reset();
  s->terminated = now;
  s->updated = now;
  return json_reply(200, json{{"id", id}, {"status", s->status}});
}

// The server goes to ERROR with a fault, as after a failed host (a hard reboot recovers it).
ApiReply fail(OpenStackSimulator::State& state, const std::string& id) {
  SimServer* s = state.server(id);
  if (!s || s->deleted()) return control_error(404, "no server " + id);
  s->status = "ERROR";
  s->vm_state = "error";
  s->power_state = 0;
  s->task_state.reset();
  s->pending.reset();
  s->fault = "Simulated failure of the compute host";
  s->updated = std::chrono::system_clock::now();
  return json_reply(200, json{{"id", id}, {"status", s->status}});
}

}  // namespace

ApiReply control_route(OpenStackSimulator::State& state, const ApiRequest& request,
                       std::string_view rest) {
  if (rest == "instances" && request.method == "GET") return json_reply(200, state.describe());
  if (rest == "faults" && request.method == "POST") return set_faults(state, request);
  if (rest == "tokens/expire" && request.method == "POST") {
    // Every token issued so far stops working, as after a Keystone key rotation.
    const auto count = state.tokens.size();
    state.tokens.clear();
    return json_reply(200, json{{"expired", count}});
  }
  constexpr std::string_view prefix = "instances/";
  if (request.method == "POST" && rest.substr(0, prefix.size()) == prefix) {
    const std::string_view tail = rest.substr(prefix.size());
    const auto slash = tail.find('/');
    if (slash != std::string_view::npos && slash > 0) {
      const std::string id(tail.substr(0, slash));
      const std::string_view verb = tail.substr(slash + 1);
      if (verb == "terminate") return terminate(state, id);
      if (verb == "error") return fail(state, id);
    }
  }
  return control_error(404, "no control route " + std::string(rest));
}

}  // namespace ironhold::sim::cloud::openstack
