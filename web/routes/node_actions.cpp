// POST /api/v1/nodes/{id}/power|boot|identify|reprovision|firmware: every action is a task, written
// to PostgreSQL before anything is sent and carried out by the task engine; the answer is 202 with
// the task and a Location to follow it. An Idempotency-Key makes a retried request return the same
// task.
#include "inventory/tasks/task_engine.hpp"
#include "web/idempotency.hpp"
#include "web/openapi.hpp"
#include "web/routes/node_access.hpp"
#include "web/routes/routes.hpp"
#include "web/routes/task_views.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

asio::awaitable<Response> create_node_task(Services& s, RequestContext& ctx, TaskKind kind) {
  ctx.only_query({});
  db::TaskStore* store = &task_store_of(s);
  const json body = ctx.request.body().empty() ? json::object() : ctx.json_body();
  const Node node = co_await authorized_node(s, ctx, ctx.path_param("id"), cap_act);
  db::NewTask task;
  task.kind = kind;
  task.node = node.id;
  task.parameters = parse_task_parameters(kind, body);
  task.requested_by = ctx.actor();
  ctx.audit_details["parameters"] = task.parameters.parameters;
  const auto key = idempotency_key(ctx, body, s.request_digest);
  if (key) ctx.audit_details["idempotency_key"] = key->key;
  auto work = [store, task, key] {
    const db::NewTask one[] = {task};
    return store->create(one, key);
  };
  const db::CreatedTasks created = co_await s.blocking(work);
  if (created.tasks.empty())
    throw Error(ErrorKind::internal, "the task was created but cannot be read back");
  const Task& t = created.tasks.front();
  if (t.node_id) ctx.set_target("node", *t.node_id, t.node_name.value_or(""));
  ctx.audit_details["task_id"] = t.id;
  if (created.replayed) ctx.audit_details["replayed"] = true;
  if (s.task_engine && !created.replayed) s.task_engine->wake();
  auto res = ctx.json(http::status::accepted, to_json(t));
  res.set(http::field::location, "/api/v1/tasks/" + t.id);
  if (created.replayed) res.set("Idempotent-Replayed", "true");
  co_return res;
}

asio::awaitable<Response> power(Services& s, RequestContext& ctx) {
  return create_node_task(s, ctx, TaskKind::power);
}
asio::awaitable<Response> boot(Services& s, RequestContext& ctx) {
  return create_node_task(s, ctx, TaskKind::boot);
}
asio::awaitable<Response> identify(Services& s, RequestContext& ctx) {
  return create_node_task(s, ctx, TaskKind::identify);
}
asio::awaitable<Response> reprovision(Services& s, RequestContext& ctx) {
  return create_node_task(s, ctx, TaskKind::reprovision);
}
asio::awaitable<Response> firmware(Services& s, RequestContext& ctx) {
  return create_node_task(s, ctx, TaskKind::firmware);
}
asio::awaitable<Response> bios(Services& s, RequestContext& ctx) {
  return create_node_task(s, ctx, TaskKind::bios);
}
asio::awaitable<Response> rotate_credentials(Services& s, RequestContext& ctx) {
  return create_node_task(s, ctx, TaskKind::credentials);
}

json idempotency_header() {
  return {{"name", "Idempotency-Key"},
          {"in", "header"},
          {"required", false},
          {"description",
           "the same key from the same token with the same body returns the same task for 24 "
           "hours; with another body it is 422"},
          {"schema", {{"type", "string"}, {"maxLength", 255}}}};
}

}  // namespace

void register_node_action_routes(Api& api) {
  Services& s = api.services();
  auto bind = [&s](asio::awaitable<Response> (*fn)(Services&, RequestContext&)) -> Handler {
    return [&s, fn](RequestContext& ctx) { return fn(s, ctx); };
  };
  const json params = json::array({idempotency_header()});
  api.router().add({http::verb::post,
                    "/api/v1/nodes/{id}/power",
                    Access::operator_,
                    bind(power),
                    {"Power a node on, off, cycle, reset or soft_off (a task)", params,
                     openapi::ref("PowerRequest"), 202, openapi::ref("Task")}});
  api.router().add({http::verb::post,
                    "/api/v1/nodes/{id}/boot",
                    Access::operator_,
                    bind(boot),
                    {"Set the boot device for the next boot or persistently (a task)", params,
                     openapi::ref("BootRequest"), 202, openapi::ref("Task")}});
  api.router().add({http::verb::post,
                    "/api/v1/nodes/{id}/identify",
                    Access::operator_,
                    bind(identify),
                    {"Turn the identify LED on or off (a task)", params,
                     openapi::ref("IdentifyRequest"), 202, openapi::ref("Task")}});
  api.router().add({http::verb::post,
                    "/api/v1/nodes/{id}/reprovision",
                    Access::operator_,
                    bind(reprovision),
                    {"Reprovision a node (a task; the node is provisioning until it ends): a "
                     "cloud instance is rebuilt by its provider; an owned server boots its "
                     "installer over PXE (GET /api/v1/provisioning/ipxe) and is done when the "
                     "installer calls back",
                     params, openapi::ref("ReprovisionRequest"), 202, openapi::ref("Task")}});
  api.router().add({http::verb::post,
                    "/api/v1/nodes/{id}/firmware",
                    Access::operator_,
                    bind(firmware),
                    {"Update one firmware component of an owned server from an uploaded image (a "
                     "task): the BMC downloads it through a signed URL (Redfish SimpleUpdate), "
                     "the task follows the BMC's task, resets the System when the new firmware "
                     "waits for it, and confirms the new version in the firmware inventory",
                     params, openapi::ref("FirmwareUpdateRequest"), 202, openapi::ref("Task")}});
  api.router().add({http::verb::post,
                    "/api/v1/nodes/{id}/bios",
                    Access::operator_,
                    bind(bios),
                    {"Set BIOS attributes and/or the boot order of an owned server (a task): "
                     "written to the BIOS settings object, applied by a reset, read back until "
                     "they show, and recorded in the node's BIOS history",
                     params, openapi::ref("BiosRequest"), 202, openapi::ref("Task")}});
  api.router().add(
      {http::verb::post,
       "/api/v1/nodes/{id}/credentials/rotate",
       Access::operator_,
       bind(rotate_credentials),
       {"Rotate the password of the BMC account Ironhold uses (a task): changed at "
        "the BMC (Redfish AccountService, IPMI Set User Password), proven by a fresh "
        "login, then stored; the old one stays stored until then. The password is "
        "made for each node unless one is given, and is never shown",
        params, openapi::ref("CredentialRotationRequest"), 202, openapi::ref("Task")}});
}

}  // namespace ironhold::web
