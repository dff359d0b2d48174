// /api/v1/alerts, /api/v1/silences, /api/v1/alert-receivers: what is wrong now (firing,
// acknowledged, resolved), acknowledging it, silencing the nodes a selector picks until an end
// time, and the HTTP receivers that hear about it in the Alertmanager webhook format. All of it
// within the caller's projects.
#include <algorithm>
#include <charconv>

#include "inventory/error.hpp"
#include "inventory/model/json_fields.hpp"
#include "inventory/util/time.hpp"
#include "web/openapi.hpp"
#include "web/request_context.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

db::AlertStore& alerts_of(Services& s) {
  if (!s.alerts) throw Error(ErrorKind::unavailable, "alerts are unavailable on this server");
  return *s.alerts;
}

std::vector<std::string> comma_list(const RequestContext& ctx, const char* name,
                                    std::initializer_list<std::string_view> allowed) {
  std::vector<std::string> out;
  for (const auto& [key, value] : ctx.query) {
    if (key != name) continue;
    std::size_t start = 0;
    while (start <= value.size()) {
      const auto comma = value.find(',', start);
      std::string part =
          value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!part.empty()) {
        if (allowed.size() && std::find(allowed.begin(), allowed.end(), part) == allowed.end())
          throw invalid("unknown " + std::string(name) + " \"" + part.substr(0, 40) + "\"", name);
        out.push_back(std::move(part));
      }
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

long long alert_id_of(const RequestContext& ctx) {
  const std::string& text = ctx.path_param("id");
  long long id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size() || id <= 0)
    throw not_found("no alert " + text.substr(0, 40));
  return id;
}

// The alert the path names, when the caller may do `capability` in its project (an alert of no
// project is for callers of every project).
asio::awaitable<db::Alert> authorized_alert(Services& s, RequestContext& ctx, unsigned capability) {
  db::AlertStore* store = &alerts_of(s);
  const long long id = alert_id_of(ctx);
  auto work = [store, id] { return store->get(id); };
  const auto found = co_await s.blocking(work);
  const std::string missing = "no alert " + std::to_string(id);
  if (!found) throw not_found(missing);
  ctx.require(capability, found->project.value_or(""), missing);
  ctx.set_target("alert", std::to_string(found->id), found->fingerprint);
  co_return *found;
}

asio::awaitable<Response> list_alerts(Services& s, RequestContext& ctx) {
  ctx.only_query({"state", "severity", "source", "node", "limit", "before"});
  db::AlertQuery q;
  q.states = comma_list(ctx, "state", {"firing", "acknowledged", "resolved"});
  q.severities = comma_list(ctx, "severity", {"warning", "critical"});
  q.sources = comma_list(ctx, "source", {});
  q.limit = ctx.limit_param(100, 1000);
  if (auto before = ctx.query_value("before")) {
    long long id = 0;
    const auto [end, ec] = std::from_chars(before->data(), before->data() + before->size(), id);
    if (ec != std::errc() || end != before->data() + before->size())
      throw invalid("\"before\" must be an alert id", "before");
    q.before_id = id;
  }
  q.scope = ctx.scope(cap_read);
  db::AlertStore* store = &alerts_of(s);
  if (auto node = ctx.query_value("node")) {
    // Only a node the caller may see; another project's is unknown here.
    const std::string key = *node;
    auto find = [&s, key] { return s.nodes.get(key); };
    const Node n = co_await s.blocking(find);
    ctx.require(cap_read, n.project, "no node has the id or name \"" + key.substr(0, 100) + "\"");
    q.node_id = n.id;
  }
  auto work = [store, q] { return store->list(q); };
  const auto alerts = co_await s.blocking(work);
  json items = json::array();
  for (const auto& a : alerts) items.push_back(db::to_json(a));
  json next = nullptr;
  if (static_cast<int>(alerts.size()) == q.limit && !alerts.empty())
    next = std::to_string(alerts.back().id);
  co_return ctx.json(http::status::ok, {{"items", items}, {"next_before", next}});
}

asio::awaitable<Response> show_alert(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  const db::Alert alert = co_await authorized_alert(s, ctx, cap_read);
  co_return ctx.json(http::status::ok, db::to_json(alert));
}

asio::awaitable<Response> acknowledge(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  const db::Alert alert = co_await authorized_alert(s, ctx, cap_act);
  db::AlertStore* store = &alerts_of(s);
  auto work = [store, id = alert.id, by = ctx.actor()] { return store->acknowledge(id, by); };
  const db::Alert acknowledged = co_await s.blocking(work);
  co_return ctx.json(http::status::ok, db::to_json(acknowledged));
}

std::string rfc3339_field(const json& body, const char* field, bool required) {
  const auto text = optional_string(body, field, field, 64);
  if (!text) {
    if (required) throw invalid(std::string("\"") + field + "\" is required", field);
    return {};
  }
  const auto t = parse_rfc3339(*text);
  if (!t) throw invalid(std::string("\"") + field + "\" must be an RFC 3339 time", field);
  return format_rfc3339(*t);
}

asio::awaitable<Response> add_silence(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  ctx.target_type = "silence";
  json body = ctx.json_body();
  if (!body.is_object()) throw invalid("the request body must be a JSON object");
  reject_unknown_keys(body, {"selector", "ends_at", "starts_at", "comment", "project"}, "",
                      ErrorKind::invalid);
  if (!body.contains("project")) body["project"] = ctx.default_project(cap_act);
  db::NewSilence n;
  n.project = project_field(body);
  ctx.require(cap_act, n.project, "no project is named \"" + n.project + "\"");
  if (!body.contains("selector")) throw invalid("\"selector\" is required", "selector");
  n.selector = body["selector"];
  parse_node_selector(n.selector);
  n.ends_at = rfc3339_field(body, "ends_at", true);
  if (const std::string starts = rfc3339_field(body, "starts_at", false); !starts.empty())
    n.starts_at = starts;
  if (*parse_rfc3339(n.ends_at) <= std::chrono::system_clock::now())
    throw unprocessable("\"ends_at\" is in the past", "ends_at");
  n.comment = optional_string(body, "comment", "comment", 1000).value_or("");
  n.created_by = ctx.actor();
  ctx.audit_details = {{"selector", n.selector}, {"ends_at", n.ends_at}, {"comment", n.comment}};
  db::AlertStore* store = &alerts_of(s);
  auto work = [store, n] { return store->add_silence(n); };
  const db::Silence silence = co_await s.blocking(work);
  ctx.set_target("silence", silence.id, silence.comment);
  ctx.target_project = silence.project;
  co_return ctx.json(http::status::created, db::to_json(silence));
}

asio::awaitable<Response> list_silences(Services& s, RequestContext& ctx) {
  ctx.only_query({"include_ended"});
  const bool all = ctx.query_value("include_ended").value_or("false") == "true";
  db::AlertStore* store = &alerts_of(s);
  auto work = [store, all, scope = ctx.scope(cap_read)] { return store->silences(scope, all); };
  const auto silences = co_await s.blocking(work);
  json items = json::array();
  for (const auto& x : silences) items.push_back(db::to_json(x));
  co_return ctx.json(http::status::ok, {{"items", items}, {"next", nullptr}});
}

asio::awaitable<Response> end_silence(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  ctx.target_type = "silence";
  db::AlertStore* store = &alerts_of(s);
  const std::string id = ctx.path_param("id");
  auto find = [store, id] { return store->silence(id); };
  const auto found = co_await s.blocking(find);
  if (!found) throw not_found("no silence " + id.substr(0, 40));
  ctx.require(cap_act, found->project, "no silence " + id.substr(0, 40));
  auto work = [store, id] { return store->end_silence(id); };
  const db::Silence ended = co_await s.blocking(work);
  ctx.set_target("silence", ended.id, ended.comment);
  co_return ctx.json(http::status::ok, db::to_json(ended));
}

// A receiver of one project takes an admin of that project; one of every project (no project),
// an admin of every project.
void require_receiver_admin(RequestContext& ctx, const std::optional<std::string>& project,
                            const std::string& missing) {
  if (project) {
    ctx.require(cap_manage, *project, missing);
    return;
  }
  if (!ctx.permissions().can_everywhere(cap_manage))
    throw Error(ErrorKind::forbidden,
                "a receiver of every project's alerts takes an admin of every project; name a "
                "\"project\"");
}

asio::awaitable<Response> add_receiver(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  ctx.target_type = "alert_receiver";
  const json body = ctx.json_body();
  if (!body.is_object()) throw invalid("the request body must be a JSON object");
  reject_unknown_keys(body, {"name", "url", "secret", "min_severity", "project"}, "",
                      ErrorKind::unprocessable);
  db::NewReceiver n;
  n.name = required_string(body, "name");
  ctx.target_name = n.name;
  n.url = required_string(body, "url");
  n.secret = required_string(body, "secret");
  n.min_severity = optional_string(body, "min_severity", "min_severity", 16).value_or("warning");
  if (body.contains("project") && !body["project"].is_null()) n.project = project_field(body);
  require_receiver_admin(ctx, n.project, "no project is named \"" + n.project.value_or("") + "\"");
  n.created_by = ctx.actor();
  // The secret is never in an answer or an audit entry.
  ctx.audit_details = {{"url", n.url}, {"min_severity", n.min_severity}};
  db::AlertStore* store = &alerts_of(s);
  auto work = [store, n] { return store->add_receiver(n); };
  const db::Receiver receiver = co_await s.blocking(work);
  ctx.set_target("alert_receiver", receiver.id, receiver.name);
  co_return ctx.json(http::status::created, db::to_json(receiver));
}

asio::awaitable<Response> list_receivers(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  db::AlertStore* store = &alerts_of(s);
  auto work = [store, scope = ctx.scope(cap_manage)] { return store->receivers(scope); };
  const auto receivers = co_await s.blocking(work);
  json items = json::array();
  for (const auto& r : receivers) items.push_back(db::to_json(r));
  co_return ctx.json(http::status::ok, {{"items", items}, {"next", nullptr}});
}

asio::awaitable<Response> remove_receiver(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  ctx.target_type = "alert_receiver";
  db::AlertStore* store = &alerts_of(s);
  const std::string key = ctx.path_param("id");
  ctx.target_name = key;
  auto find = [store, key] { return store->receiver(key); };
  const auto found = co_await s.blocking(find);
  const std::string missing = "no receiver \"" + key.substr(0, 100) + "\"";
  if (!found) throw not_found(missing);
  if (found->project && !ctx.can(cap_read, *found->project)) throw not_found(missing);
  require_receiver_admin(ctx, found->project, missing);
  auto work = [store, id = found->id] { return store->remove_receiver(id); };
  const db::Receiver removed = co_await s.blocking(work);
  ctx.set_target("alert_receiver", removed.id, removed.name);
  co_return ctx.empty(http::status::no_content);
}

json object_schema() {
  return {{"type", "object"}};
}

}  // namespace

void register_alert_routes(Api& api) {
  Services& s = api.services();
  auto bind = [&s](asio::awaitable<Response> (*fn)(Services&, RequestContext&)) -> Handler {
    return [&s, fn](RequestContext& ctx) { return fn(s, ctx); };
  };
  auto query = [](const char* name, const char* description) {
    return json{{"name", name},
                {"in", "query"},
                {"required", false},
                {"description", description},
                {"schema", {{"type", "string"}}}};
  };
  const json none = json::array();
  api.router().add({http::verb::get,
                    "/api/v1/alerts",
                    Access::viewer,
                    bind(list_alerts),
                    {"Alerts, newest first",
                     json::array({query("state", "firing, acknowledged, resolved; comma-separated"),
                                  query("severity", "warning, critical"),
                                  query("source", "health, unreachable, sensor, hardware_log, ..."),
                                  query("node", "a node id or name"), query("limit", "1 to 1000"),
                                  query("before", "the previous page's next_before")}),
                     nullptr, 200, object_schema()}});
  api.router().add({http::verb::get,
                    "/api/v1/alerts/{id}",
                    Access::viewer,
                    bind(show_alert),
                    {"One alert", none, nullptr, 200, object_schema()}});
  api.router().add({http::verb::post,
                    "/api/v1/alerts/{id}/ack",
                    Access::operator_,
                    bind(acknowledge),
                    {"Acknowledge an alert (it keeps firing until its cause ends)", none, nullptr,
                     200, object_schema()}});
  api.router().add(
      {http::verb::post,
       "/api/v1/silences",
       Access::operator_,
       bind(add_silence),
       {"Silence the alerts of the nodes a selector picks until ends_at: {\"selector\", "
        "\"ends_at\", \"starts_at\"?, \"comment\"?, \"project\"?}",
        none, object_schema(), 201, object_schema()}});
  api.router().add(
      {http::verb::get,
       "/api/v1/silences",
       Access::viewer,
       bind(list_silences),
       {"Silences in force (?include_ended=true: all)", none, nullptr, 200, object_schema()}});
  api.router().add({http::verb::delete_,
                    "/api/v1/silences/{id}",
                    Access::operator_,
                    bind(end_silence),
                    {"End a silence now", none, nullptr, 200, object_schema()}});
  api.router().add(
      {http::verb::post,
       "/api/v1/alert-receivers",
       Access::admin,
       bind(add_receiver),
       {"Add a receiver: {\"name\", \"url\", \"secret\", \"min_severity\", \"project\"}; it "
        "gets each alert change in the Alertmanager webhook format, signed in "
        "X-Ironhold-Signature: sha256=<hex HMAC-SHA256 of the body>",
        none, object_schema(), 201, object_schema()}});
  api.router().add({http::verb::get,
                    "/api/v1/alert-receivers",
                    Access::admin,
                    bind(list_receivers),
                    {"Receivers (never their secrets)", none, nullptr, 200, object_schema()}});
  api.router().add(
      {http::verb::delete_,
       "/api/v1/alert-receivers/{id}",
       Access::admin,
       bind(remove_receiver),
       {"Remove a receiver; what it has not been sent is dropped", none, nullptr, 204, nullptr}});
}

}  // namespace ironhold::web
