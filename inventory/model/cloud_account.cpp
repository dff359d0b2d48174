#include "inventory/model/cloud_account.hpp"

#include <algorithm>

#include "inventory/error.hpp"
#include "inventory/model/enums.hpp"
#include "inventory/model/json_fields.hpp"
#include "inventory/model/node.hpp"
#include "inventory/model/node_spec.hpp"

namespace ironhold {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxSecret = 4096;
constexpr int kMinInterval = 30, kMaxInterval = 86400;

// Every field of a credential object is a non-empty string; `required` must all be present.
void check_credential_fields(const json& creds, std::initializer_list<std::string_view> required,
                             std::initializer_list<std::string_view> allowed,
                             const std::string& what) {
  reject_unknown_keys(creds, allowed, "credentials", ErrorKind::unprocessable);
  for (const auto& [key, value] : creds.items()) {
    const std::string field = "credentials." + key;
    if (value.is_null()) continue;
    if (!value.is_string()) throw wrong_type(field, "a string", value);
    if (value.get_ref<const std::string&>().size() > kMaxSecret)
      throw unprocessable("\"" + field + "\" is too long", field);
  }
  for (auto key : required) {
    const auto it = creds.find(key);
    if (it == creds.end() || it->is_null() || it->get_ref<const std::string&>().empty())
      throw unprocessable(what + " need \"credentials." + std::string(key) + "\"",
                          "credentials." + std::string(key));
  }
}

void check_credentials(const std::string& provider, const json& creds) {
  if (!creds.is_object()) throw wrong_type("credentials", "an object", creds);
  if (provider == "ec2") {
    check_credential_fields(creds, {"access_key_id", "secret_access_key"},
                            {"access_key_id", "secret_access_key", "session_token"},
                            "EC2 credentials");
  } else if (provider == "bcc") {
    check_credential_fields(creds, {"access_key", "secret_key"}, {"access_key", "secret_key"},
                            "BCC credentials");
  } else if (creds.contains("application_credential_id") ||
             creds.contains("application_credential_secret")) {
    check_credential_fields(creds, {"application_credential_id", "application_credential_secret"},
                            {"application_credential_id", "application_credential_secret"},
                            "OpenStack application credentials");
  } else {
    check_credential_fields(
        creds, {"username", "password", "project_name"},
        {"username", "password", "user_domain_name", "project_name", "project_domain_name"},
        "OpenStack password credentials (or application_credential_id and "
        "application_credential_secret)");
  }
}

std::optional<std::string> parse_endpoint(const json& body) {
  auto endpoint = optional_string(body, "endpoint", "endpoint", 2000);
  if (!endpoint || endpoint->empty()) return std::nullopt;
  if (!endpoint->starts_with("https://") && !endpoint->starts_with("http://"))
    throw unprocessable("\"endpoint\" must be an http:// or https:// URL (got \"" +
                            endpoint->substr(0, 100) + "\")",
                        "endpoint");
  if (endpoint->find_first_of(" \t\r\n") != std::string::npos)
    throw unprocessable("\"endpoint\" must not contain white space", "endpoint");
  return endpoint;
}

json parse_options(const std::string& provider, const json& body) {
  const auto it = body.find("options");
  if (it == body.end() || it->is_null()) return json::object();
  if (!it->is_object()) throw wrong_type("options", "an object", *it);
  if (provider == "openstack") {
    reject_unknown_keys(*it,
                        {"interface", "gpu_aliases", "ca_bundle", "tls", "requests_per_second"},
                        "options", ErrorKind::unprocessable);
    if (auto i = it->find("interface"); i != it->end()) {
      if (!i->is_string() || (*i != "public" && *i != "internal" && *i != "admin"))
        throw unprocessable("\"options.interface\" must be public, internal or admin",
                            "options.interface");
    }
    if (auto a = it->find("gpu_aliases"); a != it->end()) {
      if (!a->is_object()) throw wrong_type("options.gpu_aliases", "an object of strings", *a);
      for (const auto& [alias, model] : a->items())
        if (!model.is_string())
          throw wrong_type("options.gpu_aliases." + alias, "a string (the GPU model)", model);
    }
    // A private cloud's Keystone often has a certificate of the organisation's own CA.
    if (auto b = it->find("ca_bundle"); b != it->end()) {
      if (!b->is_string()) throw wrong_type("options.ca_bundle", "a string (PEM)", *b);
      if (b->get_ref<const std::string&>().find("-----BEGIN CERTIFICATE-----") == std::string::npos)
        throw unprocessable("\"options.ca_bundle\" must hold PEM certificates",
                            "options.ca_bundle");
    }
    if (auto t = it->find("tls");
        t != it->end() && (!t->is_string() || (*t != "verify" && *t != "insecure")))
      throw unprocessable("\"options.tls\" must be verify or insecure", "options.tls");
  } else if (provider == "bcc") {
    // The key pair a rebuild installs instead of an admin password (Baidu prefers key pairs).
    reject_unknown_keys(*it, {"keypair_id", "requests_per_second"}, "options",
                        ErrorKind::unprocessable);
    if (auto k = it->find("keypair_id"); k != it->end() && !k->is_string())
      throw wrong_type("options.keypair_id", "a string", *k);
  } else {
    reject_unknown_keys(*it, {"requests_per_second"}, "options", ErrorKind::unprocessable);
  }
  // The account's own request rate (default: the provider's; see docs/cloud.md).
  if (auto r = it->find("requests_per_second"); r != it->end()) {
    if (!r->is_number()) throw wrong_type("options.requests_per_second", "a number", *r);
    const double rate = r->get<double>();
    if (!(rate >= 0.1 && rate <= 1000))
      throw unprocessable("\"options.requests_per_second\" must be from 0.1 to 1000",
                          "options.requests_per_second");
  }
  return *it;
}

int parse_interval(const json& body) {
  const auto it = body.find("sync_interval_s");
  if (it == body.end() || it->is_null()) return 300;
  if (!it->is_number_integer()) throw wrong_type("sync_interval_s", "an integer", *it);
  const auto v = it->get<long long>();
  if (v < kMinInterval || v > kMaxInterval)
    throw unprocessable("\"sync_interval_s\" must be from " + std::to_string(kMinInterval) +
                            " to " + std::to_string(kMaxInterval) + " seconds",
                        "sync_interval_s");
  return static_cast<int>(v);
}

json opt(const std::optional<std::string>& v) {
  return v ? json(*v) : json(nullptr);
}

}  // namespace

std::span<const std::string_view> cloud_provider_names() {
  static constexpr std::string_view names[] = {"openstack", "ec2", "bcc"};
  return names;
}

CloudAccountSpec parse_cloud_account_spec(const json& body) {
  if (!body.is_object()) throw invalid("the request body must be a JSON object");
  reject_unknown_keys(body,
                      {"name", "project", "provider", "endpoint", "region", "options",
                       "credentials", "sync_interval_s"},
                      "", ErrorKind::unprocessable);
  CloudAccountSpec spec;
  spec.name = required_string(body, "name");
  check_resource_name(spec.name, "account");
  spec.project = project_field(body);
  spec.provider = required_string(body, "provider");
  const auto providers = cloud_provider_names();
  if (std::find(providers.begin(), providers.end(), spec.provider) == providers.end())
    throw unprocessable("\"provider\" must be " + join_names(providers) + " (got \"" +
                            spec.provider.substr(0, 40) + "\")",
                        "provider");
  spec.endpoint = parse_endpoint(body);
  spec.region = optional_string(body, "region", "region", 100).value_or("");
  if (spec.provider == "openstack" && !spec.endpoint)
    throw unprocessable("an OpenStack account needs \"endpoint\": its Keystone auth URL",
                        "endpoint");
  if (spec.provider != "openstack" && spec.region.empty())
    throw unprocessable("an " + std::string(spec.provider == "ec2" ? "EC2" : "BCC") +
                            " account needs \"region\" (e.g. " +
                            (spec.provider == "ec2" ? "us-east-1" : "bj") + ")",
                        "region");
  for (char c : spec.region)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_')
      throw unprocessable("\"region\" must be letters, digits, '-' or '_'", "region");
  spec.options = parse_options(spec.provider, body);
  const auto creds = body.find("credentials");
  if (creds == body.end() || creds->is_null())
    throw invalid("\"credentials\" is required", "credentials");
  check_credentials(spec.provider, *creds);
  spec.credentials = *creds;
  spec.sync_interval_s = parse_interval(body);
  return spec;
}

CloudAccountSpec apply_cloud_account_patch(const CloudAccountSpec& current, const json& patch,
                                           bool& credentials_changed) {
  if (!patch.is_object()) throw invalid("the request body must be a JSON object");
  reject_unknown_keys(patch,
                      {"name", "project", "provider", "endpoint", "region", "options",
                       "credentials", "sync_interval_s"},
                      "", ErrorKind::unprocessable);
  if (auto p = patch.find("provider"); p != patch.end() && *p != current.provider)
    throw unprocessable("\"provider\" cannot change: enroll another account instead", "provider");
  json doc = {{"name", current.name},
              {"project", current.project},
              {"provider", current.provider},
              {"endpoint", opt(current.endpoint)},
              {"region", current.region},
              {"options", current.options},
              {"credentials", current.credentials},
              {"sync_interval_s", current.sync_interval_s}};
  for (const auto& [key, value] : patch.items()) {
    if (key == "options" && value.is_object())
      merge_patch(doc["options"], value);
    else
      doc[key] = value;
  }
  credentials_changed = patch.contains("credentials");
  return parse_cloud_account_spec(doc);
}

std::string credential_kind(const std::string& provider, const json& credentials) {
  if (provider != "openstack") return "access_key";
  return credentials.contains("application_credential_id") ? "application_credential" : "password";
}

json credential_identity(const std::string& provider, const json& c) {
  json out = json::object();
  auto copy = [&](const char* key) {
    if (auto it = c.find(key); it != c.end() && it->is_string()) out[key] = *it;
  };
  if (provider == "ec2") {
    copy("access_key_id");
    out["session_token"] = c.contains("session_token") && c["session_token"].is_string();
  } else if (provider == "bcc") {
    copy("access_key");
  } else {
    for (const char* key : {"application_credential_id", "username", "user_domain_name",
                            "project_name", "project_domain_name"})
      copy(key);
  }
  return out;
}

json to_json(const CloudAccount& a) {
  return {{"id", a.id},
          {"name", a.spec.name},
          {"project", a.spec.project},
          {"provider", a.spec.provider},
          {"endpoint", opt(a.spec.endpoint)},
          {"region", a.spec.region},
          {"options", a.spec.options},
          {"credentials", {{"kind", a.credential_kind}, {"identity", a.credential_identity}}},
          {"sync_interval_s", a.spec.sync_interval_s},
          {"sync",
           {{"last_sync_at", opt(a.last_sync_at)},
            {"last_attempt_at", opt(a.last_sync_started)},
            {"next_sync_at", opt(a.next_sync)},
            {"duration_ms", a.last_sync_duration_ms ? json(*a.last_sync_duration_ms) : json()},
            {"syncing", a.syncing},
            {"last_error", opt(a.last_error)},
            {"last_error_message", opt(a.last_error_message)},
            {"failures", a.sync_failures}}},
          {"node_count", a.node_count},
          {"created_at", opt(a.created_at)},
          {"updated_at", opt(a.updated_at)}};
}

}  // namespace ironhold
