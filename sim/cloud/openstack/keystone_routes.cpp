// The simulated Keystone: version documents and POST /v3/auth/tokens (password and
// application_credential methods), answering 201 with X-Subject-Token and a token whose catalog
// points the compute service at this server's /compute/v2.1.
#include "inventory/util/time.hpp"
#include "sim/cloud/openstack/sim_state.hpp"

namespace ironhold::sim::cloud::openstack {

using nlohmann::json;

namespace {

std::string service_url(const ApiRequest& request) {
  return "http://" + request.host;
}

json v3_version(const ApiRequest& request) {
  return {
      {"id", "v3.14"},
      {"status", "stable"},
      {"updated", "2020-04-07T00:00:00Z"},
      {"links", json::array({{{"rel", "self"}, {"href", service_url(request) + "/identity/v3/"}}})},
      {"media-types", json::array({{{"base", "application/json"},
                                    {"type", "application/vnd.openstack.identity-v3+json"}}})}};
}

const json& field(const json& object, const char* key) {
  static const json none;
  if (!object.is_object()) return none;
  const auto it = object.find(key);
  return it == object.end() ? none : *it;
}

std::string text(const json& object, const char* key) {
  const json& value = field(object, key);
  return value.is_string() ? value.get<std::string>() : std::string();
}

// A domain given as {"name": "Default"} or {"id": "default"}.
bool domain_matches(const json& domain, const std::string& name) {
  if (text(domain, "name") == name) return true;
  return name == "Default" && text(domain, "id") == "default";
}

bool password_matches(const OpenStackSimulator::State& state, const json& identity) {
  const json& user = field(field(identity, "password"), "user");
  const auto& o = state.options;
  const bool who = (text(user, "name") == o.username &&
                    domain_matches(field(user, "domain"), o.user_domain_name)) ||
                   (!text(user, "id").empty() && text(user, "id") == state.user_id);
  return who && field(user, "password").is_string() && text(user, "password") == o.password;
}

bool application_credential_matches(const OpenStackSimulator::State& state, const json& identity) {
  const auto& app = state.options.application_credential;
  if (!app) return false;
  const json& given = field(identity, "application_credential");
  return text(given, "id") == app->id && text(given, "secret") == app->secret;
}

// Absent scope: an unscoped token. A project scope must name ours.
bool scope_matches(const OpenStackSimulator::State& state, const json& scope) {
  if (scope.is_null()) return true;
  const json& project = field(scope, "project");
  if (!project.is_object()) return false;
  if (!text(project, "id").empty()) return text(project, "id") == state.project_id;
  return text(project, "name") == state.options.project_name &&
         domain_matches(field(project, "domain"), state.options.project_domain_name);
}

json catalog(const OpenStackSimulator::State& state, const ApiRequest& request) {
  const std::string& region = state.options.region;
  auto endpoints = [&](const std::string& url) {
    json out = json::array();
    for (const char* interface : {"public", "internal", "admin"})
      out.push_back({{"id", random_hex(16)},
                     {"interface", interface},
                     {"region", region},
                     {"region_id", region},
                     {"url", url}});
    return out;
  };
  return json::array({{{"id", random_hex(16)},
                       {"type", "identity"},
                       {"name", "keystone"},
                       {"endpoints", endpoints(service_url(request) + "/identity")}},
                      {{"id", random_hex(16)},
                       {"type", "compute"},
                       {"name", "nova"},
                       {"endpoints", endpoints(service_url(request) + "/compute/v2.1")}}});
}

ApiReply issue_token(OpenStackSimulator::State& state, const ApiRequest& request) {
  ++state.auth_requests;
  const json body = json::parse(request.body, nullptr, false);
  const json& identity = field(field(body, "auth"), "identity");
  const json& methods = field(identity, "methods");
  if (!methods.is_array() || methods.empty())
    return keystone_error(400, "Bad Request",
                          "Invalid input for field 'identity': 'methods' is a required property");
  const std::string method = methods[0].is_string() ? methods[0].get<std::string>() : "";
  const json& scope = field(field(body, "auth"), "scope");
  bool accepted = false;
  bool scoped = !scope.is_null();
  if (method == "password") {
    accepted = password_matches(state, identity) && scope_matches(state, scope);
  } else if (method == "application_credential") {
    // An application credential carries its project; it may not ask for another scope.
    accepted = application_credential_matches(state, identity) && scope.is_null();
    scoped = true;
  } else {
    return keystone_error(401, "Unauthorized",
                          "Attempted to authenticate with an unsupported method.");
  }
  if (!accepted) {
    ApiReply reply =
        keystone_error(401, "Unauthorized", "The request you have made requires authentication.");
    reply.headers.emplace_back("WWW-Authenticate",
                               "Keystone uri=\"" + service_url(request) + "/identity\"");
    return reply;
  }

  const auto now = std::chrono::system_clock::now();
  const auto expires = now + state.options.token_lifetime;
  const std::string id = "gAAAAA" + random_hex(40);
  state.tokens[id] = IssuedToken{expires};
  const json domain = {{"id", "default"}, {"name", state.options.user_domain_name}};
  json token = {{"methods", json::array({method})},
                {"audit_ids", json::array({random_hex(11)})},
                {"expires_at", format_rfc3339(expires)},
                {"issued_at", format_rfc3339(now)},
                {"is_domain", false},
                {"user",
                 {{"id", state.user_id},
                  {"name", state.options.username},
                  {"domain", domain},
                  {"password_expires_at", nullptr}}}};
  if (scoped) {
    token["project"] = {
        {"id", state.project_id},
        {"name", state.options.project_name},
        {"domain", {{"id", "default"}, {"name", state.options.project_domain_name}}}};
    token["roles"] = json::array({{{"id", random_hex(16)}, {"name", "member"}},
                                  {{"id", random_hex(16)}, {"name", "reader"}}});
    token["catalog"] = catalog(state, request);
  }
  if (method == "application_credential")
    token["application_credential"] = {{"id", state.options.application_credential->id},
                                       {"name", "ironhold"},
                                       {"restricted", true}};
  ApiReply reply = json_reply(201, json{{"token", token}});
  reply.headers.emplace_back("X-Subject-Token", id);
  reply.headers.emplace_back("Vary", "X-Auth-Token");
  return reply;
}

}  // namespace

ApiReply identity_route(OpenStackSimulator::State& state, const ApiRequest& request,
                        std::string_view rest) {
  if (rest == "" || rest == "/") {
    if (request.method != "GET") return keystone_error(405, "Method Not Allowed", "GET only");
    ApiReply reply =
        json_reply(300, json{{"versions", {{"values", json::array({v3_version(request)})}}}});
    return reply;
  }
  if (rest == "/v3" || rest == "/v3/") {
    if (request.method != "GET") return keystone_error(405, "Method Not Allowed", "GET only");
    return json_reply(200, json{{"version", v3_version(request)}});
  }
  if (rest == "/v3/auth/tokens") {
    if (request.method != "POST")
      return keystone_error(405, "Method Not Allowed", "only POST is simulated");
    return issue_token(state, request);
  }
  return keystone_error(404, "Not Found", "The resource could not be found.");
}

}  // namespace ironhold::sim::cloud::openstack
