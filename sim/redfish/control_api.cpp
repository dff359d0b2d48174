#include "sim/redfish/control_api.hpp"

#include <charconv>
#include <string_view>
#include <vector>

#include "inventory/error.hpp"
#include "sim/control_reply.hpp"

namespace ironhold::sim {

using nlohmann::json;
namespace http = redfish::http;
using redfish::Response;

using namespace control;

namespace {

std::string text_field(const json& body, const char* name, bool required) {
  const auto it = body.find(name);
  if (it == body.end()) {
    if (required) throw invalid(std::string(name) + " is required", name);
    return {};
  }
  if (!it->is_string()) throw invalid(std::string(name) + " must be a string", name);
  return it->get<std::string>();
}

// /bmcs/{i}/... once the index is known.
Response bmc_route(RedfishFleet& fleet, std::size_t i, const std::vector<std::string_view>& parts,
                   const redfish::Request& request) {
  const auto method = request.method();
  auto& state = fleet.state(i);
  const std::string what = parts.size() > 2 ? std::string(parts[2]) : "";
  if (parts.size() == 2 && method == http::verb::get)
    return reply(http::status::ok, fleet.describe(i));
  if (parts.size() == 3 && what == "counters" && method == http::verb::get)
    return reply(http::status::ok, redfish::to_json(state.counters()));
  if (parts.size() == 3 && what == "faults") {
    if (method == http::verb::get) return reply(http::status::ok, to_json(state.faults()));
    if (method == http::verb::delete_) {
      fleet.clear_faults(i);
      return reply(http::status::ok, to_json(state.faults()));
    }
    if (method == http::verb::put || method == http::verb::post) {
      const redfish::Faults base = method == http::verb::post ? state.faults() : redfish::Faults{};
      fleet.set_faults(i, redfish::faults_from_json(body_of(request), base));
      return reply(http::status::ok, to_json(state.faults()));
    }
  }
  if (parts.size() == 3 && what == "console") {
    if (method == http::verb::get) return reply(http::status::ok, state.console());
    if (method == http::verb::post) {
      state.console_print(text_field(body_of(request), "print", true));
      return reply(http::status::ok, state.console());
    }
  }
  if (method != http::verb::post)
    return reply(http::status::method_not_allowed, {{"error", "method not allowed"}});
  if (parts.size() == 3 && what == "ssh-host-key")
    return reply(http::status::ok, {{"host_key_sha256", fleet.change_ssh_host_key(i)}});
  if (parts.size() == 3 && what == "certificate")
    return reply(http::status::ok, {{"certificate_sha256", fleet.change_certificate(i)}});
  if (parts.size() == 3 && what == "power") {
    const json body = body_of(request);
    state.set_power(text_field(body, "system", false), text_field(body, "state", true));
    return reply(http::status::ok, fleet.describe(i));
  }
  if (parts.size() == 3 && what == "health") {
    const json body = body_of(request);
    state.set_health(text_field(body, "health", true), text_field(body, "system", false));
    return reply(http::status::ok, fleet.describe(i));
  }
  if (parts.size() == 3 && what == "sel") {
    const json body = body_of(request);
    const json entry =
        state.append_sel(text_field(body, "severity", true), text_field(body, "message", true),
                         text_field(body, "sensor_type", false), text_field(body, "system", false));
    return reply(http::status::created, entry);
  }
  if (parts.size() == 3 && what == "gpu") {
    const json body = body_of(request);
    state.set_gpu_fault(text_field(body, "gpu", true), body);
    return reply(http::status::ok, fleet.describe(i));
  }
  if (parts.size() == 3 && what == "nvswitch") {
    const json body = body_of(request);
    state.set_nvswitch_fault(text_field(body, "switch", true), body);
    return reply(http::status::ok, fleet.describe(i));
  }
  if (parts.size() == 4 && what == "sessions" && parts[3] == "expire") {
    const std::size_t n = state.session_count();
    state.expire_sessions();
    return reply(http::status::ok, {{"expired", n}});
  }
  return reply(http::status::not_found, {{"error", "no such control route"}});
}

}  // namespace

Response handle_control(RedfishFleet& fleet, const redfish::Request& request) {
  try {
    const auto parts = split_path(request.target());
    if (parts.empty() || parts[0] != "bmcs")
      return reply(http::status::not_found, {{"error", "no such control route"}});
    if (parts.size() == 1) {
      if (request.method() != http::verb::get)
        return reply(http::status::method_not_allowed, {{"error", "method not allowed"}});
      json list = json::array();
      for (std::size_t i = 0; i < fleet.size(); ++i) list.push_back(fleet.describe(i));
      return reply(http::status::ok, {{"bmcs", list}});
    }
    return bmc_route(fleet, bmc_index(parts[1], fleet.size()), parts, request);
  } catch (const Error& e) {
    return error_reply(e);
  } catch (const std::exception& e) {
    return reply(http::status::internal_server_error, {{"error", e.what()}});
  }
}

}  // namespace ironhold::sim
