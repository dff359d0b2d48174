// The routes a node's installer calls while it is reprovisioned, without an API token (an
// installer has none): GET /api/v1/provisioning/ipxe?mac=... answers the iPXE script of the node
// that MAC belongs to, only while its reprovision task waits for it, and reveals only what that
// installer needs; GET /api/v1/provisioning/config?mac=... the same as JSON, for an installer
// booted from a boot image (virtual media); POST /api/v1/provisioning/callback takes the
// installer's report with the one-time token it was given. Both leave events on the node; the
// call-back is also an audit entry.
#include "inventory/model/mac_address.hpp"
#include "web/ipxe_script.hpp"
#include "web/openapi.hpp"
#include "web/request_context.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

db::ProvisioningStore& sessions_of(Services& s) {
  if (!s.provisioning)
    throw Error(ErrorKind::unavailable, "this server does not reprovision owned servers");
  return *s.provisioning;
}

// The session the installer on ?mac= belongs to, with a new one-time token; `missing_mac` says
// what the MAC is when the query has none.
asio::awaitable<db::ScriptGrant> grant_for_mac(Services& s, RequestContext& ctx,
                                               std::string missing_mac) {
  ctx.only_query({"mac"});
  const auto given = ctx.query_value("mac");
  if (!given || given->empty()) throw invalid("?mac= is required: " + missing_mac, "mac");
  const auto mac = normalize_mac(*given);
  if (!mac) throw invalid("\"" + *given + "\" is not a MAC address", "mac");
  if (s.advertise_url.empty())
    throw Error(ErrorKind::unavailable,
                "this server has no --advertise-url, so its installers could not call back");
  db::ProvisioningStore* store = &sessions_of(s);
  auto grant_one = [store, mac = *mac, peer = ctx.peer] {
    return store->grant_script(mac, peer.empty() ? "unknown" : peer);
  };
  const std::optional<db::ScriptGrant> grant = co_await s.blocking(grant_one);
  if (!grant)
    throw not_found("no reprovisioning is under way for MAC " + *mac +
                    ": the node boots from its disk");
  co_return *grant;
}

asio::awaitable<Response> ipxe_script(Services& s, RequestContext& ctx) {
  auto granting = grant_for_mac(s, ctx, "the booting NIC's MAC address (iPXE: ${net0/mac})");
  const db::ScriptGrant grant = co_await std::move(granting);
  Response res{http::status::ok, ctx.request.version()};
  res.set(http::field::content_type, "text/plain; charset=utf-8");
  res.set(http::field::cache_control, "no-store");  // it carries a one-time token
  res.body() = render_ipxe_script(grant, s.advertise_url);
  res.prepare_payload();
  co_return res;
}

// The same session as ipxe_script, as JSON: what an installer booted from a boot image (virtual
// media) asks for with its MAC, since no iPXE script handed it its settings.
asio::awaitable<Response> installer_config(Services& s, RequestContext& ctx) {
  auto granting = grant_for_mac(s, ctx, "the MAC address of the NIC the installer runs on");
  const db::ScriptGrant grant = co_await std::move(granting);
  std::string base = s.advertise_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  Response res = ctx.json(http::status::ok, {{"node", grant.node_name},
                                             {"node_id", grant.node_id},
                                             {"task_id", grant.task_id},
                                             {"image", grant.image},
                                             {"mac", grant.mac},
                                             {"callback", base + "/api/v1/provisioning/callback"},
                                             {"token", grant.token}});
  res.set(http::field::cache_control, "no-store");  // it carries a one-time token
  co_return res;
}

asio::awaitable<Response> callback(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  const json body = ctx.json_body();
  if (!body.is_object()) throw invalid("the call-back body must be a JSON object");
  const auto token = body.find("token");
  if (token == body.end() || !token->is_string() || token->get<std::string>().empty())
    throw invalid("\"token\" is required: the ironhold_token of the iPXE script", "token");
  const auto status = body.find("status");
  if (status == body.end() || !status->is_string() ||
      (*status != "succeeded" && *status != "failed"))
    throw invalid("\"status\" must be \"succeeded\" or \"failed\"", "status");
  db::CallbackReport report;
  report.succeeded = *status == "succeeded";
  if (const auto message = body.find("message"); message != body.end()) {
    if (!message->is_string()) throw invalid("\"message\" must be a string", "message");
    report.message = message->get<std::string>().substr(0, 4096);
  }
  report.report = body;
  report.report.erase("token");
  report.from = ctx.peer.empty() ? "unknown" : ctx.peer;
  db::ProvisioningStore* store = &sessions_of(s);
  auto complete = [store, secret = token->get<std::string>(), report] {
    return store->complete(secret, report);
  };
  const db::ProvisioningSession session = co_await s.blocking(complete);
  co_return ctx.json(http::status::ok, {{"node", session.node_name},
                                        {"node_id", session.node_id},
                                        {"task_id", session.task_id},
                                        {"state", session.state}});
}

}  // namespace

void register_provisioning_routes(Api& api) {
  Services& s = api.services();
  const json mac_query = json::array(
      {{{"name", "mac"}, {"in", "query"}, {"required", true}, {"schema", {{"type", "string"}}}}});
  api.router().add(
      {http::verb::get,
       "/api/v1/provisioning/ipxe",
       Access::anyone,
       [&s](RequestContext& ctx) { return ipxe_script(s, ctx); },
       {"The iPXE script of the node being reprovisioned that this MAC address belongs to (no "
        "token: point the site's DHCP at it; 404 when no reprovisioning is under way)",
        mac_query,
        nullptr,
        200,
        {{"type", "string"}}}});
  api.router().add(
      {http::verb::get,
       "/api/v1/provisioning/config",
       Access::anyone,
       [&s](RequestContext& ctx) { return installer_config(s, ctx); },
       {"What the installer of the node being reprovisioned that this MAC address belongs to "
        "needs, "
        "as JSON (an installer booted from a boot image; no token: 404 when no reprovisioning is "
        "under way). Each call issues a new one-time call-back token",
        mac_query,
        nullptr,
        200,
        {{"type", "object"},
         {"properties",
          {{"node", {{"type", "string"}}},
           {"node_id", {{"type", "string"}}},
           {"task_id", {{"type", "string"}}},
           {"image", {{"type", "string"}}},
           {"mac", {{"type", "string"}}},
           {"callback", {{"type", "string"}}},
           {"token", {{"type", "string"}}}}}}}});
  api.router().add(
      {http::verb::post,
       "/api/v1/provisioning/callback",
       Access::anyone,
       [&s](RequestContext& ctx) { return callback(s, ctx); },
       {"The installer's report, with the one-time token of its iPXE script (no API token)",
        json::array(),
        {{"type", "object"},
         {"required", {"token", "status"}},
         {"properties",
          {{"token", {{"type", "string"}}},
           {"status", {{"type", "string"}, {"enum", {"succeeded", "failed"}}}},
           {"message", {{"type", "string"}}}}}},
        200,
        {{"type", "object"},
         {"properties",
          {{"node", {{"type", "string"}}},
           {"node_id", {{"type", "string"}}},
           {"task_id", {{"type", "string"}}},
           {"state", {{"type", "string"}}}}}}}});
}

}  // namespace ironhold::web
