#pragma once
// The $select query parameter (Redfish DSP0266, "Query parameters"): a comma-separated list of
// properties, nested ones written Parent/Child, asks for only those properties of a resource.
// The simulated BMCs answer it as BMCs that declare ProtocolFeaturesSupported.SelectQuery do.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace ironhold::sim::redfish {

// The percent-decoded value of query parameter `name` in a request target, if present.
std::optional<std::string> query_parameter(std::string_view target, std::string_view name);

// `document` with only the selected properties, and always its top-level @odata annotations (a
// client must still know what it is reading). An object `select` names nothing in stays empty.
nlohmann::json apply_select(const nlohmann::json& document, std::string_view select);

}  // namespace ironhold::sim::redfish
