// GET /api/v1/audit: the audit trail, newest first, for auditors and admins, in keyset pages.
#include <charconv>

#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"
#include "web/openapi.hpp"
#include "web/request_context.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

struct AuditQuery {
  int limit = 100;
  std::optional<std::string> target;
  std::optional<long long> before;
};

std::string encode_audit_cursor(const AuditQuery& q, long long last_id) {
  json doc = {{"l", q.limit}, {"b", last_id}};
  if (q.target) doc["t"] = *q.target;
  const auto text = doc.dump();
  return crypto::base64url({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

AuditQuery decode_audit_cursor(const std::string& cursor) {
  std::vector<std::uint8_t> bytes;
  const auto bad = invalid("the cursor is not valid: use the \"next\" value of the previous page unchanged", "cursor");
  if (cursor.size() > 4096 || !crypto::from_base64url(cursor, bytes)) throw bad;
  const json doc = json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (!doc.is_object() || !doc.contains("l") || !doc["l"].is_number_integer() || !doc.contains("b") ||
      !doc["b"].is_number_integer())
    throw bad;
  AuditQuery q;
  q.limit = doc["l"].get<int>();
  q.before = doc["b"].get<long long>();
  if (q.limit < 1 || q.limit > 1000) throw bad;
  if (doc.contains("t")) {
    if (!doc["t"].is_string()) throw bad;
    q.target = doc["t"].get<std::string>();
  }
  return q;
}

AuditQuery audit_query_from(const RequestContext& ctx) {
  if (auto cursor = ctx.query_value("cursor")) {
    ctx.only_query({"cursor"});
    return decode_audit_cursor(*cursor);
  }
  ctx.only_query({"target", "limit"});
  AuditQuery q;
  if (auto text = ctx.query_value("limit")) {
    auto [p, ec] = std::from_chars(text->data(), text->data() + text->size(), q.limit);
    if (ec != std::errc{} || p != text->data() + text->size() || q.limit < 1 || q.limit > 1000)
      throw invalid("\"limit\" must be a number from 1 to 1000", "limit");
  }
  q.target = ctx.query_value("target");
  return q;
}

asio::awaitable<Response> list_audit(Services& s, RequestContext& ctx) {
  const AuditQuery q = audit_query_from(ctx);
  auto work = [&s, q] { return s.audit.recent(q.limit + 1, q.target, q.before); };
  auto records = co_await s.blocking(work);
  json items = json::array();
  for (std::size_t i = 0; i < records.size() && i < static_cast<std::size_t>(q.limit); ++i)
    items.push_back(db::to_json(records[i]));
  json next = nullptr;
  if (records.size() > static_cast<std::size_t>(q.limit)) next = encode_audit_cursor(q, records[q.limit - 1].id);
  co_return ctx.json(http::status::ok, {{"items", items}, {"next", next}});
}

}  // namespace

void register_audit_routes(Api& api) {
  Services& s = api.services();
  api.router().add(
      {http::verb::get, "/api/v1/audit", Access::auditor,
       [&s](RequestContext& ctx) { return list_audit(s, ctx); },
       {"Audit entries, newest first",
        json::array({{{"name", "target"}, {"in", "query"}, {"required", false},
                      {"description", "a target id (node or token)"}, {"schema", {{"type", "string"}}}},
                     {{"name", "limit"}, {"in", "query"}, {"required", false},
                      {"schema", {{"type", "integer"}, {"maximum", 1000}, {"default", 100}}}},
                     {{"name", "cursor"}, {"in", "query"}, {"required", false},
                      {"description", "the previous page's next value, alone"}, {"schema", {{"type", "string"}}}}}),
        nullptr, 200, openapi::page_of("AuditEntry")}});
}

}  // namespace ironhold::web
