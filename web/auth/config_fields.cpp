#include "web/auth/config_fields.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "inventory/model/json_fields.hpp"
#include "inventory/util/concat.hpp"

namespace ironhold::web::auth {

using util::concat;

namespace {
// Far past any real value; a longer one is a pasted file, not a setting.
constexpr std::size_t kMaxSettingBytes = 4096;
constexpr std::size_t kMaxSecretFileBytes = 4096;
constexpr std::size_t kMaxCaFileBytes = 1 << 20;
}  // namespace

std::string ConfigFields::name(std::string_view key) const {
  return concat(where, ".", key);
}

Error ConfigFields::error(std::string_view key, std::string_view problem) const {
  const std::string field = name(key);
  return invalid(concat("\"", field, "\" ", problem), field);
}

std::optional<std::string> ConfigFields::text(std::string_view key) const {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) throw wrong_type(name(key), "a string", *it);
  std::string value = it->get<std::string>();
  if (value.empty()) throw error(key, "must not be empty (leave it out instead)");
  if (value.size() > kMaxSettingBytes)
    throw error(key, concat("is longer than ", std::to_string(kMaxSettingBytes), " bytes"));
  if (std::any_of(value.begin(), value.end(),
                  [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
    throw error(key, "must not contain control characters (a newline, a tab)");
  return value;
}

std::string ConfigFields::required_text(std::string_view key) const {
  if (auto value = text(key)) return std::move(*value);
  throw error(key, "is required");
}

std::optional<bool> ConfigFields::boolean(std::string_view key) const {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  if (!it->is_boolean()) throw wrong_type(name(key), "true or false", *it);
  return it->get<bool>();
}

std::chrono::seconds ConfigFields::seconds(std::string_view key, std::chrono::seconds fallback,
                                           long long min, long long max) const {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return fallback;
  if (!it->is_number_integer()) throw wrong_type(name(key), "a whole number", *it);
  const auto value = it->get<long long>();
  if (value < min || value > max)
    throw error(key, concat("must be from ", std::to_string(min), " to ", std::to_string(max),
                            " seconds, not ", std::to_string(value)));
  return std::chrono::seconds(value);
}

std::string ConfigFields::file(std::string_view key, const std::string& path,
                               std::size_t limit) const {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw error(key, concat("names ", path, ", which cannot be read: ", std::strerror(errno)));
  std::string content(limit + 1, '\0');
  in.read(content.data(), static_cast<std::streamsize>(content.size()));
  content.resize(static_cast<std::size_t>(in.gcount()));
  if (content.size() > limit)
    throw error(key,
                concat("names ", path, ", which is larger than ", std::to_string(limit), " bytes"));
  return content;
}

std::string ConfigFields::secret_file(std::string_view key, const std::string& path) const {
  std::string secret = file(key, path, kMaxSecretFileBytes);
  if (secret.ends_with('\n')) secret.pop_back();
  if (secret.ends_with('\r')) secret.pop_back();
  if (secret.empty()) throw error(key, concat("names ", path, ", which is empty"));
  return secret;
}

void ConfigFields::check_ca_file(std::string_view key, const std::string& path) const {
  const std::string pem = file(key, path, kMaxCaFileBytes);
  if (pem.find("-----BEGIN CERTIFICATE-----") == std::string::npos)
    throw error(key, concat("names ", path, ", which holds no PEM certificate"));
}

}  // namespace ironhold::web::auth
