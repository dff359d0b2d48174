#pragma once
// The four routes of a per-model baseline: PUT/GET/DELETE {prefix}/{model} and GET {prefix}.
// Firmware versions and BIOS attributes are both kept per server model with the same routes,
// audit and access; each resource gives its store's calls and its schemas.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "web/api.hpp"

namespace ironhold::web {

struct ModelBaselineRoutes {
  std::string prefix;       // "/api/v1/bios/baselines"
  std::string noun;         // "BIOS", in the routes' summaries
  std::string what;         // what a baseline holds, in PUT's summary
  std::string target_type;  // the audit entries' target type, "bios_baseline"
  std::string content_key;  // the one field of the body, kept in the audit details
  nlohmann::json content_schema;
  nlohmann::json baseline_schema;
  // The body's content, checked (throws invalid naming the field).
  std::function<nlohmann::json(const nlohmann::json& body)> parse_body;
  // The store's calls, run on the blocking pool; baselines come back as their JSON.
  std::function<nlohmann::json(Services&, const std::string& model, const nlohmann::json& content,
                               const std::string& actor)>
      put;
  std::function<nlohmann::json(Services&)> list;
  std::function<nlohmann::json(Services&, const std::string& model)> get;
  std::function<void(Services&, const std::string& model)> remove;
};

void register_model_baseline_routes(Api& api, ModelBaselineRoutes routes);

}  // namespace ironhold::web
