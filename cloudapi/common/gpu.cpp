#include "cloudapi/common/gpu.hpp"

#include <cctype>

namespace ironhold::cloudapi {
namespace {

bool starts_with_ci(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Card names of NVIDIA's data-centre families, which providers often give without the vendor.
bool nvidia_family(std::string_view name) {
  if (name.size() < 2) return false;
  const char first = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  const bool digit_follows = std::isdigit(static_cast<unsigned char>(name[1])) != 0;
  switch (first) {
    case 'A':
    case 'H':
    case 'B':
    case 'L':
    case 'T':
    case 'V':
    case 'P':
    case 'K':
      return digit_follows;
    default:
      return false;
  }
}

}  // namespace

std::string gpu_model_name(std::string_view manufacturer, std::string_view name) {
  manufacturer = trim(manufacturer);
  name = trim(name);
  if (name.empty()) return std::string(manufacturer);
  if (manufacturer.empty()) {
    if (nvidia_family(name)) return "NVIDIA " + std::string(name);
    return std::string(name);
  }
  if (starts_with_ci(name, manufacturer)) return std::string(name);
  return std::string(manufacturer) + " " + std::string(name);
}

void add_gpus(CloudInstance& instance, const GpuFacts& gpus) {
  if (gpus.count <= 0) return;
  instance.summary.gpu_model = gpus.model;
  instance.summary.gpu_count = gpus.count;
  for (int i = 0; i < gpus.count; ++i) {
    Component c;
    c.kind = ComponentKind::gpu;
    c.slot = "GPU" + std::to_string(i);
    c.name = "GPU " + std::to_string(i);
    c.model = gpus.model;
    c.manufacturer = gpus.manufacturer;
    c.status = Health::unknown;
    if (gpus.memory_mib) c.details["memory_gib"] = static_cast<double>(*gpus.memory_mib) / 1024.0;
    instance.components.push_back(std::move(c));
  }
}

}  // namespace ironhold::cloudapi
