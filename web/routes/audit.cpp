// The audit trail for auditors and admins: GET /api/v1/audit (filters, keyset pages, or the whole
// selection as CSV or NDJSON), GET /api/v1/nodes/{id}/audit (one node's entries) and
// GET /api/v1/audit/verify (the chain walked end to end).
#include <charconv>

#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"
#include "inventory/util/time.hpp"
#include "web/body_stream.hpp"
#include "web/csv_writer.hpp"
#include "web/openapi.hpp"
#include "web/request_context.hpp"
#include "web/routes/node_access.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

enum class AuditFormat { json, csv, ndjson };

struct AuditQuery {
  int limit = 100;
  db::AuditFilter filter;
  AuditFormat format = AuditFormat::json;
};

json filter_to_json(const db::AuditFilter& f) {
  json doc = json::object();
  if (f.actor) doc["a"] = *f.actor;
  if (f.target) doc["t"] = *f.target;
  if (f.action) doc["x"] = *f.action;
  if (f.since) doc["s"] = *f.since;
  if (f.until) doc["u"] = *f.until;
  return doc;
}

std::string encode_audit_cursor(const AuditQuery& q, long long last_id) {
  json doc = {{"l", q.limit}, {"b", last_id}, {"f", filter_to_json(q.filter)}};
  const auto text = doc.dump();
  return crypto::base64url({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

std::optional<std::string> text_member(const json& doc, const char* name, const Error& bad) {
  if (!doc.contains(name)) return std::nullopt;
  if (!doc[name].is_string()) throw bad;
  return doc[name].get<std::string>();
}

AuditQuery decode_audit_cursor(const std::string& cursor) {
  std::vector<std::uint8_t> bytes;
  const auto bad = invalid(
      "the cursor is not valid: use the \"next\" value of the previous page unchanged", "cursor");
  if (cursor.size() > 4096 || !crypto::from_base64url(cursor, bytes)) throw bad;
  const json doc = json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (!doc.is_object() || !doc.contains("l") || !doc["l"].is_number_integer() ||
      !doc.contains("b") || !doc["b"].is_number_integer())
    throw bad;
  AuditQuery q;
  q.limit = doc["l"].get<int>();
  q.filter.before_id = doc["b"].get<long long>();
  if (q.limit < 1 || q.limit > 1000) throw bad;
  const json f = doc.value("f", json::object());
  if (!f.is_object()) throw bad;
  q.filter.actor = text_member(f, "a", bad);
  q.filter.target = text_member(f, "t", bad);
  q.filter.action = text_member(f, "x", bad);
  q.filter.since = text_member(f, "s", bad);
  q.filter.until = text_member(f, "u", bad);
  return q;
}

std::optional<std::string> audit_time_param(const RequestContext& ctx, const char* name) {
  auto text = ctx.query_value(name);
  if (!text) return std::nullopt;
  if (!parse_rfc3339(*text))
    throw invalid(
        "\"" + std::string(name) + "\" must be an RFC 3339 time, like 2026-11-30T12:00:00Z", name);
  return text;
}

AuditFormat format_param(const RequestContext& ctx) {
  const auto text = ctx.query_value("format").value_or("json");
  if (text == "json") return AuditFormat::json;
  if (text == "csv") return AuditFormat::csv;
  if (text == "ndjson") return AuditFormat::ndjson;
  throw invalid("\"format\" must be json, csv or ndjson", "format");
}

AuditQuery audit_query_from(const RequestContext& ctx) {
  if (auto cursor = ctx.query_value("cursor")) {
    ctx.only_query({"cursor"});
    return decode_audit_cursor(*cursor);
  }
  ctx.only_query({"actor", "target", "action", "since", "until", "limit", "format"});
  AuditQuery q;
  q.format = format_param(ctx);
  // An export takes everything selected unless asked for fewer.
  q.limit = ctx.limit_param(q.format == AuditFormat::json ? 100 : 0,
                            q.format == AuditFormat::json ? 1000 : 100'000'000);
  q.filter.actor = ctx.query_value("actor");
  q.filter.target = ctx.query_value("target");
  q.filter.action = ctx.query_value("action");
  q.filter.since = audit_time_param(ctx, "since");
  q.filter.until = audit_time_param(ctx, "until");
  return q;
}

const std::vector<std::string> kCsvHeader = {
    "id",        "seq",         "at",      "actor",      "actor_id", "action", "target_type",
    "target_id", "target_name", "outcome", "request_id", "project",  "details"};

std::string csv_record(const db::AuditRecord& r) {
  const auto& e = r.entry;
  const std::vector<std::string> fields = {
      std::to_string(r.id),
      r.seq ? std::to_string(*r.seq) : "",
      r.at,
      e.actor,
      e.actor_id.value_or(""),
      e.action,
      e.target_type.value_or(""),
      e.target_id.value_or(""),
      e.target_name.value_or(""),
      e.outcome,
      e.request_id.value_or(""),
      e.project.value_or(""),
      e.details.dump(-1, ' ', false, json::error_handler_t::replace)};
  return csv_row(fields);
}

// The selection, newest first, a thousand entries per database round trip: constant memory
// however long the trail, and no connection held between pieces.
class AuditExport final : public BodySource {
 public:
  AuditExport(Services& s, AuditQuery q) : s_(s), q_(std::move(q)) {
    if (q_.format == AuditFormat::csv) header_ = csv_row(kCsvHeader);
  }

  asio::awaitable<std::string> next() override {
    if (!header_.empty()) co_return std::exchange(header_, std::string());
    if (done_ || failed_) co_return std::string();
    const int batch = q_.limit > 0 ? std::min(1000, q_.limit - sent_) : 1000;
    auto read = [&s = s_, filter = q_.filter,
                 batch]() -> std::optional<std::vector<db::AuditRecord>> {
      try {
        return s.audit.list(filter, batch);
      } catch (const std::exception&) {
        return std::nullopt;
      }
    };
    auto records = co_await s_.blocking(read);
    if (!records) {
      failed_ = true;
      co_return std::string();
    }
    std::string out;
    for (const auto& r : *records) {
      out += q_.format == AuditFormat::csv
                 ? csv_record(r)
                 : db::to_json(r).dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
      q_.filter.before_id = r.id;
    }
    sent_ += static_cast<int>(records->size());
    if (static_cast<int>(records->size()) < batch || (q_.limit > 0 && sent_ >= q_.limit))
      done_ = true;
    if (out.empty()) co_return std::string();
    co_return out;
  }
  bool failed() const override { return failed_; }

 private:
  Services& s_;
  AuditQuery q_;
  std::string header_;
  int sent_ = 0;
  bool done_ = false;
  bool failed_ = false;
};

asio::awaitable<Response> audit_page(Services& s, RequestContext& ctx, AuditQuery q) {
  if (q.format != AuditFormat::json) {
    Response res{http::status::ok, ctx.request.version()};
    res.set(http::field::content_type,
            q.format == AuditFormat::csv ? "text/csv; charset=utf-8" : "application/x-ndjson");
    if (q.format == AuditFormat::csv)
      res.set(http::field::content_disposition, "attachment; filename=\"audit.csv\"");
    ctx.body_source = std::make_shared<AuditExport>(s, std::move(q));
    co_return res;
  }
  auto work = [&s, q] { return s.audit.list(q.filter, q.limit + 1); };
  auto records = co_await s.blocking(work);
  json items = json::array();
  for (std::size_t i = 0; i < records.size() && i < static_cast<std::size_t>(q.limit); ++i)
    items.push_back(db::to_json(records[i]));
  json next = nullptr;
  if (records.size() > static_cast<std::size_t>(q.limit))
    next = encode_audit_cursor(q, records[q.limit - 1].id);
  co_return ctx.json(http::status::ok, {{"items", items}, {"next", next}});
}

asio::awaitable<Response> list_audit(Services& s, RequestContext& ctx) {
  AuditQuery q = audit_query_from(ctx);
  q.filter.scope = ctx.scope(cap_audit);
  co_return co_await audit_page(s, ctx, std::move(q));
}

asio::awaitable<Response> node_audit(Services& s, RequestContext& ctx) {
  AuditQuery q = audit_query_from(ctx);
  if (q.filter.target && !ctx.query_value("cursor"))
    throw invalid("\"target\" is the node of the path here", "target");
  const Node node = co_await authorized_node(s, ctx, ctx.path_param("id"), cap_audit);
  q.filter.scope = ctx.scope(cap_audit);
  if (q.filter.target && *q.filter.target != node.id)
    throw invalid("the cursor belongs to another node's entries", "cursor");
  q.filter.target = node.id;
  co_return co_await audit_page(s, ctx, std::move(q));
}

asio::awaitable<Response> verify_audit(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  auto work = [&s] { return db::verify_audit_chain(s.database, s.audit_anchor); };
  const db::ChainReport report = co_await s.blocking(work);
  ctx.audit_details = {{"ok", report.ok()}, {"entries", report.entries}};
  co_return ctx.json(http::status::ok, db::to_json(report));
}

json audit_parameters() {
  auto text = [](const char* name, const char* description) {
    return json{{"name", name},
                {"in", "query"},
                {"required", false},
                {"description", description},
                {"schema", {{"type", "string"}}}};
  };
  return json::array(
      {text("actor", "who acted: a token or user name, or cli:<user>"),
       text("target", "a target id (node, token, rollout, ...)"),
       text("action", "an action (\"POST /api/v1/nodes\", \"task.step\"), or a prefix ending in *"),
       text("since", "entries at or after this RFC 3339 time"),
       text("until", "entries before this RFC 3339 time"),
       {{"name", "format"},
        {"in", "query"},
        {"required", false},
        {"description", "json (pages), or csv / ndjson (the whole selection, streamed)"},
        {"schema", {{"type", "string"}, {"enum", {"json", "csv", "ndjson"}}}}},
       {{"name", "limit"},
        {"in", "query"},
        {"required", false},
        {"schema", {{"type", "integer"}, {"maximum", 1000}, {"default", 100}}}},
       text("cursor", "the previous page's next value, alone")});
}

}  // namespace

void register_audit_routes(Api& api) {
  Services& s = api.services();
  api.router().add({http::verb::get,
                    "/api/v1/audit",
                    Access::auditor,
                    [&s](RequestContext& ctx) { return list_audit(s, ctx); },
                    {"Audit entries, newest first", audit_parameters(), nullptr, 200,
                     openapi::page_of("AuditEntry")}});
  api.router().add({http::verb::get,
                    "/api/v1/audit/verify",
                    Access::global_auditor,
                    [&s](RequestContext& ctx) { return verify_audit(s, ctx); },
                    {"Walks the audit chain and reports the first entry modified, deleted, "
                     "inserted or reordered since it was written",
                     json::array(), nullptr, 200, openapi::ref("AuditVerification")}});
  api.router().add({http::verb::get,
                    "/api/v1/nodes/{id}/audit",
                    Access::auditor,
                    [&s](RequestContext& ctx) { return node_audit(s, ctx); },
                    {"A node's audit entries, newest first", audit_parameters(), nullptr, 200,
                     openapi::page_of("AuditEntry")}});
}

}  // namespace ironhold::web
