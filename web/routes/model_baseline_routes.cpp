#include "web/routes/model_baseline_routes.hpp"

#include <memory>

#include "web/openapi.hpp"

namespace ironhold::web {
namespace model_baselines {

using nlohmann::json;
using Spec = std::shared_ptr<const ModelBaselineRoutes>;

// Free coroutines, not capturing lambdas: their parameters live in the coroutine frame.
asio::awaitable<Response> put_baseline(Spec spec, Services& s, RequestContext& ctx) {
  ctx.only_query({});
  const json content = spec->parse_body(ctx.json_body());
  auto work = [spec, &s, model = ctx.path_param("model"), content, actor = ctx.actor()] {
    return spec->put(s, model, content, actor);
  };
  json baseline = co_await s.blocking(work);
  const std::string model = baseline.value("model", std::string());
  ctx.set_target(spec->target_type, model, model);
  ctx.audit_details = {{spec->content_key, baseline[spec->content_key]}};
  co_return ctx.json(http::status::ok, std::move(baseline));
}

asio::awaitable<Response> list_baselines(Spec spec, Services& s, RequestContext& ctx) {
  ctx.only_query({});
  auto work = [spec, &s] { return spec->list(s); };
  json items = co_await s.blocking(work);
  co_return ctx.json(http::status::ok, {{"items", std::move(items)}});
}

asio::awaitable<Response> get_baseline(Spec spec, Services& s, RequestContext& ctx) {
  ctx.only_query({});
  auto work = [spec, &s, model = ctx.path_param("model")] { return spec->get(s, model); };
  json baseline = co_await s.blocking(work);
  co_return ctx.json(http::status::ok, std::move(baseline));
}

asio::awaitable<Response> delete_baseline(Spec spec, Services& s, RequestContext& ctx) {
  ctx.only_query({});
  const std::string model = ctx.path_param("model");
  auto work = [spec, &s, model] { spec->remove(s, model); };
  co_await s.blocking(work);
  ctx.set_target(spec->target_type, model, model);
  co_return ctx.empty(http::status::no_content);
}

}  // namespace model_baselines

void register_model_baseline_routes(Api& api, ModelBaselineRoutes routes) {
  using namespace model_baselines;
  Services& s = api.services();
  const Spec spec = std::make_shared<const ModelBaselineRoutes>(std::move(routes));
  auto bind = [&s,
               spec](asio::awaitable<Response> (*fn)(Spec, Services&, RequestContext&)) -> Handler {
    return [&s, spec, fn](RequestContext& ctx) { return fn(spec, s, ctx); };
  };
  const json none = json::array();
  const std::string one = spec->prefix + "/{model}";
  api.router().add({http::verb::put,
                    one,
                    Access::global_admin,
                    bind(put_baseline),
                    {"Set the " + spec->noun + " baseline of a server model (" + spec->what + ")",
                     none,
                     {{"type", "object"},
                      {"required", {spec->content_key}},
                      {"additionalProperties", false},
                      {"properties", {{spec->content_key, spec->content_schema}}}},
                     200,
                     spec->baseline_schema}});
  api.router().add(
      {http::verb::get,
       spec->prefix,
       Access::viewer,
       bind(list_baselines),
       {spec->noun + " baselines, by model",
        none,
        nullptr,
        200,
        {{"type", "object"},
         {"properties", {{"items", {{"type", "array"}, {"items", spec->baseline_schema}}}}}}}});
  api.router().add(
      {http::verb::get,
       one,
       Access::viewer,
       bind(get_baseline),
       {"One model's " + spec->noun + " baseline", none, nullptr, 200, spec->baseline_schema}});
  api.router().add({http::verb::delete_,
                    one,
                    Access::global_admin,
                    bind(delete_baseline),
                    {"Remove a model's " + spec->noun + " baseline", none, nullptr, 204, nullptr}});
}

}  // namespace ironhold::web
