// The simulated Nova v2.1: version discovery, servers (detail pages with servers_links, one
// server, actions) and flavors (detail, one, os-extra_specs). Every call but discovery needs a
// valid, unexpired X-Auth-Token; the microversion comes from OpenStack-API-Version or
// X-OpenStack-Nova-API-Version and decides whether the flavor is embedded (2.47+).
#include <charconv>

#include "inventory/util/percent_decode.hpp"
#include "sim/cloud/openstack/sim_state.hpp"

namespace ironhold::sim::cloud::openstack {

using nlohmann::json;

namespace {

constexpr int kMinMicroversion = 1;

std::string compute_url(const ApiRequest& request) {
  return "http://" + request.host + "/compute";
}

json v21_version(const OpenStackSimulator::State& state, const ApiRequest& request) {
  return {{"id", "v2.1"},
          {"status", "CURRENT"},
          {"version", "2." + std::to_string(state.options.max_microversion)},
          {"min_version", "2." + std::to_string(kMinMicroversion)},
          {"updated", "2013-07-23T11:33:21Z"},
          {"links", json::array({{{"rel", "self"}, {"href", compute_url(request) + "/v2.1/"}}})},
          {"media-types",
           json::array({{{"base", "application/json"},
                         {"type", "application/vnd.openstack.compute+json;version=2.1"}}})}};
}

std::optional<std::string> query_param(const ApiRequest& request, std::string_view name) {
  for (auto& [key, value] : parse_form(request.query()))
    if (key == name) return value;
  return std::nullopt;
}

// The microversion asked for: "compute 2.47" in OpenStack-API-Version, or "2.47" in the older
// header; "latest" is the maximum; none is 2.1. Absent when it names no version we serve.
std::optional<int> requested_microversion(const OpenStackSimulator::State& state,
                                          const ApiRequest& request) {
  std::string value;
  if (auto header = request.header("OpenStack-API-Version")) {
    std::string_view v = *header;
    if (v.substr(0, 8) != "compute ") return kMinMicroversion;
    value = std::string(v.substr(8));
  } else if (auto legacy = request.header("X-OpenStack-Nova-API-Version")) {
    value = *legacy;
  } else {
    return kMinMicroversion;
  }
  if (value == "latest") return state.options.max_microversion;
  if (value.size() < 3 || value.substr(0, 2) != "2.") return std::nullopt;
  int minor = 0;
  const auto [p, ec] = std::from_chars(value.data() + 2, value.data() + value.size(), minor);
  if (ec != std::errc{} || p != value.data() + value.size()) return std::nullopt;
  if (minor < kMinMicroversion || minor > state.options.max_microversion) return std::nullopt;
  return minor;
}

bool token_valid(OpenStackSimulator::State& state, const ApiRequest& request) {
  const auto token = request.header("X-Auth-Token");
  if (!token) return false;
  const auto it = state.tokens.find(*token);
  if (it == state.tokens.end()) return false;
  if (std::chrono::system_clock::now() >= it->second.expires_at) {
    state.tokens.erase(it);
    return false;
  }
  return true;
}

json flavor_json(const SimFlavor& f, const ApiRequest& request, int microversion) {
  const std::string href = compute_url(request) + "/v2.1/flavors/" + f.id;
  json out = {{"id", f.id},
              {"name", f.name},
              {"vcpus", f.vcpus},
              {"ram", f.ram_mib},
              {"disk", f.disk_gb},
              {"swap", microversion >= 75 ? json(0) : json("")},
              {"OS-FLV-EXT-DATA:ephemeral", 0},
              {"OS-FLV-DISABLED:disabled", false},
              {"os-flavor-access:is_public", true},
              {"rxtx_factor", 1.0},
              {"links", json::array({{{"rel", "self"}, {"href", href}},
                                     {{"rel", "bookmark"}, {"href", href}}})}};
  if (microversion >= 55) out["description"] = nullptr;
  if (microversion >= 61) out["extra_specs"] = f.extra_specs;
  return out;
}

std::string nova_time(SystemTime t) {
  // Nova's "created"/"updated": seconds, Z.
  std::string text = format_rfc3339(t);
  return text.substr(0, 19) + "Z";
}

json server_json(const OpenStackSimulator::State& state, const SimServer& s,
                 const ApiRequest& request, int microversion) {
  const std::string self = compute_url(request) + "/v2.1/servers/" + s.id;
  json flavor;
  const SimFlavor* f = state.flavor(s.flavor_id);
  if (microversion >= 47 && f) {
    flavor = {{"original_name", f->name},     {"vcpus", f->vcpus}, {"ram", f->ram_mib},
              {"disk", f->disk_gb},           {"ephemeral", 0},    {"swap", 0},
              {"extra_specs", f->extra_specs}};
  } else {
    flavor = {{"id", s.flavor_id},
              {"links", json::array({{{"rel", "bookmark"},
                                      {"href", compute_url(request) + "/flavors/" + s.flavor_id}}})}};
  }
  json out = {
      {"id", s.id},
      {"name", s.name},
      {"status", s.status},
      {"tenant_id", state.project_id},
      {"user_id", state.user_id},
      {"metadata", s.metadata},
      {"hostId", s.deleted() ? std::string() : s.host_id},
      {"image",
       {{"id", s.image_id},
        {"links", json::array({{{"rel", "bookmark"},
                                {"href", compute_url(request) + "/images/" + s.image_id}}})}}},
      {"flavor", flavor},
      {"created", nova_time(s.created)},
      {"updated", nova_time(s.updated)},
      {"addresses", s.addresses},
      {"accessIPv4", ""},
      {"accessIPv6", ""},
      {"links",
       json::array({{{"rel", "self"}, {"href", self}}, {{"rel", "bookmark"}, {"href", self}}})},
      {"OS-DCF:diskConfig", "MANUAL"},
      {"progress", 0},
      {"OS-EXT-AZ:availability_zone", s.zone},
      {"config_drive", ""},
      {"key_name", nullptr},
      {"OS-SRV-USG:launched_at", format_rfc3339(s.created).substr(0, 26)},
      {"OS-SRV-USG:terminated_at",
       s.terminated ? json(format_rfc3339(*s.terminated).substr(0, 26)) : json(nullptr)},
      {"security_groups", json::array({{{"name", "default"}}})},
      {"OS-EXT-STS:task_state", s.task_state ? json(*s.task_state) : json(nullptr)},
      {"OS-EXT-STS:vm_state", s.vm_state},
      {"OS-EXT-STS:power_state", s.power_state},
      {"os-extended-volumes:volumes_attached", json::array()},
  };
  if (s.fault && s.status == "ERROR")
    out["fault"] = {{"code", 500}, {"message", *s.fault}, {"created", nova_time(s.updated)}};
  if (microversion >= 9) out["locked"] = false;
  if (microversion >= 19) out["description"] = nullptr;
  if (microversion >= 26) out["tags"] = json::array();
  if (microversion >= 63) out["trusted_image_certificates"] = nullptr;
  if (microversion >= 73) out["locked_reason"] = nullptr;
  return out;
}

ApiReply list_servers(OpenStackSimulator::State& state, const ApiRequest& request, int mv,
                      bool detail) {
  std::size_t limit = state.options.page_size;
  if (const auto text = query_param(request, "limit")) {
    std::size_t asked = 0;
    const auto [p, ec] = std::from_chars(text->data(), text->data() + text->size(), asked);
    if (ec != std::errc{} || p != text->data() + text->size())
      return nova_fault(400, "badRequest", "Invalid input for query parameters limit.");
    limit = std::min(asked, limit);
  }
  // changes-since also shows the servers deleted since then, as Nova does.
  std::optional<SystemTime> since;
  if (const auto text = query_param(request, "changes-since")) {
    since = parse_rfc3339(*text);
    if (!since)
      return nova_fault(400, "badRequest", "Invalid input for query parameters changes-since.");
  }
  std::vector<const SimServer*> visible;
  for (const auto& s : state.servers) {
    if (since ? s.updated < *since : s.deleted()) continue;
    visible.push_back(&s);
  }
  std::size_t start = 0;
  if (const auto marker = query_param(request, "marker")) {
    std::size_t i = 0;
    while (i < visible.size() && visible[i]->id != *marker) ++i;
    if (i == visible.size())
      return nova_fault(400, "badRequest", "marker [" + *marker + "] not found");
    start = i + 1;
  }
  json servers = json::array();
  for (std::size_t i = start; i < visible.size() && servers.size() < limit; ++i) {
    if (detail) {
      servers.push_back(server_json(state, *visible[i], request, mv));
    } else {
      const std::string self = compute_url(request) + "/v2.1/servers/" + visible[i]->id;
      servers.push_back({{"id", visible[i]->id},
                         {"name", visible[i]->name},
                         {"links", json::array({{{"rel", "self"}, {"href", self}}})}});
    }
  }
  json body = {{"servers", servers}};
  // Like Nova, a full page gets a next link even when nothing follows it.
  if (limit > 0 && servers.size() == limit) {
    const std::string last = servers.back()["id"];
    std::string href = compute_url(request) + "/v2.1/servers" + (detail ? "/detail" : "") +
                       "?limit=" + std::to_string(limit) + "&marker=" + last;
    body["servers_links"] = json::array({{{"rel", "next"}, {"href", href}}});
  }
  return json_reply(200, body);
}

std::string conflict_text(const SimServer& s, const std::string& action) {
  if (s.task_state)
    return "Cannot '" + action + "' instance " + s.id + " while it is in task_state " +
           *s.task_state;
  return "Cannot '" + action + "' instance " + s.id + " while it is in vm_state " + s.vm_state;
}

void begin_task(OpenStackSimulator::State& state, SimServer& s, std::string task,
                std::optional<std::string> status, PendingEnd end) {
  s.task_state = std::move(task);
  if (status) s.status = *status;
  end.at = std::chrono::steady_clock::now() + state.options.transition;
  s.pending = std::move(end);
  s.updated = std::chrono::system_clock::now();
}

ApiReply server_action(OpenStackSimulator::State& state, const ApiRequest& request, SimServer& s,
                       int mv) {
  const json body = json::parse(request.body, nullptr, false);
  if (body.is_discarded() || !body.is_object() || body.size() != 1)
    return nova_fault(400, "badRequest", "Malformed request body");
  const std::string action = body.begin().key();
  const json& args = body.begin().value();
  const bool idle = !s.task_state;
  if (action == "os-start") {
    if (!idle || s.status != "SHUTOFF")
      return nova_fault(409, "conflictingRequest", conflict_text(s, "start"));
    begin_task(state, s, "powering-on", std::nullopt, PendingEnd{{}, "ACTIVE", 1, "active"});
    return ApiReply{202, "", {}, ""};
  }
  if (action == "os-stop") {
    if (!idle || (s.status != "ACTIVE" && s.status != "ERROR"))
      return nova_fault(409, "conflictingRequest", conflict_text(s, "stop"));
    begin_task(state, s, "powering-off", std::nullopt, PendingEnd{{}, "SHUTOFF", 4, "stopped"});
    return ApiReply{202, "", {}, ""};
  }
  if (action == "reboot") {
    const std::string type = args.is_object() && args.contains("type") && args["type"].is_string()
                                 ? args["type"].get<std::string>()
                                 : "";
    if (type == "SOFT" || type == "soft") {
      if (!idle || s.status != "ACTIVE")
        return nova_fault(409, "conflictingRequest", conflict_text(s, "reboot"));
      begin_task(state, s, "rebooting", "REBOOT", PendingEnd{{}, "ACTIVE", 1, "active"});
    } else if (type == "HARD" || type == "hard") {
      if (!idle || (s.status != "ACTIVE" && s.status != "SHUTOFF" && s.status != "ERROR"))
        return nova_fault(409, "conflictingRequest", conflict_text(s, "reboot"));
      s.fault.reset();
      begin_task(state, s, "rebooting_hard", "HARD_REBOOT", PendingEnd{{}, "ACTIVE", 1, "active"});
    } else {
      return nova_fault(
          400, "badRequest",
          "Invalid input for field/attribute type. Value: " + type + ". 'SOFT' or 'HARD' expected");
    }
    return ApiReply{202, "", {}, ""};
  }
  if (action == "rebuild") {
    const std::string image =
        args.is_object() && args.contains("imageRef") && args["imageRef"].is_string()
            ? args["imageRef"].get<std::string>()
            : "";
    if (image.empty())
      return nova_fault(400, "badRequest",
                        "Invalid input for field/attribute rebuild. Value: imageRef is required");
    if (!idle || (s.status != "ACTIVE" && s.status != "SHUTOFF" && s.status != "ERROR"))
      return nova_fault(409, "conflictingRequest", conflict_text(s, "rebuild"));
    const bool stopped = s.status == "SHUTOFF";
    s.image_id = image;
    s.fault.reset();
    begin_task(
        state, s, "rebuilding", "REBUILD",
        stopped ? PendingEnd{{}, "SHUTOFF", 4, "stopped"} : PendingEnd{{}, "ACTIVE", 1, "active"});
    json server = server_json(state, s, request, mv);
    server["adminPass"] = args.contains("adminPass") && args["adminPass"].is_string()
                              ? args["adminPass"].get<std::string>()
                              : random_hex(6);
    return json_reply(202, json{{"server", server}});
  }
  return nova_fault(400, "badRequest", "There is no such action: " + action);
}

ApiReply servers_route(OpenStackSimulator::State& state, const ApiRequest& request,
                       std::string_view rest, int mv) {
  if (rest.empty() || rest == "/") {
    if (request.method != "GET") return nova_fault(405, "methodNotAllowed", "not simulated");
    return list_servers(state, request, mv, false);
  }
  if (rest == "/detail") {
    if (request.method != "GET") return nova_fault(405, "methodNotAllowed", "not simulated");
    return list_servers(state, request, mv, true);
  }
  rest.remove_prefix(1);
  const auto slash = rest.find('/');
  std::string id;
  if (!percent_decode(rest.substr(0, slash), id))
    return nova_fault(400, "badRequest", "Malformed server id");
  const std::string_view tail = slash == std::string_view::npos ? "" : rest.substr(slash);
  SimServer* s = state.server(id);
  if (!s || s->deleted())
    return nova_fault(404, "itemNotFound", "Instance " + id + " could not be found.");
  if (tail.empty() && request.method == "GET")
    return json_reply(200, json{{"server", server_json(state, *s, request, mv)}});
  if (tail == "/action" && request.method == "POST") return server_action(state, request, *s, mv);
  return nova_fault(404, "itemNotFound", "The resource could not be found.");
}

ApiReply flavors_route(OpenStackSimulator::State& state, const ApiRequest& request,
                       std::string_view rest, int mv) {
  if (request.method != "GET") return nova_fault(405, "methodNotAllowed", "not simulated");
  if (rest.empty() || rest == "/" || rest == "/detail") {
    json list = json::array();
    for (const auto& f : state.flavors) {
      if (rest == "/detail") {
        list.push_back(flavor_json(f, request, mv));
      } else {
        list.push_back({{"id", f.id}, {"name", f.name}});
      }
    }
    return json_reply(200, json{{"flavors", list}});
  }
  rest.remove_prefix(1);
  const auto slash = rest.find('/');
  const std::string id(rest.substr(0, slash));
  const std::string_view tail = slash == std::string_view::npos ? "" : rest.substr(slash);
  const SimFlavor* f = state.flavor(id);
  if (!f) return nova_fault(404, "itemNotFound", "Flavor " + id + " could not be found.");
  if (tail.empty()) return json_reply(200, json{{"flavor", flavor_json(*f, request, mv)}});
  if (tail == "/os-extra_specs") return json_reply(200, json{{"extra_specs", f->extra_specs}});
  return nova_fault(404, "itemNotFound", "The resource could not be found.");
}

}  // namespace

ApiReply compute_route(OpenStackSimulator::State& state, const ApiRequest& request,
                       std::string_view rest) {
  if (rest.empty() || rest == "/") {
    json v20 = {{"id", "v2.0"},
                {"status", "SUPPORTED"},
                {"version", ""},
                {"min_version", ""},
                {"updated", "2011-01-21T11:33:21Z"},
                {"links", json::array({{{"rel", "self"}, {"href", compute_url(request) + "/v2/"}}})}};
    return json_reply(200, json{{"versions", json::array({v20, v21_version(state, request)})}});
  }
  if (rest == "/v2.1" || rest == "/v2.1/")
    return json_reply(200, json{{"version", v21_version(state, request)}});
  if (rest.substr(0, 6) != "/v2.1/") return nova_fault(404, "itemNotFound", "Not Found");
  rest.remove_prefix(5);

  if (!token_valid(state, request)) {
    ApiReply reply = json_reply(
        401, json{{"error",
                   {{"code", 401},
                    {"title", "Unauthorized"},
                    {"message", "The request you have made requires authentication."}}}});
    reply.headers.emplace_back("WWW-Authenticate",
                               "Keystone uri=\"http://" + request.host + "/identity\"");
    return reply;
  }
  const auto mv = requested_microversion(state, request);
  if (!mv)
    return nova_fault(406, "computeFault",
                      "Version is not supported by the API. Minimum is 2." +
                          std::to_string(kMinMicroversion) + " and maximum is 2." +
                          std::to_string(state.options.max_microversion) + ".");
  ApiReply reply;
  if (rest.substr(0, 8) == "/servers") {
    reply = servers_route(state, request, rest.substr(8), *mv);
  } else if (rest.substr(0, 8) == "/flavors") {
    reply = flavors_route(state, request, rest.substr(8), *mv);
  } else {
    reply = nova_fault(404, "itemNotFound", "The resource could not be found.");
  }
  reply.headers.emplace_back("OpenStack-API-Version", "compute 2." + std::to_string(*mv));
  reply.headers.emplace_back("X-OpenStack-Nova-API-Version", "2." + std::to_string(*mv));
  reply.headers.emplace_back("Vary", "OpenStack-API-Version, X-OpenStack-Nova-API-Version");
  return reply;
}

}  // namespace ironhold::sim::cloud::openstack
