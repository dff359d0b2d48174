// /api/v1/cloud-accounts: cloud accounts (OpenStack, EC2, BCC) enrolled once and synced on a
// schedule; every instance an account holds is a node with source=cloud. Credentials are
// write-only: no answer and no audit entry ever carries them.
#include "inventory/cloud/cloud_sync.hpp"
#include "inventory/db/cloud_account_store.hpp"
#include "inventory/error.hpp"
#include "web/openapi.hpp"
#include "web/request_context.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

db::CloudAccountStore& accounts_of(Services& s) {
  if (!s.cloud_accounts)
    throw Error(ErrorKind::unavailable, "cloud accounts are unavailable on this server");
  return *s.cloud_accounts;
}

// Until the account is found, the audit entry names what the client asked for.
void set_requested_account(RequestContext& ctx) {
  ctx.target_type = "cloud_account";
  ctx.target_name = ctx.path_param("id");
}

// What the audit trail may keep of an enrollment: everything but the secrets.
json public_parameters(const CloudAccountSpec& spec) {
  return {{"name", spec.name},
          {"project", spec.project},
          {"provider", spec.provider},
          {"endpoint", spec.endpoint ? json(*spec.endpoint) : json(nullptr)},
          {"region", spec.region},
          {"options", spec.options},
          {"credentials",
           {{"kind", credential_kind(spec.provider, spec.credentials)},
            {"identity", credential_identity(spec.provider, spec.credentials)}}},
          {"sync_interval_s", spec.sync_interval_s}};
}

// The account the path names, when the caller may do `capability` in its project; otherwise the
// answer is the one for an account that does not exist (or 403 when the caller may only read).
asio::awaitable<CloudAccount> authorized_account(Services& s, RequestContext& ctx,
                                                 unsigned capability) {
  db::CloudAccountStore* store = &accounts_of(s);
  const std::string& key = ctx.path_param("id");
  auto work = [store, key] { return store->get(key); };
  CloudAccount account = co_await s.blocking(work);
  ctx.require(capability, account.spec.project,
              "no cloud account has the id or name \"" + key.substr(0, 100) + "\"");
  co_return account;
}

void forget_cached(Services& s, const CloudAccount& account) {
  if (!s.cloud_sync) return;
  if (CloudDriver* driver = s.cloud_sync->driver(account.spec.provider)) driver->forget(account.id);
}

asio::awaitable<Response> enroll_account(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  ctx.target_type = "cloud_account";
  json body = ctx.json_body();
  if (body.is_object() && body.contains("name") && body["name"].is_string())
    ctx.target_name = body["name"].get<std::string>();
  if (body.is_object() && !body.contains("project"))
    body["project"] = ctx.default_project(cap_manage);
  const CloudAccountSpec spec = parse_cloud_account_spec(body);
  ctx.require(cap_manage, spec.project, "no project is named \"" + spec.project + "\"");
  ctx.audit_details["parameters"] = public_parameters(spec);
  db::CloudAccountStore* store = &accounts_of(s);
  auto work = [store, spec] { return store->create(spec); };
  const CloudAccount account = co_await s.blocking(work);
  ctx.set_target("cloud_account", account.id, account.spec.name);
  if (s.cloud_sync) s.cloud_sync->wake();  // the first sync is due at once
  auto res = ctx.json(http::status::created, to_json(account));
  res.set(http::field::location, "/api/v1/cloud-accounts/" + account.id);
  co_return res;
}

asio::awaitable<Response> list_accounts(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  db::CloudAccountStore* store = &accounts_of(s);
  auto work = [store, scope = ctx.scope(cap_read)] { return store->list(scope); };
  const auto accounts = co_await s.blocking(work);
  json items = json::array();
  for (const auto& a : accounts) items.push_back(to_json(a));
  co_return ctx.json(http::status::ok, json{{"items", items}, {"next", nullptr}});
}

asio::awaitable<Response> show_account(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  const CloudAccount account = co_await authorized_account(s, ctx, cap_read);
  co_return ctx.json(http::status::ok, to_json(account));
}

asio::awaitable<Response> update_account(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  set_requested_account(ctx);
  const json patch = ctx.json_body();
  if (patch.is_object()) {
    // Which fields changed goes to the audit trail; their values may be secret, so not those.
    json fields = json::array();
    for (const auto& [key, value] : patch.items()) fields.push_back(key);
    ctx.audit_details["fields"] = fields;
  }
  db::CloudAccountStore* store = &accounts_of(s);
  const CloudAccount current = co_await authorized_account(s, ctx, cap_manage);
  if (patch.is_object() && patch.contains("project") && patch["project"].is_string() &&
      patch["project"] != current.spec.project) {
    const std::string to = patch["project"].get<std::string>();
    ctx.require(cap_manage, to, "no project is named \"" + to.substr(0, 100) + "\"");
    ctx.audit_details["project"] = {{"from", current.spec.project}, {"to", to}};
    ctx.target_project = current.spec.project;
  }
  std::string key = current.id;
  struct Updated {
    CloudAccount account;
    bool credentials_changed = false;
  };
  auto work = [store, key, patch] {
    Updated out;
    out.account = store->update(key, patch, out.credentials_changed);
    return out;
  };
  const Updated updated = co_await s.blocking(work);
  ctx.set_target("cloud_account", updated.account.id, updated.account.spec.name);
  // Any change may change what the driver would cache (endpoint, region, credentials).
  forget_cached(s, updated.account);
  if (s.cloud_sync) s.cloud_sync->wake();
  co_return ctx.json(http::status::ok, to_json(updated.account));
}

asio::awaitable<Response> delete_account(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  set_requested_account(ctx);
  db::CloudAccountStore* store = &accounts_of(s);
  const CloudAccount current = co_await authorized_account(s, ctx, cap_manage);
  std::string key = current.id;
  struct Removed {
    CloudAccount account;
    int nodes_retired = 0;
  };
  auto work = [store, key] {
    Removed out;
    out.account = store->remove(key, out.nodes_retired);
    return out;
  };
  const Removed removed = co_await s.blocking(work);
  ctx.set_target("cloud_account", removed.account.id, removed.account.spec.name);
  ctx.audit_details["nodes_retired"] = removed.nodes_retired;
  forget_cached(s, removed.account);
  co_return ctx.empty(http::status::no_content);
}

asio::awaitable<Response> sync_account(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  set_requested_account(ctx);
  db::CloudAccountStore* store = &accounts_of(s);
  const CloudAccount current = co_await authorized_account(s, ctx, cap_act);
  if (!s.cloud_sync)
    throw Error(ErrorKind::unavailable,
                "this server does not sync cloud accounts (it runs no cloud sync)");
  std::string key = current.id;
  auto work = [store, key] { return store->request_sync(key); };
  const CloudAccount account = co_await s.blocking(work);
  ctx.set_target("cloud_account", account.id, account.spec.name);
  s.cloud_sync->wake();
  auto res = ctx.json(http::status::accepted, to_json(account));
  res.set(http::field::location, "/api/v1/cloud-accounts/" + account.id);
  co_return res;
}

}  // namespace

void register_cloud_account_routes(Api& api) {
  Services& s = api.services();
  auto bind = [&s](asio::awaitable<Response> (*fn)(Services&, RequestContext&)) -> Handler {
    return [&s, fn](RequestContext& ctx) { return fn(s, ctx); };
  };
  api.router().add(
      {http::verb::post,
       "/api/v1/cloud-accounts",
       Access::admin,
       bind(enroll_account),
       {"Enroll a cloud account (OpenStack, EC2 or BCC); its instances become nodes at its first "
        "sync, which is due at once. Credentials are write-only",
        json::array(), openapi::ref("CloudAccountEnrollment"), 201, openapi::ref("CloudAccount")}});
  api.router().add({http::verb::get,
                    "/api/v1/cloud-accounts",
                    Access::viewer,
                    bind(list_accounts),
                    {"List cloud accounts with their sync status", json::array(), nullptr, 200,
                     openapi::page_of("CloudAccount")}});
  api.router().add({http::verb::get,
                    "/api/v1/cloud-accounts/{id}",
                    Access::viewer,
                    bind(show_account),
                    {"Show a cloud account (by id or name) with its sync status", json::array(),
                     nullptr, 200, openapi::ref("CloudAccount")}});
  api.router().add(
      {http::verb::patch,
       "/api/v1/cloud-accounts/{id}",
       Access::admin,
       bind(update_account),
       {"Change a cloud account's name, endpoint, region, options, credentials (replaced whole) "
        "or sync interval; a sync is due at once",
        json::array(), openapi::ref("CloudAccountPatch"), 200, openapi::ref("CloudAccount")}});
  api.router().add({http::verb::delete_,
                    "/api/v1/cloud-accounts/{id}",
                    Access::admin,
                    bind(delete_account),
                    {"Delete a cloud account: its nodes are retired (their history stays)",
                     json::array(), nullptr, 204, nullptr}});
  api.router().add({http::verb::post,
                    "/api/v1/cloud-accounts/{id}/sync",
                    Access::operator_,
                    bind(sync_account),
                    {"Sync a cloud account now; answers 202 at once (read the account for the "
                     "outcome)",
                     json::array(), nullptr, 202, openapi::ref("CloudAccount")}});
}

}  // namespace ironhold::web
