// The OpenAPI schemas of what the poller records: components, firmware, sensors, events.
#include <nlohmann/json.hpp>

#include "inventory/model/hardware.hpp"
#include "web/openapi_types.hpp"

namespace ironhold::web::openapi {

using nlohmann::json;

namespace {

json text() {
  return {{"type", "string"}};
}

}  // namespace

json hardware_summary_schema() {
  return {{"type", "object"},
          {"properties",
           {{"cpu_count",
             {{"type", "integer"}, {"description", "present CPUs of the System's Processors"}}},
            {"cpu_model", nullable("string")},
            {"gpu_count",
             {{"type", "integer"}, {"description", "present GPUs of the System's Processors"}}},
            {"gpu_model",
             {{"type", {"string", "null"}},
              {"description",
               "the GPU catalogue's canonical model (GET /api/v1/gpu-models); the driver's own "
               "name where no alias maps it"}}},
            {"gpu_model_raw",
             {{"type", {"string", "null"}},
              {"description", "the GPU's name as the BMC or the provider gave it"}}},
            {"memory_gib", nullable("number")},
            {"drive_count", {{"type", "integer"}}},
            {"drive_capacity_gb", nullable("number")}}}};
}

json hardware_schemas() {
  json component = {{"type", "object"},
                    {"properties",
                     {{"kind", string_enum(enum_names<ComponentKind>())},
                      {"slot", text()},
                      {"name", nullable("string")},
                      {"model", nullable("string")},
                      {"manufacturer", nullable("string")},
                      {"serial", nullable("string")},
                      {"part_number", nullable("string")},
                      {"status", string_enum(enum_names<Health>())},
                      {"firmware_version", nullable("string")},
                      {"details", {{"type", "object"}}},
                      {"since", {{"type", "string"}, {"format", "date-time"}}}}}};
  json firmware = {
      {"type", "object"},
      {"properties",
       {{"component", text()},
        {"name", nullable("string")},
        {"version", text()},
        {"updateable", {{"type", "boolean"}}},
        {"related_component", nullable("string")},
        {"since", {{"type", "string"}, {"format", "date-time"}}},
        {"until", {{"type", json::array({"string", "null"})}, {"format", "date-time"}}}}}};
  json sensor = {{"type", "object"},
                 {"properties",
                  {{"name", text()},
                   {"kind", text()},
                   {"value", nullable("number")},
                   {"unit", nullable("string")},
                   {"status", nullable("string")},
                   {"time", {{"type", "string"}, {"format", "date-time"}}},
                   {"thresholds", {{"type", "object"}}}}}};
  json event = {{"type", "object"},
                {"properties",
                 {{"id", {{"type", "integer"}}},
                  {"node_id", nullable("string")},
                  {"node_name", nullable("string")},
                  {"kind", text()},
                  {"severity", string_enum(enum_names<Severity>())},
                  {"message", text()},
                  {"details", {{"type", "object"}}},
                  {"time", {{"type", "string"}, {"format", "date-time"}}},
                  {"recorded_at", {{"type", "string"}, {"format", "date-time"}}}}}};
  return {{"Component", component},
          {"Firmware", firmware},
          {"SensorReading", sensor},
          {"Event", event}};
}

}  // namespace ironhold::web::openapi
