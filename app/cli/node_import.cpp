// `ironhold node import`: enrolls nodes from a CSV file, one POST per row, reporting every row.
#include <cctype>
#include <cstddef>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <set>

#include "app/cli/client_options.hpp"
#include "app/cli/csv.hpp"
#include "app/cli/http_client.hpp"
#include "app/cli/node_commands.hpp"
#include "app/cli/node_internal.hpp"
#include "app/cli/table.hpp"
#include "inventory/error.hpp"

namespace ironhold::cli::node {
namespace {

using detail::parse_int;
using detail::split_pair;
using detail::trim;

}  // namespace

ImportMapper::ImportMapper(const std::vector<std::string>& header) {
  static const std::set<std::string, std::less<>> kOptionColumns = {
      "tls", "ca_bundle", "cipher_suites", "privilege", "kg"};
  std::set<std::string> seen;
  bool has_name = false;
  for (std::size_t i = 0; i < header.size(); ++i) {
    const std::string raw = trim(header[i]);
    std::string lower = raw;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    Column col{Kind::field, lower};
    if (lower.starts_with("tag:")) {
      col = {Kind::tag, trim(std::string_view(raw).substr(4))};  // tag keys keep their case
      if (col.key.empty()) throw invalid("column \"" + raw + "\" needs a tag key after \"tag:\"");
    } else if (lower == "name" || lower == "driver" || lower == "endpoint") {
      col.kind = Kind::field;
      has_name = has_name || lower == "name";
      if (lower == "name") name_column_ = i;
    } else if (lower == "username" || lower == "password") {
      col.kind = Kind::credential;
    } else if (lower == "site" || lower == "rack") {
      col.kind = Kind::location;
    } else if (lower == "unit") {
      col.kind = Kind::unit;
    } else if (lower == "tags") {
      col.kind = Kind::tags;
    } else if (lower == "options") {
      col.kind = Kind::options;
    } else if (kOptionColumns.contains(lower)) {
      col.kind = Kind::option;
    } else {
      throw invalid("unknown column \"" + raw + "\" (columns: name, driver, endpoint, username, " +
                    "password, site, rack, unit, tags, options, tls, ca_bundle, cipher_suites, " +
                    "privilege, kg, tag:KEY)");
    }
    const std::string identity = (col.kind == Kind::tag ? "tag:" : "") + col.key;
    if (!seen.insert(identity).second) throw invalid("column \"" + raw + "\" appears twice");
    columns_.push_back(std::move(col));
  }
  if (!has_name) throw invalid("the header has no \"name\" column");
}

std::string ImportMapper::name(const std::vector<std::string>& row) const {
  return name_column_ < row.size() ? trim(row[name_column_]) : std::string();
}

nlohmann::json ImportMapper::body(const std::vector<std::string>& row) const {
  using nlohmann::json;
  json body = json::object(), tags = json::object(), options = json::object();
  json tag_columns = json::object(), option_columns = json::object();
  for (std::size_t i = 0; i < columns_.size() && i < row.size(); ++i) {
    const Column& col = columns_[i];
    // Passwords are taken verbatim: leading or trailing spaces may be part of one.
    const std::string value = col.key == "password" ? row[i] : trim(row[i]);
    if (value.empty()) continue;
    switch (col.kind) {
      case Kind::field:
        body[col.key] = value;
        break;
      case Kind::credential:
        body["credentials"][col.key] = value;
        break;
      case Kind::location:
        body["location"][col.key] = value;
        break;
      case Kind::unit:
        body["location"]["unit"] = parse_int(value, "column unit");
        break;
      case Kind::tag:
        tag_columns[col.key] = value;
        break;
      case Kind::option:
        option_columns[col.key] = option_value(col.key, value);
        break;
      case Kind::tags: {
        std::size_t start = 0;
        while (start <= value.size()) {
          const auto end = value.find(';', start);
          const auto item = std::string_view(value).substr(start, end - start);
          if (!trim(item).empty()) {
            auto [k, v] = split_pair(item, '=', "column tags");
            tags[k] = v;
          }
          if (end == std::string::npos) break;
          start = end + 1;
        }
        break;
      }
      case Kind::options: {
        options = json::parse(value, nullptr, /*allow_exceptions=*/false);
        if (!options.is_object())
          throw invalid("column options must hold a JSON object, like {\"tls\":\"pin\"}");
        break;
      }
    }
  }
  // The dedicated columns win over the same keys in the tags/options catch-all columns.
  tags.update(tag_columns);
  options.update(option_columns);
  if (!tags.empty()) body["tags"] = tags;
  if (!options.empty()) body["options"] = options;
  return body;
}

namespace detail {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxFile = 64u << 20;

std::string read_input(const std::string& path) {
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), {});
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw UsageError("cannot open " + path);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  if (text.size() > kMaxFile) throw invalid(path + " is larger than 64 MiB");
  return text;
}

}  // namespace

int cmd_import(const Args& a) {
  const std::string path = one_positional(a, "FILE");
  const OutputFormat format = output_format(a);
  // Everything about the file is checked before the first request.
  const CsvDocument doc = read_csv(read_input(path), path == "-" ? "stdin" : path);
  const ImportMapper mapper(doc.header);
  HttpClient client = make_client(a);

  json report = json::array();
  std::size_t created = 0;
  std::optional<std::string> stop;  // set when no later row can succeed either
  for (std::size_t i = 0; i < doc.rows.size(); ++i) {
    const auto& fields = doc.rows[i].fields;
    json entry = {{"row", i + 2}, {"name", mapper.name(fields)}};  // the header is row 1
    try {
      if (stop) throw Error(ErrorKind::unavailable, "not sent: " + *stop);
      const json created_node = client.post(kNodes, mapper.body(fields));
      entry["status"] = "created";
      entry["id"] = text(created_node, "id");
      ++created;
    } catch (const TransportError& e) {
      stop = e.what();
      entry["status"] = "failed";
      entry["error"] = e.what();
    } catch (const ApiError& e) {
      // A bad token or a role too low fails every row alike: stop asking.
      if (e.status() == 401 || e.status() == 403) stop = e.what();
      entry["status"] = "failed";
      entry["error"] = e.what();
    } catch (const Error& e) {
      entry["status"] = "failed";
      entry["error"] = e.what();
    }
    if (format == OutputFormat::table) {
      const std::string name = entry["name"].get<std::string>();
      std::cout << "row " << entry["row"].get<std::size_t>()
                << (name.empty() ? "" : " " + terminal_safe(name)) << ": "
                << (entry["status"] == "created"
                        ? "created " + entry["id"].get<std::string>()
                        : "failed: " + terminal_safe(entry["error"].get<std::string>()))
                << std::endl;  // flushed per row: a long import shows progress
    }
    report.push_back(std::move(entry));
  }
  const std::size_t failed = doc.rows.size() - created;
  if (format == OutputFormat::json)
    print_json(report);
  else
    std::cout << created << " created, " << failed << " failed\n";
  return failed == 0 ? kExitOk : kExitFailure;
}

}  // namespace detail
}  // namespace ironhold::cli::node
