// GET /api/v1/audit: the audit trail, newest first, for auditors and admins.
#include <charconv>

#include "inventory/error.hpp"
#include "web/openapi.hpp"
#include "web/request_context.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {

void register_audit_routes(Api& api) {
  Services& s = api.services();
  api.router().add(
      {http::verb::get, "/api/v1/audit", Access::auditor,
       [&s](RequestContext& ctx) -> asio::awaitable<Response> {
         ctx.only_query({"target", "limit"});
         int limit = 100;
         if (auto text = ctx.query_value("limit")) {
           auto [p, ec] = std::from_chars(text->data(), text->data() + text->size(), limit);
           if (ec != std::errc{} || p != text->data() + text->size() || limit < 1 || limit > 1000)
             throw invalid("\"limit\" must be a number from 1 to 1000", "limit");
         }
         auto target = ctx.query_value("target");
         auto work = [&s, limit, target] { return s.audit.recent(limit, target); };
         auto records = co_await s.blocking(work);
         nlohmann::json items = nlohmann::json::array();
         for (const auto& r : records) items.push_back(db::to_json(r));
         co_return ctx.json(http::status::ok, {{"items", items}, {"next", nullptr}});
       },
       {"Recent audit entries, newest first",
        nlohmann::json::array({{{"name", "target"}, {"in", "query"}, {"required", false},
                                {"description", "a target id (node or token)"}, {"schema", {{"type", "string"}}}},
                               {{"name", "limit"}, {"in", "query"}, {"required", false},
                                {"schema", {{"type", "integer"}, {"maximum", 1000}}}}}),
        nullptr, 200, openapi::page_of("AuditEntry")}});
}

}  // namespace ironhold::web
