#pragma once
// Asset and firmware exports: the node list's selection, as it is now or as it was at any time
// (from node_versions and firmware_records), read through a server-side cursor in one snapshot so
// that 100,000 nodes stream in constant memory; and each export's manifest (row count, SHA-256 of
// the body, parameters, requester, the audit chain's head), written when the body is complete.
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/db/audit_store.hpp"
#include "inventory/db/database.hpp"
#include "inventory/model/access.hpp"
#include "inventory/model/node_query.hpp"

namespace ironhold::db {

enum class ExportKind { assets, firmware };
std::string_view to_string(ExportKind kind);

struct ExportRequest {
  ExportKind kind = ExportKind::assets;
  NodeFilter filter;
  std::optional<std::string> as_of;  // RFC 3339; nothing: now
  bool json_rows = false;            // rows as JSON objects (else as CSV fields)
};

// The columns of an export, in order: the CSV header, and the keys of its JSON rows.
std::span<const std::string_view> export_columns(ExportKind kind);

// One export being read: a connection of its own (from the export pool, not the service's), a
// read-only snapshot and a cursor in it. Use from one thread at a time.
class ExportCursor {
 public:
  ExportCursor(Database& exports, const ExportRequest& request);
  ~ExportCursor();
  ExportCursor(const ExportCursor&) = delete;
  ExportCursor& operator=(const ExportCursor&) = delete;

  // Up to `count` rows, fewer only at the end. A row is the columns' text (nothing for NULL), or
  // with json_rows one JSON object's text as its only field.
  using Row = std::vector<std::optional<std::string>>;
  std::vector<Row> fetch(int count);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

struct ExportManifest {
  std::string id;
  std::string kind;
  std::string format;
  nlohmann::json parameters = nlohmann::json::object();
  std::string requested_by;
  std::optional<std::string> requested_by_id;  // the token's id
  std::string requested_at;
  std::string state;  // "running", "complete", "failed"
  std::optional<std::string> completed_at;
  std::optional<long long> rows;
  std::optional<std::string> sha256;
  ChainHead audit_head;  // the chain's head just after the export's own audit entry
  // The projects the export covered (its requester's then); nullopt: every project.
  ProjectScope projects;
};

class ExportManifestStore {
 public:
  explicit ExportManifestStore(Database& db) : db_(db) {}
  // Records the export as running and audits it, in one transaction; the manifest then holds the
  // chain's head including that entry.
  ExportManifest begin(const ExportManifest& manifest,
                       const std::optional<std::string>& request_id);
  void complete(const std::string& id, long long rows, const std::string& sha256);
  void fail(const std::string& id, const std::string& why);
  std::optional<ExportManifest> get(const std::string& id);

 private:
  Database& db_;
};

nlohmann::json to_json(const ExportManifest& manifest);

}  // namespace ironhold::db
