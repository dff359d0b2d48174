// The OpenAPI schemas of firmware images.
#include <nlohmann/json.hpp>

#include "web/openapi_types.hpp"

namespace ironhold::web::openapi {

using nlohmann::json;

json firmware_schemas() {
  json image = {{"type", "object"},
                {"properties",
                 {{"id", {{"type", "string"}, {"format", "uuid"}}},
                  {"name", {{"type", "string"}}},
                  {"version", {{"type", "string"}}},
                  {"component", {{"type", "string"}, {"description", "\"BMC\", \"BIOS\", ..."}}},
                  {"model", nullable("string")},
                  {"size", {{"type", "integer"}}},
                  {"sha256", {{"type", "string"}}},
                  {"uploaded_by", {{"type", "string"}}},
                  {"created_at", {{"type", "string"}, {"format", "date-time"}}}}}};
  return {{"FirmwareImage", image}};
}

}  // namespace ironhold::web::openapi
