// The OpenAPI schemas of serial consoles: the output kept, and the sessions operators had.
#include <nlohmann/json.hpp>

#include "web/openapi_types.hpp"

namespace ironhold::web::openapi {

using nlohmann::json;

json console_schemas() {
  json out = json::object();
  out["SerialConsoleChunk"] = {
      {"type", "object"},
      {"properties",
       {{"seq", {{"type", "integer"}, {"description", "order of the chunks; page with after="}}},
        {"at",
         {{"type", "string"}, {"format", "date-time"}, {"description", "when it was received"}}},
        {"data",
         {{"type", "string"},
          {"description", "the bytes as the host printed them (U+FFFD where not UTF-8)"}}}}}};
  out["SerialConsoleLog"] = {
      {"type", "object"},
      {"properties",
       {{"node_id", {{"type", "string"}}},
        {"node_name", {{"type", "string"}}},
        {"chunks",
         {{"type", "array"}, {"items", {{"$ref", "#/components/schemas/SerialConsoleChunk"}}}}},
        {"next_after", {{"type", "integer"}, {"description", "after= for the next page"}}},
        {"more", {{"type", "boolean"}, {"description", "the page is full: there may be more"}}}}}};
  out["SerialConsoleSession"] = {
      {"type", "object"},
      {"properties",
       {{"id", {{"type", "integer"}}},
        {"node_id", {{"type", "string"}}},
        {"principal", {{"type", "string"}, {"description", "the user or token"}}},
        {"writer", {{"type", "boolean"}, {"description", "had the keyboard"}}},
        {"protocol", {{"type", "string"}, {"description", "ipmi-sol, ssh"}}},
        {"opened_at", {{"type", "string"}, {"format", "date-time"}}},
        {"closed_at", nullable("string")},
        {"duration_seconds", nullable("number")},
        {"end_reason", nullable("string")},
        {"bytes_in", {{"type", "integer"}, {"description", "keys sent to the host"}}},
        {"bytes_out", {{"type", "integer"}, {"description", "output the host printed"}}}}}};
  return out;
}

}  // namespace ironhold::web::openapi
