#include "app/server/backup_archive.hpp"

#include <algorithm>
#include <cctype>

#include "app/server/pg_tools.hpp"
#include "inventory/error.hpp"

namespace ironhold::app {
namespace fs = std::filesystem;
namespace {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// An identifier as pg_dump writes one: "quoted" (a doubled quote inside) or a plain word. Reads
// from `at`, which it moves past the identifier; empty when there is none.
std::string read_identifier(std::string_view text, size_t& at) {
  std::string name;
  if (at < text.size() && text[at] == '"') {
    for (++at; at < text.size(); ++at) {
      if (text[at] != '"') {
        name += text[at];
      } else if (at + 1 < text.size() && text[at + 1] == '"') {
        name += '"';
        ++at;
      } else {
        ++at;
        break;
      }
    }
    return name;
  }
  while (at < text.size() &&
         (std::isalnum(static_cast<unsigned char>(text[at])) || text[at] == '_' || text[at] == '$'))
    name += text[at++];
  return name;
}

std::string unquoted_name(std::string_view text) {
  size_t at = 0;
  return read_identifier(text, at);
}

// A field of COPY's text format: backslash escapes as PostgreSQL writes them.
std::string copy_unescape(std::string_view field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] != '\\' || i + 1 >= field.size()) {
      out += field[i];
      continue;
    }
    const char c = field[++i];
    switch (c) {
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'v':
        out += '\v';
        break;
      default:
        if (c >= '0' && c <= '7') {
          int value = c - '0';
          for (int n = 0;
               n < 2 && i + 1 < field.size() && field[i + 1] >= '0' && field[i + 1] <= '7'; ++n)
            value = value * 8 + (field[++i] - '0');
          out += static_cast<char>(value);
        } else {
          out += c;  // \\ and any other escaped character stand for themselves
        }
    }
  }
  return out;
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t end = text.find(separator, start);
    parts.emplace_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

std::string trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return std::string(text);
}

// The role a privilege statement names after `keyword` (" TO ", " FROM ", " FOR ROLE "), if any.
void add_role_after(std::string_view line, std::string_view keyword, bool last,
                    std::vector<std::string>& roles) {
  const size_t at = last ? line.rfind(keyword) : line.find(keyword);
  if (at == std::string_view::npos) return;
  size_t from = at + keyword.size();
  const bool quoted = from < line.size() && line[from] == '"';
  std::string role = read_identifier(line, from);
  if (role.empty() || (!quoted && role == "PUBLIC")) return;
  if (std::find(roles.begin(), roles.end(), role) == roles.end()) roles.push_back(role);
}

Error not_restorable(const fs::path& file, const std::string& why) {
  return invalid(file.string() + " " + why + "; no database was changed");
}

}  // namespace

std::optional<size_t> CopyTable::column(std::string_view name) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return i;
  return std::nullopt;
}

std::map<std::string, CopyTable> parse_copy_blocks(std::string_view sql) {
  std::map<std::string, CopyTable> tables;
  CopyTable* current = nullptr;
  for (std::string_view line : lines_of(sql)) {
    if (current) {
      if (line == "\\.") {
        current = nullptr;
        continue;
      }
      std::vector<std::optional<std::string>> row;
      for (const auto& field : split(line, '\t'))
        row.push_back(field == "\\N" ? std::nullopt : std::optional(copy_unescape(field)));
      current->rows.push_back(std::move(row));
      continue;
    }
    // COPY public.audit_chain (singleton, key_check, ...) FROM stdin;
    if (!line.starts_with("COPY ") || !line.ends_with(" FROM stdin;")) continue;
    const size_t open = line.find(" (");
    const size_t close = line.rfind(") FROM stdin;");
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) continue;
    std::string_view qualified = line.substr(5, open - 5);
    // The table's name is what follows the schema's; a quoted name may hold a dot itself.
    size_t at = 0;
    std::string name = read_identifier(qualified, at);
    while (at < qualified.size() && qualified[at] == '.') {
      ++at;
      name = read_identifier(qualified, at);
    }
    CopyTable& table = tables[name];
    table = CopyTable{};
    for (const auto& column : split(line.substr(open + 2, close - open - 2), ','))
      table.columns.push_back(unquoted_name(trimmed(column)));
    current = &table;
  }
  return tables;
}

std::vector<std::string> roles_in_acl_sql(std::string_view sql) {
  std::vector<std::string> roles;
  for (std::string_view line : lines_of(sql)) {
    if (line.starts_with("SET SESSION AUTHORIZATION ")) {
      add_role_after(line, "AUTHORIZATION ", false, roles);
      continue;
    }
    const bool defaults = line.starts_with("ALTER DEFAULT PRIVILEGES ");
    if (defaults) add_role_after(line, " FOR ROLE ", false, roles);
    if (line.starts_with("GRANT ") || defaults) add_role_after(line, " TO ", true, roles);
    if (line.starts_with("REVOKE ") || defaults) add_role_after(line, " FROM ", true, roles);
  }
  return roles;
}

ArchiveFacts read_archive(const fs::path& pg_restore, const fs::path& file) {
  const std::string path = fs::absolute(file).string();
  if (auto listed = run_pg_tool(pg_restore, {"--list", path}); !listed.ok())
    throw not_restorable(file,
                         "cannot be read as a backup: it is damaged, cut short, or not a "
                         "backup at all (" +
                             tool_said(listed) + ")");
  // Every byte read back: a file cut short fails here, before any database is touched.
  if (auto read = run_pg_tool(pg_restore, {"--file=/dev/null", path}); !read.ok())
    throw not_restorable(file, "is incomplete or damaged (" + tool_said(read) + ")");
  const auto schema = run_pg_tool(pg_restore, {"--schema-only", "--file=-", path});
  if (!schema.ok())
    throw not_restorable(file, "is incomplete or damaged (" + tool_said(schema) + ")");
  // The tables with sealed credentials are those of db::reseal_secrets, less tasks.
  const auto data = run_pg_tool(
      pg_restore, {"--data-only", "--schema=public", "--table=schema_migrations",
                   "--table=audit_chain", "--table=node_credentials", "--table=cloud_accounts",
                   "--table=alert_receivers", "--file=-", path});
  if (!data.ok()) throw not_restorable(file, "is incomplete or damaged (" + tool_said(data) + ")");

  ArchiveFacts facts;
  facts.acl_roles = roles_in_acl_sql(schema.out);
  const auto tables = parse_copy_blocks(data.out);
  const auto ledger = tables.find("schema_migrations");
  if (ledger == tables.end() || ledger->second.rows.empty())
    throw not_restorable(file, "is not a backup of an Ironhold database (it records no migration)");
  const auto name = ledger->second.column("name");
  const auto checksum = ledger->second.column("checksum");
  if (!name || !checksum)
    throw not_restorable(file,
                         "is not a backup of an Ironhold database (schema_migrations has "
                         "no name and checksum)");
  for (const auto& row : ledger->second.rows)
    if (*name < row.size() && *checksum < row.size() && row[*name] && row[*checksum])
      facts.migrations.push_back({*row[*name], *row[*checksum]});
  std::sort(facts.migrations.begin(), facts.migrations.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  if (const auto chain = tables.find("audit_chain");
      chain != tables.end() && !chain->second.rows.empty()) {
    const auto key_check = chain->second.column("key_check");
    const auto& row = chain->second.rows.front();
    // bytea in its hex output form: \x0123...
    if (key_check && *key_check < row.size() && row[*key_check] &&
        row[*key_check]->starts_with("\\x"))
      facts.audit_key_check_hex = row[*key_check]->substr(2);
  }
  for (const char* sealed_table : {"node_credentials", "cloud_accounts", "alert_receivers"}) {
    const auto table = tables.find(sealed_table);
    if (table == tables.end()) continue;
    const auto key_id = table->second.column("key_id");
    const auto sealed = table->second.column("sealed");
    if (!key_id || !sealed) continue;
    for (const auto& row : table->second.rows)
      if (*key_id < row.size() && *sealed < row.size() && row[*key_id] && row[*sealed])
        ++facts.sealed_under[*row[*key_id]];
  }
  return facts;
}

}  // namespace ironhold::app
