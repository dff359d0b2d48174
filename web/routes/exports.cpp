// Exports for auditors: GET /api/v1/export/assets and /api/v1/export/firmware (CSV, JSON or NDJSON;
// the node list's selectors; as_of for the inventory as it was then), streamed from a cursor on a
// connection pool of their own, and GET /api/v1/export/manifests/{id}, which proves afterwards
// what a completed export contained.
#include <algorithm>

#include "inventory/crypto/primitives.hpp"
#include "inventory/crypto/sha256_stream.hpp"
#include "inventory/db/export_store.hpp"
#include "inventory/error.hpp"
#include "inventory/util/log.hpp"
#include "inventory/util/time.hpp"
#include "web/body_stream.hpp"
#include "web/csv_writer.hpp"
#include "web/openapi.hpp"
#include "web/request_context.hpp"
#include "web/routes/node_views.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

using nlohmann::json;

enum class ExportFormat { csv, json, ndjson };

std::string_view to_string(ExportFormat f) {
  return f == ExportFormat::csv ? "csv" : f == ExportFormat::json ? "json" : "ndjson";
}

struct ExportPlan {
  db::ExportRequest request;
  ExportFormat format = ExportFormat::csv;
  json parameters = json::object();  // as asked, for the manifest
};

ExportPlan plan_from(const RequestContext& ctx, db::ExportKind kind) {
  ExportPlan plan;
  plan.request.kind = kind;
  QueryParams selectors;
  for (const auto& [key, value] : ctx.query) {
    if (key == "format") {
      if (value == "csv")
        plan.format = ExportFormat::csv;
      else if (value == "json")
        plan.format = ExportFormat::json;
      else if (value == "ndjson")
        plan.format = ExportFormat::ndjson;
      else
        throw invalid("\"format\" must be csv, json or ndjson", "format");
    } else if (key == "as_of") {
      const auto at = parse_rfc3339(value);
      if (!at)
        throw invalid("\"as_of\" must be an RFC 3339 time, like 2026-01-31T00:00:00Z", "as_of");
      if (*at > std::chrono::system_clock::now())
        throw invalid("\"as_of\" is in the future: the inventory is only known up to now", "as_of");
      plan.request.as_of = format_rfc3339(*at);
    } else {
      selectors.emplace_back(key, value);
    }
    plan.parameters[key] = value;
  }
  plan.request.filter = node_filter_from(selectors);
  plan.request.json_rows = plan.format != ExportFormat::csv;
  return plan;
}

// Exports running now, at most as many as the export pool has connections: one more is refused
// at once rather than queued behind a long download.
struct ExportSlot {
  explicit ExportSlot(ExportBudget& budget) : budget_(&budget) {
    if (++budget.running > budget.limit) {
      --budget.running;
      budget_ = nullptr;
      throw Error(ErrorKind::unavailable,
                  std::to_string(budget.limit) +
                      " exports are running, as many as this instance runs at once; try again "
                      "when one has finished");
    }
  }
  ~ExportSlot() {
    if (budget_) --budget_->running;
  }
  ExportSlot(const ExportSlot&) = delete;
  ExportSlot& operator=(const ExportSlot&) = delete;

 private:
  ExportBudget* budget_;
};

std::string json_row_text(const db::ExportCursor::Row& row) {
  return row.empty() || !row[0] ? std::string("{}") : *row[0];
}

std::string csv_row_text(const db::ExportCursor::Row& row, std::vector<std::string>& scratch) {
  scratch.clear();
  for (const auto& field : row) scratch.push_back(field.value_or(""));
  return csv_row(scratch);
}

// The body: header, rows a batch at a time as the client takes them, and at the end the manifest
// completed with the row count and the SHA-256 of every byte sent, before the client sees the end.
class ExportBody final : public BodySource {
 public:
  ExportBody(Services& s, std::shared_ptr<ExportSlot> slot,
             std::unique_ptr<db::ExportCursor> cursor, db::ExportKind kind, ExportFormat format,
             std::string manifest_id)
      : s_(s),
        slot_(std::move(slot)),
        cursor_(std::move(cursor)),
        kind_(kind),
        format_(format),
        manifest_id_(std::move(manifest_id)) {}

  ~ExportBody() override {
    if (!finished_) {
      // The client went away (or a read failed): the cursor goes back on the pool's thread, and
      // the manifest says the export never completed.
      auto release = [cursor = std::move(cursor_), &s = s_, id = manifest_id_]() mutable {
        cursor.reset();
        try {
          s.export_manifests->fail(id, "the body was not sent in full");
        } catch (const std::exception& e) {
          log::warn("cannot mark an export failed", {{"export_id", id}, {"error", e.what()}});
        }
      };
      asio::post(s_.blocking_pool, std::move(release));
    }
  }

  asio::awaitable<std::string> next() override {
    if (finished_ || failed_) co_return std::string();
    std::string out;
    if (!started_) {
      started_ = true;
      out = opening();
    }
    if (!drained_) {
      auto read = [cursor = cursor_.get()]() -> std::optional<std::vector<db::ExportCursor::Row>> {
        try {
          return cursor->fetch(kBatch);
        } catch (const std::exception& e) {
          log::warn("an export's read failed", {{"error", e.what()}});
          return std::nullopt;
        }
      };
      auto rows = co_await s_.blocking(read);
      if (!rows) {
        failed_ = true;
        co_return std::string();
      }
      for (const auto& row : *rows) append_row(out, row);
      rows_ += static_cast<long long>(rows->size());
      if (rows->size() < static_cast<std::size_t>(kBatch)) {
        drained_ = true;
        if (format_ == ExportFormat::json) out += rows_ == 0 ? "]\n" : "\n]\n";
      }
    }
    if (!out.empty()) {
      hash_.update(out);
      co_return out;
    }
    // Everything is sent: the manifest is complete before the client sees the body's end.
    const std::string sha256 = crypto::to_hex(hash_.finish());
    auto complete = [cursor = std::move(cursor_), &s = s_, id = manifest_id_, rows = rows_,
                     sha256]() mutable {
      cursor.reset();
      try {
        s.export_manifests->complete(id, rows, sha256);
        return true;
      } catch (const std::exception& e) {
        log::error("cannot complete an export's manifest",
                   {{"export_id", id}, {"error", e.what()}});
        return false;
      }
    };
    const bool recorded = co_await s_.blocking(std::move(complete));
    finished_ = true;
    if (!recorded) failed_ = true;  // the client sees a cut body, not one without its manifest
    co_return std::string();
  }

  bool failed() const override { return failed_; }

 private:
  static constexpr int kBatch = 1000;

  std::string opening() const {
    if (format_ == ExportFormat::json) return "[";
    if (format_ == ExportFormat::ndjson) return {};
    std::vector<std::string> header;
    for (auto name : db::export_columns(kind_)) header.emplace_back(name);
    return csv_row(header);
  }

  void append_row(std::string& out, const db::ExportCursor::Row& row) {
    switch (format_) {
      case ExportFormat::csv:
        out += csv_row_text(row, scratch_);
        break;
      case ExportFormat::json:
        out += rows_written_++ == 0 ? "\n" : ",\n";
        out += json_row_text(row);
        break;
      case ExportFormat::ndjson:
        out += json_row_text(row);
        out += '\n';
        break;
    }
  }

  Services& s_;
  std::shared_ptr<ExportSlot> slot_;
  std::unique_ptr<db::ExportCursor> cursor_;
  db::ExportKind kind_;
  ExportFormat format_;
  std::string manifest_id_;
  crypto::Sha256Stream hash_;
  std::vector<std::string> scratch_;
  long long rows_ = 0;
  long long rows_written_ = 0;
  bool started_ = false;
  bool drained_ = false;
  bool finished_ = false;
  bool failed_ = false;
};

db::ExportManifestStore& manifests_of(Services& s) {
  if (!s.export_manifests || !s.export_database || !s.export_budget)
    throw Error(ErrorKind::unavailable, "exports are not available on this server");
  return *s.export_manifests;
}

asio::awaitable<Response> export_kind(Services& s, RequestContext& ctx, db::ExportKind kind) {
  db::ExportManifestStore& manifests = manifests_of(s);
  ExportPlan plan = plan_from(ctx, kind);
  // Only the projects whose nodes the caller may read.
  plan.request.filter.scope = ctx.scope(cap_read);
  auto slot = std::make_shared<ExportSlot>(*s.export_budget);
  // The cursor first: a selection the database refuses is an error answer, not a cut body.
  auto open = [&s, request = plan.request] {
    return std::make_unique<db::ExportCursor>(*s.export_database, request);
  };
  std::unique_ptr<db::ExportCursor> cursor = co_await s.blocking(std::move(open));
  db::ExportManifest asked;
  asked.kind = std::string(db::to_string(kind));
  asked.format = std::string(to_string(plan.format));
  asked.parameters = plan.parameters;
  asked.requested_by = ctx.actor();
  asked.requested_by_id = ctx.actor_id();
  asked.projects = plan.request.filter.scope;
  auto begin = [&manifests, asked, request_id = ctx.request_id] {
    return manifests.begin(asked, request_id);
  };
  const db::ExportManifest manifest = co_await s.blocking(std::move(begin));
  Response res{http::status::ok, ctx.request.version()};
  switch (plan.format) {
    case ExportFormat::csv:
      res.set(http::field::content_type, "text/csv; charset=utf-8");
      break;
    case ExportFormat::json:
      res.set(http::field::content_type, "application/json");
      break;
    case ExportFormat::ndjson:
      res.set(http::field::content_type, "application/x-ndjson");
      break;
  }
  res.set(http::field::content_disposition, "attachment; filename=\"" + manifest.kind + "-" +
                                                manifest.id + "." + manifest.format + "\"");
  res.set("X-Export-Id", manifest.id);
  res.set(http::field::cache_control, "no-store");
  ctx.body_source = std::make_shared<ExportBody>(s, std::move(slot), std::move(cursor), kind,
                                                 plan.format, manifest.id);
  co_return res;
}

asio::awaitable<Response> manifest(Services& s, RequestContext& ctx) {
  ctx.only_query({});
  db::ExportManifestStore& manifests = manifests_of(s);
  const std::string id = ctx.path_param("id");
  auto work = [&manifests, id] { return manifests.get(id); };
  const auto found = co_await s.blocking(work);
  // A manifest is shown to its requester, and to whoever may audit every project it covered.
  auto covers = [&ctx](const ProjectScope& projects) {
    const ProjectScope mine = ctx.scope(cap_read | cap_audit);
    if (!mine) return true;
    if (!projects) return false;
    return std::all_of(projects->begin(), projects->end(), [&](const std::string& p) {
      return std::find(mine->begin(), mine->end(), p) != mine->end();
    });
  };
  const bool may_read =
      found && ((found->requested_by_id && found->requested_by_id == ctx.actor_id()) ||
                (ctx.permissions().can_anywhere(cap_audit) && covers(found->projects)));
  if (!may_read) throw Error(ErrorKind::not_found, "no export " + id.substr(0, 64));
  if (found->state == "running")
    throw Error(ErrorKind::conflict, "export " + id +
                                         " is still being sent; its manifest is "
                                         "complete when the whole body has been");
  if (found->state == "failed")
    throw Error(ErrorKind::conflict, "export " + id + " was not sent in full and has no manifest");
  co_return ctx.json(http::status::ok, db::to_json(*found));
}

json export_parameters() {
  return json::array(
      {{{"name", "format"},
        {"in", "query"},
        {"required", false},
        {"schema", {{"type", "string"}, {"enum", {"csv", "json", "ndjson"}}, {"default", "csv"}}}},
       {{"name", "as_of"},
        {"in", "query"},
        {"required", false},
        {"description", "an RFC 3339 time: the inventory as it was then"},
        {"schema", {{"type", "string"}, {"format", "date-time"}}}},
       {{"name", "health"},
        {"in", "query"},
        {"required", false},
        {"description", "and every other selector of GET /api/v1/nodes"},
        {"schema", {{"type", "string"}}}}});
}

}  // namespace

void register_export_routes(Api& api) {
  Services& s = api.services();
  api.router().add(
      {http::verb::get,
       "/api/v1/export/assets",
       Access::viewer,
       [&s](RequestContext& ctx) { return export_kind(s, ctx, db::ExportKind::assets); },
       {"Asset records of the selected nodes, owned and cloud, now or as of a time "
        "(answers X-Export-Id)",
        export_parameters(), nullptr, 200, nullptr}});
  api.router().add(
      {http::verb::get,
       "/api/v1/export/firmware",
       Access::viewer,
       [&s](RequestContext& ctx) { return export_kind(s, ctx, db::ExportKind::firmware); },
       {"Firmware records of the selected nodes, now or as of a time (answers "
        "X-Export-Id)",
        export_parameters(), nullptr, 200, nullptr}});
  api.router().add({http::verb::get,
                    "/api/v1/export/manifests/{id}",
                    Access::viewer,
                    [&s](RequestContext& ctx) { return manifest(s, ctx); },
                    {"A completed export's manifest: rows, SHA-256 of the body, parameters, time, "
                     "requester and the audit chain's head",
                     json::array(), nullptr, 200, openapi::ref("ExportManifest")}});
}

}  // namespace ironhold::web
