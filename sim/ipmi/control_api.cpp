#include "sim/ipmi/control_api.hpp"

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

// A sensor named by its ID string or its number.
std::string sensor_field(const json& body) {
  const auto it = body.find("sensor");
  if (it == body.end()) throw invalid("sensor is required", "sensor");
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_unsigned()) return std::to_string(it->get<unsigned>());
  throw invalid("sensor must be a name or a number", "sensor");
}

Response bmc_route(IpmiFleet& fleet, std::size_t i, const std::vector<std::string_view>& parts,
                   const redfish::Request& request) {
  const auto method = request.method();
  auto& bmc = fleet.state(i);
  const std::string what = parts.size() > 2 ? std::string(parts[2]) : "";
  if (parts.size() == 2 && method == http::verb::get)
    return reply(http::status::ok, fleet.describe(i));
  if (parts.size() == 3 && what == "counters" && method == http::verb::get)
    return reply(http::status::ok, to_json(bmc.counters()));
  if (parts.size() == 3 && what == "faults") {
    if (method == http::verb::get) return reply(http::status::ok, to_json(bmc.faults()));
    if (method == http::verb::delete_) {
      bmc.set_faults({});
      return reply(http::status::ok, to_json(bmc.faults()));
    }
    if (method == http::verb::put || method == http::verb::post) {
      const ipmi::Faults base = method == http::verb::post ? bmc.faults() : ipmi::Faults{};
      bmc.set_faults(ipmi::faults_from_json(body_of(request), base));
      return reply(http::status::ok, to_json(bmc.faults()));
    }
  }
  if (parts.size() == 3 && what == "console") {
    if (method == http::verb::get) return reply(http::status::ok, bmc.console());
    if (method == http::verb::post) {
      const json body = body_of(request);
      const auto print = body.find("print");
      if (print == body.end() || !print->is_string())
        throw invalid("print is required: the text the host prints", "print");
      bmc.console_print(print->get<std::string>());
      return reply(http::status::ok, bmc.console());
    }
  }
  if (parts.size() == 3 && what == "power" && method == http::verb::post) {
    const json body = body_of(request);
    const auto state = body.find("state");
    if (state == body.end() || !state->is_string()) throw invalid("state is required", "state");
    bmc.set_power(state->get<std::string>());
    return reply(http::status::ok, fleet.describe(i));
  }
  if (parts.size() == 3 && what == "sel") {
    if (method == http::verb::get) return reply(http::status::ok, {{"entries", bmc.sel()}});
    if (method == http::verb::post) {
      const json body = body_of(request);
      unsigned offset = 0;
      if (const auto it = body.find("offset"); it != body.end()) {
        if (!it->is_number_unsigned()) throw invalid("offset must be 0 to 15", "offset");
        offset = it->get<unsigned>();
      }
      bool deassertion = false;
      if (const auto it = body.find("deassertion"); it != body.end()) {
        if (!it->is_boolean()) throw invalid("deassertion must be true or false", "deassertion");
        deassertion = it->get<bool>();
      }
      return reply(http::status::created, bmc.add_sel(sensor_field(body), offset, deassertion));
    }
  }
  if (parts.size() == 3 && what == "sensors") {
    if (method == http::verb::get) return reply(http::status::ok, {{"sensors", bmc.sensors()}});
    if (method == http::verb::post) {
      const json body = body_of(request);
      const auto value = body.find("value");
      if (value == body.end() || !value->is_number())
        throw invalid("value must be a number", "value");
      return reply(http::status::ok, bmc.set_sensor(sensor_field(body), value->get<double>()));
    }
  }
  if (parts.size() == 3 && what == "sessions") {
    if (method == http::verb::get) return reply(http::status::ok, {{"sessions", bmc.sessions()}});
    if (method == http::verb::delete_)
      return reply(http::status::ok, {{"expired", bmc.expire_sessions()}});
  }
  if (parts.size() == 4 && what == "sessions" && parts[3] == "expire" && method == http::verb::post)
    return reply(http::status::ok, {{"expired", bmc.expire_sessions()}});
  const bool known =
      parts.size() == 2 ||
      (parts.size() == 3 && (what == "counters" || what == "faults" || what == "power" ||
                             what == "sel" || what == "sensors" || what == "sessions"));
  if (known) return reply(http::status::method_not_allowed, {{"error", "method not allowed"}});
  return reply(http::status::not_found, {{"error", "no such control route"}});
}

}  // namespace

Response handle_ipmi_control(IpmiFleet& fleet, const redfish::Request& request) {
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
