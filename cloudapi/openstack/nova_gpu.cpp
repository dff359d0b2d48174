// GPU facts from a Nova flavor's extra specs. Nova itself knows GPUs only as PCI aliases (whose
// vendor/product ids live in nova.conf, so the account maps alias -> model) and as placement
// resource classes (VGPU, PGPU, CUSTOM_*).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>

#include "cloudapi/openstack/nova_json.hpp"

namespace ironhold::cloudapi::openstack {

using nlohmann::json;

namespace {

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::optional<int> count_of(std::string_view text) {
  text = trim(text);
  int value = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || p != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// The account's model name for an alias or resource class, matched case-insensitively.
std::optional<std::string> mapped_model(const json& aliases, std::string_view name) {
  if (!aliases.is_object()) return std::nullopt;
  const std::string wanted = upper(name);
  for (const auto& [key, value] : aliases.items())
    if (upper(key) == wanted && value.is_string() && !value.get<std::string>().empty())
      return value.get<std::string>();
  return std::nullopt;
}

// "a100", "h100", "l40s", "t4", "rtx6000", "gpu-a10": the names operators give GPU aliases. A
// NIC or NVMe alias ("mlx5", "nvme") is not one.
bool looks_like_gpu(std::string_view alias) {
  const std::string name = upper(alias);
  if (name.find("GPU") != std::string::npos || name.find("RTX") != std::string::npos) return true;
  if (name.size() < 2 || !std::isdigit(static_cast<unsigned char>(name[1]))) return false;
  return std::string_view("AHBLTVPK").find(name[0]) != std::string_view::npos;
}

// "CUSTOM_GPU_H100" -> "H100", "CUSTOM_NVIDIA_A100_GPU" -> "NVIDIA A100": the class name without
// its CUSTOM_ prefix and GPU words, underscores as spaces.
std::string model_from_class(std::string_view resource_class) {
  std::string_view rest = resource_class.substr(7);  // after "CUSTOM_"
  std::string out;
  while (!rest.empty()) {
    const auto underscore = rest.find('_');
    const std::string_view word = rest.substr(0, underscore);
    rest = underscore == std::string_view::npos ? std::string_view{} : rest.substr(underscore + 1);
    if (word.empty() || word == "GPU" || word == "PGPU" || word == "VGPU") continue;
    if (!out.empty()) out += ' ';
    out += word;
  }
  return out;
}

// The resource class of a "resources:CLASS" or granular "resources1:CLASS" key.
std::optional<std::string_view> resource_class_of(std::string_view key) {
  if (key.substr(0, 9) != "resources") return std::nullopt;
  const auto colon = key.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  return key.substr(colon + 1);
}

// A model named by a trait such as "trait:CUSTOM_GPU_A10": required", for vGPU/pGPU flavors.
std::optional<std::string> model_from_traits(const json& extra_specs) {
  for (const auto& [key, value] : extra_specs.items()) {
    if (key.substr(0, 6) != "trait:" || !value.is_string() ||
        value.get<std::string>() != "required")
      continue;
    const std::string_view trait = std::string_view(key).substr(6);
    if (trait.substr(0, 7) == "CUSTOM_" && trait.find("GPU") != std::string_view::npos) {
      std::string model = model_from_class(trait);
      if (!model.empty()) return model;
    }
  }
  return std::nullopt;
}

struct Found {
  std::string model;
  int count = 0;
};

void add_found(std::vector<Found>& found, std::string model, int count) {
  if (count <= 0) return;
  for (auto& f : found)
    if (f.model == model) {
      f.count += count;
      return;
    }
  found.push_back(Found{std::move(model), count});
}

void from_pci_aliases(std::string_view value, const json& aliases, std::vector<Found>& found) {
  while (!value.empty()) {
    const auto comma = value.find(',');
    const std::string_view entry = trim(value.substr(0, comma));
    value = comma == std::string_view::npos ? std::string_view{} : value.substr(comma + 1);
    const auto colon = entry.find(':');
    const std::string_view alias = trim(entry.substr(0, colon));
    const auto count =
        colon == std::string_view::npos ? std::optional<int>(1) : count_of(entry.substr(colon + 1));
    if (alias.empty() || !count) continue;
    if (auto model = mapped_model(aliases, alias)) {
      add_found(found, gpu_model_name("", *model), *count);
    } else if (looks_like_gpu(alias)) {
      add_found(found, gpu_model_name("", upper(alias)), *count);
    }
  }
}

}  // namespace

GpuFacts gpus_from_extra_specs(const json& extra_specs, const json& aliases) {
  GpuFacts out;
  if (!extra_specs.is_object()) return out;
  std::vector<Found> found;
  for (const auto& [key, value] : extra_specs.items()) {
    if (!value.is_string()) continue;
    const std::string& text = value.get_ref<const std::string&>();
    if (key == "pci_passthrough:alias") {
      from_pci_aliases(text, aliases, found);
      continue;
    }
    const auto resource_class = resource_class_of(key);
    if (!resource_class) continue;
    const auto count = count_of(text);
    if (!count) continue;
    const std::string rc(*resource_class);
    if (rc == "VGPU" || rc == "PGPU") {
      std::string model =
          mapped_model(aliases, rc)
              .value_or(model_from_traits(extra_specs)
                            .value_or(rc == "VGPU" ? std::string("vGPU") : std::string("GPU")));
      add_found(found, gpu_model_name("", model), *count);
    } else if (rc.substr(0, 7) == "CUSTOM_" && rc.find("GPU") != std::string::npos) {
      std::string model = mapped_model(aliases, rc).value_or(model_from_class(rc));
      add_found(found, gpu_model_name("", model.empty() ? "GPU" : model), *count);
    }
  }
  if (found.empty()) return out;
  // A flavor normally asks for one kind of GPU; with several, the model is the most numerous and
  // the count is every card.
  const auto most = std::max_element(
      found.begin(), found.end(), [](const Found& a, const Found& b) { return a.count < b.count; });
  out.model = most->model;
  for (const auto& f : found) out.count += f.count;
  if (out.model.rfind("NVIDIA", 0) == 0) out.manufacturer = "NVIDIA";
  return out;
}

}  // namespace ironhold::cloudapi::openstack
