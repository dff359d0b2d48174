#include "inventory/model/gpu_catalogue.hpp"

#include <cmath>

#include "inventory/model/json_fields.hpp"

namespace ironhold {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxName = 200;
constexpr std::size_t kMaxWord = 100;

std::string text_field(const json& body, const char* key, std::size_t max_length) {
  const auto it = body.find(key);
  if (it == body.end() || it->is_null())
    throw invalid(std::string("\"") + key + "\" is required", key);
  if (!it->is_string()) throw wrong_type(key, "a string", *it);
  const std::string text = it->get<std::string>();
  if (text.find_first_not_of(" \t") == std::string::npos || text.size() > max_length)
    throw unprocessable(
        std::string("\"") + key + "\" must have 1 to " + std::to_string(max_length) + " characters",
        key);
  return text;
}

}  // namespace

void check_gpu_alias(const GpuAlias& alias, const std::string& field) {
  if (alias.kind != "gpu" && alias.kind != "instance_type")
    throw unprocessable("\"" + field + ".kind\" must be \"gpu\" or \"instance_type\"",
                        field + ".kind");
  const auto first = alias.alias.find_first_not_of(" \t*");
  if (first == std::string::npos || alias.alias.size() > kMaxName)
    throw unprocessable("\"" + field + ".alias\" must have 1 to 200 characters besides a final '*'",
                        field + ".alias");
  const auto star = alias.alias.find('*');
  if (star != std::string::npos && star + 1 != alias.alias.size())
    throw unprocessable("\"" + field +
                            ".alias\" may only end in '*' (a prefix, like \"g5.*\"); a '*' "
                            "elsewhere matches nothing",
                        field + ".alias");
}

GpuAlias parse_gpu_alias(const json& body) {
  if (!body.is_object()) throw invalid("an alias must be a JSON object {kind, alias}");
  reject_unknown_keys(body, {"kind", "alias"}, "", ErrorKind::invalid);
  GpuAlias alias;
  alias.kind = "gpu";
  if (const auto it = body.find("kind"); it != body.end() && !it->is_null()) {
    if (!it->is_string()) throw wrong_type("kind", "\"gpu\" or \"instance_type\"", *it);
    alias.kind = it->get<std::string>();
  }
  const auto it = body.find("alias");
  if (it == body.end() || it->is_null()) throw invalid("\"alias\" is required", "alias");
  if (!it->is_string()) throw wrong_type("alias", "a string", *it);
  alias.alias = it->get<std::string>();
  check_gpu_alias(alias, "alias");
  return alias;
}

GpuModelSpec parse_gpu_model_spec(const std::string& path_name, const json& body) {
  if (!body.is_object()) throw invalid("the body must be a JSON object");
  reject_unknown_keys(body,
                      {"name", "vendor", "family", "model", "memory_gib", "form_factor", "aliases"},
                      "", ErrorKind::invalid);
  GpuModelSpec spec;
  spec.name = path_name;
  if (const auto it = body.find("name"); it != body.end() && !it->is_null())
    spec.name = text_field(body, "name", kMaxName);
  if (spec.name.find_first_not_of(" \t") == std::string::npos || spec.name.size() > kMaxName)
    throw unprocessable("a GPU model's name has 1 to 200 characters", "name");
  spec.vendor = text_field(body, "vendor", kMaxWord);
  spec.family = text_field(body, "family", kMaxWord);
  spec.model = text_field(body, "model", kMaxWord);
  spec.form_factor = text_field(body, "form_factor", kMaxWord);
  if (spec.form_factor != "SXM" && spec.form_factor != "PCIe" && spec.form_factor != "OAM" &&
      spec.form_factor != "other")
    throw unprocessable("\"form_factor\" must be SXM, PCIe, OAM or other", "form_factor");
  if (const auto it = body.find("memory_gib"); it != body.end() && !it->is_null()) {
    if (!it->is_number()) throw wrong_type("memory_gib", "a number of GiB", *it);
    const double gib = it->get<double>();
    if (!std::isfinite(gib) || gib <= 0 || gib >= 100000)
      throw unprocessable("\"memory_gib\" must be above 0 and below 100000", "memory_gib");
    spec.memory_gib = gib;
  }
  if (const auto it = body.find("aliases"); it != body.end() && !it->is_null()) {
    if (!it->is_array()) throw wrong_type("aliases", "an array of {kind, alias}", *it);
    spec.aliases.emplace();
    for (std::size_t i = 0; i < it->size(); ++i) {
      const std::string field = "aliases[" + std::to_string(i) + "]";
      const json& item = (*it)[i];
      if (!item.is_object()) throw wrong_type(field, "an object {kind, alias}", item);
      reject_unknown_keys(item, {"kind", "alias"}, field, ErrorKind::invalid);
      GpuAlias alias{item.value("kind", std::string("gpu")), {}};
      if (const auto a = item.find("alias"); a != item.end() && a->is_string())
        alias.alias = a->get<std::string>();
      else
        throw wrong_type(field + ".alias", "a string", item.value("alias", json()));
      check_gpu_alias(alias, field);
      spec.aliases->push_back(std::move(alias));
    }
  }
  return spec;
}

json to_json(const GpuAlias& a) {
  return {{"kind", a.kind}, {"alias", a.alias}};
}

json to_json(const GpuModel& m) {
  json aliases = json::array();
  for (const auto& a : m.aliases) aliases.push_back(to_json(a));
  return {{"name", m.name},
          {"vendor", m.vendor},
          {"family", m.family},
          {"model", m.model},
          {"memory_gib", m.memory_gib ? json(*m.memory_gib) : json(nullptr)},
          {"form_factor", m.form_factor},
          {"aliases", std::move(aliases)},
          {"nodes", m.nodes},
          {"gpus", m.gpus},
          {"updated_by", m.updated_by ? json(*m.updated_by) : json(nullptr)},
          {"updated_at", m.updated_at}};
}

json to_json(const UnmappedGpu& u) {
  return {{"name", u.name},
          {"nodes", u.nodes},
          {"source", {{"bmc", u.bmc_nodes}, {"cloud", u.cloud_nodes}}},
          {"drivers", u.drivers},
          {"instance_types", u.instance_types},
          {"example_nodes", u.example_nodes}};
}

}  // namespace ironhold
