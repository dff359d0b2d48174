#include "bmc/redfish/json_read.hpp"

#include <charconv>
#include <cmath>

#include "bmc/redfish/resource_graph.hpp"

namespace ironhold::bmc::redfish {

using nlohmann::json;

const json* property(const json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const json* property(const json* object, std::string_view key) {
  return object ? property(*object, key) : nullptr;
}

std::optional<std::string> read_string(const json* object, std::string_view key) {
  const json* value = property(object, key);
  if (!value || !value->is_string()) return std::nullopt;
  const auto& text = value->get_ref<const std::string&>();
  if (text.empty()) return std::nullopt;
  return text;
}

std::optional<double> number_value(const json& value) {
  double number = 0;
  if (value.is_number()) {
    number = value.get<double>();
  } else if (value.is_string()) {
    std::string_view text = value.get_ref<const std::string&>();
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
    if (text.empty()) return std::nullopt;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  } else {
    return std::nullopt;
  }
  // NaN and infinities (from_chars accepts "nan"/"inf"; 1e400 overflows) are not readings.
  if (!std::isfinite(number)) return std::nullopt;
  return number;
}

std::optional<double> read_number(const json* object, std::string_view key) {
  const json* value = property(object, key);
  return value ? number_value(*value) : std::nullopt;
}

std::optional<bool> read_bool(const json* object, std::string_view key) {
  const json* value = property(object, key);
  if (!value) return std::nullopt;
  if (value->is_boolean()) return value->get<bool>();
  if (value->is_string()) {
    const auto& text = value->get_ref<const std::string&>();
    if (text == "true" || text == "True") return true;
    if (text == "false" || text == "False") return false;
  }
  return std::nullopt;
}

const json* read_object(const json* object, std::string_view key) {
  const json* value = property(object, key);
  return value && value->is_object() ? value : nullptr;
}

const json* read_array(const json* object, std::string_view key) {
  const json* value = property(object, key);
  return value && value->is_array() ? value : nullptr;
}

std::string id_of(const json& link) {
  const json* id = property(link, "@odata.id");
  if (!id || !id->is_string()) return {};
  return canonical_path(id->get_ref<const std::string&>());
}

std::vector<std::string> read_links(const json* object, std::string_view key) {
  std::vector<std::string> links;
  const json* value = property(object, key);
  if (!value) return links;
  auto add = [&links](const json& element) {
    std::string path = id_of(element);
    if (path.empty()) return;
    for (const auto& known : links)
      if (known == path) return;
    links.push_back(std::move(path));
  };
  if (value->is_array()) {
    for (const auto& element : *value) add(element);
  } else {
    add(*value);
  }
  return links;
}

std::string last_segment(std::string_view path) {
  auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string relative_path(std::string_view path) {
  constexpr std::string_view prefix = "/redfish/v1/";
  if (path.starts_with(prefix)) path.remove_prefix(prefix.size());
  return std::string(path);
}

}  // namespace ironhold::bmc::redfish
