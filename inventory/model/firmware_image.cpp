#include "inventory/model/firmware_image.hpp"

#include "inventory/error.hpp"

namespace ironhold {
namespace {

// Printable ASCII or UTF-8 text of 1..max bytes, with no control characters and no space at
// either end.
std::string checked_text(const std::optional<std::string>& value, const char* field,
                         std::size_t max) {
  if (!value || value->empty()) throw invalid(std::string("?") + field + "= is required", field);
  const std::string& v = *value;
  if (v.size() > max)
    throw invalid(std::string(field) + " is longer than " + std::to_string(max) + " bytes", field);
  for (const char c : v)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      throw invalid(std::string(field) + " may not contain control characters", field);
  if (v.front() == ' ' || v.back() == ' ')
    throw invalid(std::string(field) + " may not start or end with a space", field);
  return v;
}

}  // namespace

nlohmann::json to_json(const FirmwareImage& image) {
  return {{"id", image.id},
          {"name", image.spec.name},
          {"version", image.spec.version},
          {"component", image.spec.component},
          {"model", image.spec.model ? nlohmann::json(*image.spec.model) : nlohmann::json()},
          {"size", image.size},
          {"sha256", image.sha256},
          {"uploaded_by", image.uploaded_by},
          {"created_at", image.created_at}};
}

FirmwareImageSpec parse_firmware_image_spec(const std::optional<std::string>& name,
                                            const std::optional<std::string>& version,
                                            const std::optional<std::string>& component,
                                            const std::optional<std::string>& model) {
  FirmwareImageSpec spec;
  spec.name = checked_text(name, "name", 255);
  if (spec.name.find('/') != std::string::npos || spec.name == "." || spec.name == "..")
    throw invalid("name is a file name, without '/'", "name");
  spec.version = checked_text(version, "version", 64);
  spec.component = checked_text(component, "component", 64);
  if (model && !model->empty()) spec.model = checked_text(model, "model", 128);
  return spec;
}

}  // namespace ironhold
