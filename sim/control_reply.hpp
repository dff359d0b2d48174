#pragma once
// What the simulators' control APIs (sim/redfish/control_api.cpp, sim/ipmi/control_api.cpp)
// share: JSON replies, errors as {"error": ...} with their status, the request path in parts,
// the BMC index it names, and the JSON object body.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "inventory/error.hpp"
#include "sim/redfish/redfish_server.hpp"

namespace ironhold::sim::control {

redfish::Response reply(redfish::http::status status, const nlohmann::json& body);
// invalid: 400, not_found: 404, conflict: 409, anything else: 500.
redfish::Response error_reply(const Error& e);
// "/bmcs/3/faults?x" -> {"bmcs", "3", "faults"}
std::vector<std::string_view> split_path(std::string_view target);
// The BMC index `text` names; ironhold::Error (not_found) when it names none of `size`.
std::size_t bmc_index(std::string_view text, std::size_t size);
// The body as a JSON object ({} when empty); ironhold::Error (invalid) otherwise.
nlohmann::json body_of(const redfish::Request& request);

}  // namespace ironhold::sim::control
