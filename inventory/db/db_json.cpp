#include "inventory/db/db_json.hpp"

namespace ironhold::db {
namespace {

void scrub(nlohmann::json& value) {
  if (value.is_string()) {
    auto& s = value.get_ref<std::string&>();
    if (s.find('\0') != std::string::npos) s = db_text(s);
  } else if (value.is_structured()) {
    for (auto& item : value) scrub(item);
  }
}

}  // namespace

std::string db_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\0')
      out += "\xEF\xBF\xBD";
    else
      out += c;
  }
  return out;
}

std::string db_json(nlohmann::json value) {
  scrub(value);
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace ironhold::db
