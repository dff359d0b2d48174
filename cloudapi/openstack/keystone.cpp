#include "cloudapi/openstack/keystone.hpp"

#include "cloudapi/openstack/json_fields.hpp"
#include "inventory/error.hpp"

namespace ironhold::cloudapi::openstack {

using nlohmann::json;

namespace {

std::string required_string(const json& object, const char* name) {
  const std::string field = std::string("credentials.") + name;
  const auto it = object.find(name);
  if (it == object.end() || it->is_null())
    throw invalid(std::string("OpenStack credentials need \"") + name + "\"", field);
  if (!it->is_string() || it->get_ref<const std::string&>().empty())
    throw invalid(std::string("OpenStack credentials: \"") + name + "\" must be a non-empty string",
                  field);
  return it->get<std::string>();
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool interface_matches(const json& endpoint, std::string_view interface) {
  const auto it = endpoint.find("interface");
  return it != endpoint.end() && it->is_string() && it->get_ref<const std::string&>() == interface;
}

bool region_matches(const json& endpoint, std::string_view region) {
  if (region.empty()) return true;
  for (const char* key : {"region_id", "region"}) {
    const auto it = endpoint.find(key);
    if (it != endpoint.end() && it->is_string() && it->get_ref<const std::string&>() == region)
      return true;
  }
  return false;
}

}  // namespace

KeystoneCredentials parse_credentials(const json& credentials) {
  if (!credentials.is_object())
    throw invalid("OpenStack credentials must be a JSON object", "credentials");
  // An application credential is the service-account form; its id decides which shape this is.
  if (credentials.contains("application_credential_id") ||
      credentials.contains("application_credential_secret")) {
    ApplicationCredentials out;
    out.id = required_string(credentials, "application_credential_id");
    out.secret = required_string(credentials, "application_credential_secret");
    return out;
  }
  PasswordCredentials out;
  out.username = required_string(credentials, "username");
  out.password = required_string(credentials, "password");
  out.user_domain_name = required_string(credentials, "user_domain_name");
  out.project_name = required_string(credentials, "project_name");
  out.project_domain_name = required_string(credentials, "project_domain_name");
  return out;
}

json auth_request_body(const KeystoneCredentials& credentials) {
  if (const auto* app = std::get_if<ApplicationCredentials>(&credentials)) {
    json identity = {{"methods", json::array({"application_credential"})},
                     {"application_credential", {{"id", app->id}, {"secret", app->secret}}}};
    return {{"auth", {{"identity", std::move(identity)}}}};
  }
  const auto& password = std::get<PasswordCredentials>(credentials);
  json user = {{"name", password.username},
               {"domain", {{"name", password.user_domain_name}}},
               {"password", password.password}};
  json identity = {{"methods", json::array({"password"})},
                   {"password", {{"user", std::move(user)}}}};
  json scope = {
      {"project",
       {{"name", password.project_name}, {"domain", {{"name", password.project_domain_name}}}}}};
  return {{"auth", {{"identity", std::move(identity)}, {"scope", std::move(scope)}}}};
}

std::string auth_tokens_url(std::string_view auth_url) {
  while (!auth_url.empty() && auth_url.back() == '/') auth_url.remove_suffix(1);
  std::string out(auth_url);
  if (!ends_with(auth_url, "/v3")) out += "/v3";
  return out + "/auth/tokens";
}

KeystoneToken parse_token_response(std::string_view body, std::string subject_token) {
  const json doc = json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) throw invalid("Keystone's token answer is not JSON");
  const auto token = doc.find("token");
  if (token == doc.end() || !token->is_object())
    throw invalid("Keystone's token answer has no \"token\" object");
  KeystoneToken out;
  out.id = std::move(subject_token);
  const auto expires = token->find("expires_at");
  if (expires == token->end() || !expires->is_string())
    throw invalid("Keystone's token has no expires_at");
  const auto expires_at = parse_rfc3339(expires->get_ref<const std::string&>());
  if (!expires_at)
    throw invalid("Keystone's token expires_at is not a date: " + expires->get<std::string>());
  out.expires_at = *expires_at;
  if (const auto issued = token->find("issued_at"); issued != token->end() && issued->is_string())
    out.issued_at = parse_rfc3339(issued->get_ref<const std::string&>());
  if (const auto catalog = token->find("catalog"); catalog != token->end() && catalog->is_array())
    out.catalog = *catalog;
  if (const auto project = token->find("project");
      project != token->end() && project->is_object()) {
    out.project_id = string_or(*project, "id", "");
    out.project_name = string_or(*project, "name", "");
  }
  return out;
}

std::string endpoint_interface(const json& options) {
  if (!options.is_object()) return "public";
  const auto it = options.find("interface");
  if (it == options.end() || it->is_null()) return "public";
  if (it->is_string()) {
    const auto& value = it->get_ref<const std::string&>();
    if (value == "public" || value == "internal" || value == "admin") return value;
  }
  throw invalid("OpenStack option \"interface\" must be \"public\", \"internal\" or \"admin\"",
                "options.interface");
}

std::optional<std::string> select_endpoint(const json& catalog, std::string_view type,
                                           std::string_view interface, std::string_view region) {
  if (!catalog.is_array()) return std::nullopt;
  for (const auto& service : catalog) {
    if (!service.is_object()) continue;
    const auto service_type = service.find("type");
    if (service_type == service.end() || !service_type->is_string() ||
        service_type->get_ref<const std::string&>() != type)
      continue;
    const auto endpoints = service.find("endpoints");
    if (endpoints == service.end() || !endpoints->is_array()) continue;
    for (const auto& endpoint : *endpoints) {
      if (!endpoint.is_object() || !interface_matches(endpoint, interface) ||
          !region_matches(endpoint, region))
        continue;
      const auto url = endpoint.find("url");
      if (url != endpoint.end() && url->is_string() && !url->get_ref<const std::string&>().empty())
        return url->get<std::string>();
    }
  }
  return std::nullopt;
}

SystemTime refresh_time(const KeystoneToken& token, SystemTime received_at,
                        std::chrono::seconds margin) {
  const auto lifetime = token.expires_at - received_at;
  // A short-lived token (tests, strict deployments) is renewed half way instead.
  if (lifetime < 2 * margin) return received_at + lifetime / 2;
  return token.expires_at - margin;
}

std::optional<std::string> keystone_error_message(std::string_view body) {
  const json doc = json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  const auto error = doc.find("error");
  if (error == doc.end() || !error->is_object()) return std::nullopt;
  std::string out = string_or(*error, "title", "Error");
  if (const auto code = error->find("code"); code != error->end() && code->is_number_integer())
    out += " (" + std::to_string(code->get<long long>()) + ")";
  out += ": " + string_or(*error, "message", "");
  return out;
}

}  // namespace ironhold::cloudapi::openstack
