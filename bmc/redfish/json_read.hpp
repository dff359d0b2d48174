#pragma once
// Tolerant readers over Redfish documents. A BMC may send any JSON type where the schema says
// string or number (null, arrays, objects, numeric strings, 1e400): these readers return nothing
// instead of throwing, so the normalizer never needs a try block. nlohmann's own accessors
// (operator[] on const, get<T>) assert or throw on a wrong type; use these instead.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ironhold::bmc::redfish {

// The property `key` of `object`, or null when `object` is not an object or has no such key.
const nlohmann::json* property(const nlohmann::json& object, std::string_view key);
const nlohmann::json* property(const nlohmann::json* object, std::string_view key);

// A non-empty string property (BMCs send "" for "unknown").
std::optional<std::string> read_string(const nlohmann::json* object, std::string_view key);
// A finite number, or a string that is one ("42", " 3.5"): some BMCs quote their numbers.
std::optional<double> read_number(const nlohmann::json* object, std::string_view key);
// A boolean, or the strings "true"/"false".
std::optional<bool> read_bool(const nlohmann::json* object, std::string_view key);
// The property when it has the expected shape, else null.
const nlohmann::json* read_object(const nlohmann::json* object, std::string_view key);
const nlohmann::json* read_array(const nlohmann::json* object, std::string_view key);

// The canonical path a link object ({"@odata.id": "..."}) points to; empty when malformed.
std::string id_of(const nlohmann::json& link);

// Canonical paths of a property that is a link or an array of links ({"@odata.id": ...}),
// in order, without duplicates; anything malformed is skipped.
std::vector<std::string> read_links(const nlohmann::json* object, std::string_view key);

// A number held by a JSON value itself (not a property): for array elements.
std::optional<double> number_value(const nlohmann::json& value);

// "/redfish/v1/Chassis/1U/Sensors/CPU1Temp" -> "CPU1Temp".
std::string last_segment(std::string_view path);
// "/redfish/v1/Chassis/1U" -> "Chassis/1U": a readable name that is unique per service.
std::string relative_path(std::string_view path);

}  // namespace ironhold::bmc::redfish
