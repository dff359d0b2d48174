// Prices for the cost report (migration 0033): GET /api/v1/prices lists them all; admins add a
// price with POST /api/v1/prices/{servers|energy|instances} (a new version from its effective
// hour; prices are never edited in place) and remove one entered by mistake with DELETE
// /api/v1/prices/{kind}/{id}. Each change is audited with the price it added or removed.
#include <charconv>

#include "web/openapi.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace price_routes {

using nlohmann::json;

db::PriceStore& prices_of(Services& s) {
  if (!s.prices) throw Error(ErrorKind::unavailable, "this server keeps no prices");
  return *s.prices;
}

PriceKind kind_of(RequestContext& ctx) {
  const auto kind = price_kind(ctx.path_param("kind"));
  if (!kind) throw not_found("prices are of kind servers, energy or instances");
  return *kind;
}

asio::awaitable<Response> list_prices(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  db::PriceStore* store = &prices_of(s);
  auto work = [store] { return store->list(); };
  const PriceList prices = co_await s.blocking(work);
  co_return ctx.json(http::status::ok, to_json(prices));
}

asio::awaitable<Response> add_price(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  const PriceKind kind = kind_of(ctx);
  const json body = ctx.json_body();
  db::PriceStore* store = &prices_of(s);
  json added;
  std::string name;
  if (kind == PriceKind::server) {
    auto work = [store, p = parse_server_price(body), actor = ctx.actor()] {
      return to_json(store->add(p, actor));
    };
    added = co_await s.blocking(work);
    name = added["model"];
  } else if (kind == PriceKind::energy) {
    auto work = [store, p = parse_energy_price(body), actor = ctx.actor()] {
      return to_json(store->add(p, actor));
    };
    added = co_await s.blocking(work);
    name = added["site"];
  } else {
    auto work = [store, p = parse_instance_price(body), actor = ctx.actor()] {
      return to_json(store->add(p, actor));
    };
    added = co_await s.blocking(work);
    name = added["provider"].get<std::string>() + " " + added["region"].get<std::string>() + " " +
           added["instance_type"].get<std::string>();
  }
  ctx.set_target(std::string(to_string(kind)) + "_price",
                 std::to_string(added["id"].get<long long>()), name);
  ctx.audit_details = added;
  co_return ctx.json(http::status::created, std::move(added));
}

asio::awaitable<Response> remove_price(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  const PriceKind kind = kind_of(ctx);
  const std::string text = ctx.path_param("id");
  long long id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size() || id <= 0)
    throw not_found("a price id is a positive number");
  db::PriceStore* store = &prices_of(s);
  auto work = [store, kind, id] { return store->remove(kind, id); };
  const json removed = co_await s.blocking(work);
  ctx.set_target(std::string(to_string(kind)) + "_price", std::to_string(id),
                 removed.value("model", removed.value("site", removed.value("instance_type", ""))));
  ctx.audit_details = removed;
  co_return ctx.empty(http::status::no_content);
}

json price_body_schema() {
  return {{"type", "object"},
          {"description",
           "servers: model, effective_from, currency, purchase_price, depreciation_months, "
           "hosting_per_month, rated_watts; energy: site (\"*\": every other site), "
           "effective_from, currency, per_kwh; instances: provider, region (\"*\": every other "
           "region), instance_type, effective_from, currency, per_hour. effective_from is a "
           "whole hour (UTC)"}};
}

}  // namespace price_routes

void register_price_routes(Api& api) {
  using namespace price_routes;
  Services& s = api.services();
  auto bind = [&s](asio::awaitable<Response> (*fn)(Services&, RequestContext&)) -> Handler {
    return [&s, fn](RequestContext& ctx) { return fn(s, ctx); };
  };
  const json none = json::array();
  api.router().add({http::verb::get,
                    "/api/v1/prices",
                    Access::viewer,
                    bind(list_prices),
                    {"Every price the cost report uses: servers, energy and instances, with their "
                     "effective times and the one currency they share",
                     none,
                     nullptr,
                     200,
                     {{"type", "object"}}}});
  api.router().add({http::verb::post,
                    "/api/v1/prices/{kind}",
                    Access::global_admin,
                    bind(add_price),
                    {"Add a price (kind: servers, energy or instances), in force from its "
                     "effective hour until the next one for the same key",
                     none,
                     price_body_schema(),
                     201,
                     {{"type", "object"}}}});
  api.router().add({http::verb::delete_,
                    "/api/v1/prices/{kind}/{id}",
                    Access::global_admin,
                    bind(remove_price),
                    {"Remove a price entered by mistake", none, nullptr, 204, nullptr}});
}

}  // namespace ironhold::web
