#include "app/cli/node_commands.hpp"

#include <cctype>
#include <charconv>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>

#include "app/cli/client_options.hpp"
#include "app/cli/csv.hpp"
#include "app/cli/http_client.hpp"
#include "app/cli/table.hpp"
#include "inventory/error.hpp"

namespace ironhold::cli {
namespace node {
namespace {

using nlohmann::json;

constexpr std::string_view kNodes = "/api/v1/nodes";
constexpr std::size_t kMaxFile = 64u << 20;

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  return std::string(s.substr(b, s.find_last_not_of(" \t") - b + 1));
}

// Splits "key=value" at the first separator; throws with `what` naming the flag or column.
std::pair<std::string, std::string> split_pair(std::string_view text, char sep,
                                               const std::string& what) {
  const auto at = text.find(sep);
  std::string key = trim(text.substr(0, at));
  if (at == std::string_view::npos || key.empty())
    throw invalid(what + " takes KEY" + sep + "VALUE, not \"" + std::string(text) + "\"");
  return {std::move(key), trim(text.substr(at + 1))};
}

long long parse_int(std::string_view text, const std::string& what) {
  const std::string t = trim(text);
  long long v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc{} || end != t.data() + t.size())
    throw invalid(what + " must be a whole number, not \"" + std::string(text) + "\"");
  return v;
}

// A string member, a number or bool as text, or "" for null and missing members.
std::string text(const json& obj, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return {};
  if (it->is_string()) return it->get<std::string>();
  if (it->is_boolean()) return it->get<bool>() ? "yes" : "no";
  return it->dump();
}

// A boolean member; anything else (missing, null, a string from a confused server) is false.
bool is_true(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_boolean() && it->get<bool>();
}

std::string node_path(std::string_view node) {
  return std::string(kNodes) + "/" + url_encode(node);
}

std::string one_positional(const Args& args, const char* what) {
  if (args.positional().size() != 1)
    throw UsageError("expected exactly one " + std::string(what) + " argument, got " +
                     std::to_string(args.positional().size()));
  return args.positional().front();
}

std::optional<std::string> read_password(const Args& args) {
  const bool from_stdin = args.flag("password-stdin");
  if (from_stdin && args.given("password"))
    throw UsageError("give --password or --password-stdin, not both");
  if (!from_stdin) return args.get("password");
  std::string line;
  if (!std::getline(std::cin, line)) throw UsageError("--password-stdin: nothing on stdin");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

// --option KEY=VALUE; ca_bundle=@FILE reads the PEM from a file, since it spans many lines.
void add_options(json& options, const std::vector<std::string>& specs) {
  for (const auto& spec : specs) {
    auto [key, value] = split_pair(spec, '=', "--option");
    if (key == "ca_bundle" && value.starts_with("@")) {
      std::ifstream in(value.substr(1), std::ios::binary);
      if (!in) throw UsageError("--option ca_bundle: cannot read " + value.substr(1));
      value.assign(std::istreambuf_iterator<char>(in), {});
    }
    options[key] = option_value(key, value);
  }
}

std::string relative_time(const std::string& stamp, SystemTime now) {
  if (stamp.empty()) return "never";
  auto t = parse_rfc3339(stamp);
  if (!t) return stamp;
  const auto secs = std::chrono::duration_cast<std::chrono::seconds>(now - *t).count();
  if (secs < 0) return "just now";
  if (secs < 60) return std::to_string(secs) + "s ago";
  if (secs < 3600) return std::to_string(secs / 60) + "m ago";
  if (secs < 48 * 3600) return std::to_string(secs / 3600) + "h ago";
  return std::to_string(secs / 86400) + "d ago";
}

std::string location_text(const json& node, std::string_view sep) {
  std::string out;
  if (auto loc = node.find("location"); loc != node.end() && loc->is_object()) {
    for (const char* key : {"site", "rack", "unit"}) {
      const std::string v = text(*loc, key);
      if (v.empty()) continue;
      if (!out.empty()) out += sep;
      out += v;
    }
  }
  return out;
}

std::string map_text(const json& node, const char* key) {
  std::string out;
  auto m = node.find(key);
  if (m == node.end() || !m->is_object()) return out;
  for (const auto& [k, v] : m->items()) {
    if (!out.empty()) out += ", ";
    if (k == "ca_bundle" && v.is_string()) {
      out += k + "=(PEM, " + std::to_string(v.get<std::string>().size()) + " bytes)";
    } else if (v.is_array()) {
      std::string list;
      for (const auto& e : v)
        list += (list.empty() ? "" : ",") + (e.is_string() ? e.get<std::string>() : e.dump());
      out += k + "=" + list;
    } else {
      out += k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
    }
  }
  return out;
}

}  // namespace

json option_value(std::string_view key, std::string_view value) {
  if (key != "cipher_suites") return std::string(value);
  json suites = json::array();
  std::size_t start = 0;
  while (start <= value.size()) {
    const auto end = value.find_first_of(",;", start);
    const auto item = value.substr(start, end == std::string_view::npos ? end : end - start);
    if (!trim(item).empty()) suites.push_back(parse_int(item, "each cipher suite"));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return suites;
}

std::string list_query(const Args& args) {
  std::string q;
  auto add = [&q](std::string_view key, const std::string& value) {
    q += (q.empty() ? "?" : "&") + std::string(key) + "=" + url_encode(value);
  };
  for (const char* name : {"source", "driver", "health", "lifecycle", "site", "rack", "sort"})
    if (auto v = args.get(name)) add(name, *v);
  if (auto v = args.get("power-state")) add("power_state", *v);
  if (auto v = args.get("search")) add("q", *v);
  if (auto m = args.get("maintenance")) {
    if (*m == "true" || *m == "on" || *m == "yes")
      add("maintenance", "true");
    else if (*m == "false" || *m == "off" || *m == "no")
      add("maintenance", "false");
    else
      throw UsageError("--maintenance must be true or false, not \"" + *m + "\"");
  }
  for (std::string tag : args.all("tag")) {
    // The API filters on key:value; key=value (as enroll spells tags) is accepted too.
    if (tag.find(':') == std::string::npos) {
      if (auto eq = tag.find('='); eq != std::string::npos)
        tag[eq] = ':';
      else
        throw UsageError("--tag takes KEY:VALUE, not \"" + tag + "\"");
    }
    add("tag", tag);
  }
  if (auto limit = args.get("limit")) {
    const long long n = parse_int(*limit, "--limit");
    if (n < 1) throw UsageError("--limit must be at least 1");
    add("limit", std::to_string(std::min<long long>(n, 1000)));
  }
  return q;
}

json enroll_body(const Args& args, const std::optional<std::string>& password) {
  json body = {{"name", one_positional(args, "NAME")}};
  for (const char* key : {"driver", "endpoint"}) {
    auto v = args.get(key);
    if (!v || v->empty()) throw UsageError(std::string("--") + key + " is required");
    body[key] = *v;
  }
  if (auto u = args.get("username")) body["credentials"]["username"] = *u;
  if (password) body["credentials"]["password"] = *password;
  for (const char* key : {"site", "rack"})
    if (auto v = args.get(key)) body["location"][key] = *v;
  if (auto unit = args.get("unit")) body["location"]["unit"] = parse_int(*unit, "--unit");
  for (const auto& spec : args.all("tag")) {
    auto [k, v] = split_pair(spec, '=', "--tag");
    body["tags"][k] = v;
  }
  json options = json::object();
  add_options(options, args.all("option"));
  if (!options.empty()) body["options"] = options;
  return body;
}

json patch_body(const Args& args, const std::optional<std::string>& password) {
  json body = json::object();
  for (const char* key : {"name", "driver", "endpoint"})
    if (auto v = args.get(key)) body[key] = *v;
  // Credentials are replaced as a whole, so a lone username or password would drop the other.
  const auto username = args.get("username");
  if (username.has_value() != password.has_value())
    throw UsageError(
        "--username and --password (or --password-stdin) go together: credentials "
        "are replaced as a whole");
  if (username) body["credentials"] = {{"username", *username}, {"password", *password}};
  // Location, tags and options merge on the server; an empty value (or --untag) removes a key.
  for (const char* key : {"site", "rack"})
    if (auto v = args.get(key)) body["location"][key] = v->empty() ? json(nullptr) : json(*v);
  if (auto unit = args.get("unit"))
    body["location"]["unit"] = unit->empty() ? json(nullptr) : json(parse_int(*unit, "--unit"));
  for (const auto& spec : args.all("tag")) {
    auto [k, v] = split_pair(spec, '=', "--tag");
    body["tags"][k] = v;
  }
  for (const auto& key : args.all("untag")) body["tags"][key] = nullptr;
  json options = json::object();
  add_options(options, args.all("option"));
  for (const auto& key : args.all("unset-option")) options[key] = nullptr;
  if (!options.empty()) body["options"] = options;
  if (auto m = args.get("maintenance")) {
    if (*m == "on" || *m == "true")
      body["maintenance"] = true;
    else if (*m == "off" || *m == "false")
      body["maintenance"] = false;
    else
      throw UsageError("--maintenance must be on or off, not \"" + *m + "\"");
  }
  if (auto r = args.get("reason")) body["maintenance_reason"] = *r;
  if (body.empty()) throw UsageError("nothing to change: give at least one option to set");
  return body;
}

std::vector<std::string> list_row(const json& n, SystemTime now) {
  std::string lifecycle = text(n, "lifecycle");
  if (is_true(n, "maintenance")) lifecycle += " (maint)";
  return {text(n, "name"),
          text(n, "health"),
          text(n, "power_state"),
          text(n, "driver"),
          text(n, "endpoint"),
          location_text(n, "/"),
          lifecycle,
          relative_time(text(n, "last_seen"), now)};
}

std::string show_text(const json& n) {
  std::string maintenance = is_true(n, "maintenance") ? "yes" : "no";
  if (const auto reason = text(n, "maintenance_reason"); !reason.empty() && maintenance == "yes")
    maintenance += " (" + reason + ")";
  return render_fields({
      {"Name", text(n, "name")},
      {"ID", text(n, "id")},
      {"Source", text(n, "source")},
      {"Driver", text(n, "driver")},
      {"Endpoint", text(n, "endpoint")},
      {"Location", location_text(n, " / ")},
      {"Tags", map_text(n, "tags")},
      {"Options", map_text(n, "options")},
      {"Manufacturer", text(n, "manufacturer")},
      {"Model", text(n, "model")},
      {"Serial", text(n, "serial")},
      {"Asset tag", text(n, "asset_tag")},
      {"Power", text(n, "power_state")},
      {"Health", text(n, "health")},
      {"Reachable", text(n, "reachable")},
      {"Last error", text(n, "last_error")},
      {"Lifecycle", text(n, "lifecycle")},
      {"Maintenance", maintenance},
      {"Provider ID", text(n, "provider_id")},
      {"Credentials", is_true(n, "credentials_set") ? "set" : "not set"},
      {"Last seen", text(n, "last_seen")},
      {"Created", text(n, "created_at")},
      {"Updated", text(n, "updated_at")},
      {"Retired", text(n, "retired_at")},
  });
}

}  // namespace node
}  // namespace ironhold::cli

// ---- import ----------------------------------------------------------------------------------

namespace ironhold::cli::node {

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

}  // namespace ironhold::cli::node

// ---- commands --------------------------------------------------------------------------------

namespace ironhold::cli {
namespace {

using nlohmann::json;
using node::kMaxFile;
using node::node_path;
using node::one_positional;
using node::read_password;

// value_name "X" takes a value, "X..." may be given several times, "" makes a boolean flag.
Option opt(std::string name, std::string value_name, std::string help) {
  Option o{.name = std::move(name), .help = std::move(help)};
  o.takes_value = !value_name.empty();
  o.repeatable = value_name.ends_with("...");
  if (o.repeatable) value_name.resize(value_name.size() - 3);
  o.value_name = std::move(value_name);
  return o;
}

std::vector<Option> list_options() {
  std::vector<Option> o = {
      opt("source", "SOURCE", "Only nodes from this source: bmc or cloud."),
      opt("driver", "DRIVER", "Only nodes with this driver."),
      opt("health", "HEALTH", "Only this health: ok, warning, critical or unknown."),
      opt("power-state", "STATE", "Only this power state: on, off, transitioning or unknown."),
      opt("lifecycle", "STATE", "Only this lifecycle state (available, deployed, ...)."),
      opt("maintenance", "BOOL", "Only nodes in (true) or out of (false) maintenance."),
      opt("tag", "KEY:VALUE...", "Only nodes with this tag."),
      opt("site", "SITE", "Only nodes at this site."),
      opt("rack", "RACK", "Only nodes in this rack."),
      opt("search", "TEXT", "Only nodes whose name contains TEXT."),
      opt("sort", "FIELD", "name, health, power_state, last_seen or created_at; - reverses."),
      opt("limit", "N", "Show at most N nodes (default: all of them, fetched page by page)."),
  };
  o[9].short_name = 'q';
  return o;
}

std::vector<Option> enroll_options() {
  return {
      opt("driver", "DRIVER", "Driver: redfish, ipmi or auto (required)."),
      opt("endpoint", "URL",
          "BMC address (required): https://host[:port] for redfish, ipmi://host[:port] for "
          "ipmi; a bare host only with --driver auto."),
      opt("username", "USER", "BMC user name."),
      opt("password", "PASSWORD", "BMC password (other users see it in ps: prefer stdin)."),
      opt("password-stdin", "", "Read the BMC password from the first line of stdin."),
      opt("site", "SITE", "Site (data centre)."),
      opt("rack", "RACK", "Rack."),
      opt("unit", "N", "Rack unit."),
      opt("tag", "KEY=VALUE...", "Tag the node."),
      opt("option", "KEY=VALUE...",
          "Driver option: tls=pin|ca|insecure, ca_bundle=@FILE.pem, cipher_suites=17,3, "
          "privilege=operator|admin, kg=HEX."),
  };
}

std::vector<Option> set_options() {
  return {
      opt("name", "NAME", "Rename the node."),
      opt("driver", "DRIVER", "New driver (with --endpoint when the protocol changes)."),
      opt("endpoint", "URL", "New BMC address (as for enroll)."),
      opt("username", "USER", "BMC user name (with a password: credentials are replaced)."),
      opt("password", "PASSWORD", "BMC password (other users see it in ps: prefer stdin)."),
      opt("password-stdin", "", "Read the BMC password from the first line of stdin."),
      opt("site", "SITE", "Site; an empty value removes it."),
      opt("rack", "RACK", "Rack; an empty value removes it."),
      opt("unit", "N", "Rack unit; an empty value removes it."),
      opt("tag", "KEY=VALUE...", "Add or change a tag."),
      opt("untag", "KEY...", "Remove a tag."),
      opt("option", "KEY=VALUE...", "Add or change a driver option (as for enroll)."),
      opt("unset-option", "KEY...", "Remove a driver option."),
      opt("maintenance", "on|off", "Put the node in or out of maintenance."),
      opt("reason", "TEXT", "Why the node is in maintenance."),
  };
}

std::vector<Option> rm_options() {
  return {opt("purge", "", "Delete the node and its history instead of retiring it (admin).")};
}
std::vector<Option> no_options() { return {}; }

// Flags are parsed by pure functions that throw ironhold::Error; on the command line those are
// usage mistakes (exit 2), not failures.
template <class F>
auto from_flags(F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
}

void print_node(const Args& a, const json& node) {
  if (output_format(a) == OutputFormat::json)
    print_json(node);
  else
    std::cout << node::show_text(node);
}

std::vector<json> fetch_all(HttpClient& client, const std::string& query,
                            std::optional<std::size_t> want) {
  std::vector<json> items;
  std::set<std::string> cursors;
  std::string target = std::string(node::kNodes) + query;
  while (true) {
    const json page = client.get(target);
    if (!page.is_object() || !page.contains("items") || !page["items"].is_array())
      throw Error(ErrorKind::internal, "the server's node list has no \"items\" array");
    for (const auto& item : page["items"]) {
      if (want && items.size() >= *want) return items;
      items.push_back(item);
    }
    if (want && items.size() >= *want) return items;
    const auto next = page.find("next");
    if (next == page.end() || !next->is_string() || next->get<std::string>().empty()) return items;
    // A server bug that hands back the same cursor would otherwise loop for ever.
    if (!cursors.insert(next->get<std::string>()).second)
      throw Error(ErrorKind::internal, "the server returned the same page cursor twice");
    target = std::string(node::kNodes) + "?cursor=" + url_encode(next->get<std::string>());
  }
}

int cmd_list(const Args& a) {
  const OutputFormat format = output_format(a);
  const std::string query = from_flags([&] { return node::list_query(a); });
  std::optional<std::size_t> want;
  if (auto limit = a.get("limit"))
    want = static_cast<std::size_t>(node::parse_int(*limit, "--limit"));
  if (!a.positional().empty()) throw UsageError("node list takes no arguments");
  HttpClient client = make_client(a);
  const std::vector<json> items = fetch_all(client, query, want);
  if (format == OutputFormat::json) {
    print_json(json(items));
    return kExitOk;
  }
  if (items.empty()) {
    std::cerr << "no nodes found\n";
    return kExitOk;
  }
  Table table(
      {"NAME", "HEALTH", "POWER", "DRIVER", "ENDPOINT", "LOCATION", "LIFECYCLE", "LAST SEEN"});
  const auto now = std::chrono::system_clock::now();
  for (const auto& n : items) table.add_row(node::list_row(n, now));
  std::cout << table.render();
  return kExitOk;
}

int cmd_show(const Args& a) {
  const std::string name = one_positional(a, "NODE");
  output_format(a);
  HttpClient client = make_client(a);
  print_node(a, client.get(node_path(name)));
  return kExitOk;
}

int cmd_enroll(const Args& a) {
  output_format(a);
  const auto password = read_password(a);
  const json body = from_flags([&] { return node::enroll_body(a, password); });
  HttpClient client = make_client(a);
  print_node(a, client.post(node::kNodes, body));
  return kExitOk;
}

int cmd_set(const Args& a) {
  const std::string name = one_positional(a, "NODE");
  output_format(a);
  const auto password = read_password(a);
  const json body = from_flags([&] { return node::patch_body(a, password); });
  HttpClient client = make_client(a);
  print_node(a, client.patch(node_path(name), body));
  return kExitOk;
}

int cmd_rm(const Args& a) {
  const std::string name = one_positional(a, "NODE");
  const OutputFormat format = output_format(a);
  const bool purge = a.flag("purge");
  HttpClient client = make_client(a);
  client.del(node_path(name) + (purge ? "?purge=true" : ""));
  const char* result = purge ? "purged" : "retired";
  if (format == OutputFormat::json)
    print_json({{"node", name}, {"result", result}});
  else
    std::cout << result << ' ' << terminal_safe(name) << '\n';
  return kExitOk;
}

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

int cmd_import(const Args& a) {
  const std::string path = one_positional(a, "FILE");
  const OutputFormat format = output_format(a);
  // Everything about the file is checked before the first request.
  const CsvDocument doc = read_csv(read_input(path), path == "-" ? "stdin" : path);
  const node::ImportMapper mapper(doc.header);
  HttpClient client = make_client(a);

  json report = json::array();
  std::size_t created = 0;
  std::optional<std::string> stop;  // set when no later row can succeed either
  for (std::size_t i = 0; i < doc.rows.size(); ++i) {
    const auto& fields = doc.rows[i].fields;
    json entry = {{"row", i + 2}, {"name", mapper.name(fields)}};  // the header is row 1
    try {
      if (stop) throw Error(ErrorKind::unavailable, "not sent: " + *stop);
      const json created_node = client.post(node::kNodes, mapper.body(fields));
      entry["status"] = "created";
      entry["id"] = node::text(created_node, "id");
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

struct Command {
  std::string_view name;
  std::string_view usage;
  std::string_view summary;
  std::vector<Option> (*options)();
  int (*run)(const Args&);
};

constexpr Command kCommands[] = {
    {"list", "", "List nodes, filtered and sorted.", &list_options, &cmd_list},
    {"show", "NODE", "Show one node (by name or id).", &no_options, &cmd_show},
    {"enroll", "NAME", "Enroll an owned server by its BMC.", &enroll_options, &cmd_enroll},
    {"set", "NODE", "Change a node's settings, tags, options or maintenance.", &set_options,
     &cmd_set},
    {"rm", "NODE", "Retire a node (or, with --purge, delete it).", &rm_options, &cmd_rm},
    {"import", "FILE.csv|-",
     "Enroll nodes from a CSV file (- for stdin). Its header row names the columns: name, "
     "driver, endpoint, username, password, site, rack, unit, tags (k=v;k2=v2), options (a JSON "
     "object), tls, ca_bundle, cipher_suites (17;3), privilege, kg and tag:KEY. Empty cells are "
     "left out; every row is reported, and the exit status is 1 if any row failed.",
     &no_options, &cmd_import},
};

const Command* find_command(std::string_view name) {
  for (const auto& c : kCommands)
    if (c.name == name) return &c;
  return nullptr;
}

std::string node_help() {
  std::string out =
      "Usage: ironhold node COMMAND [OPTIONS]\n\nManage nodes: owned servers (through their "
      "BMCs) and cloud instances.\n\nCommands:\n";
  for (const auto& c : kCommands) {
    out += "  " + std::string(c.name) + std::string(8 - c.name.size(), ' ');
    out += std::string(c.summary.substr(0, c.summary.find(". ") == std::string_view::npos
                                               ? c.summary.size()
                                               : c.summary.find(". ") + 1)) +
           '\n';
  }
  return out + "\nRun 'ironhold node COMMAND --help' for a command's options.\n";
}

}  // namespace

Args node::make_args(std::string_view subcommand) {
  const Command* c = find_command(subcommand);
  if (!c) throw UsageError("unknown node command \"" + std::string(subcommand) + "\"");
  return Args("ironhold node " + std::string(c->name), std::string(c->usage),
              std::string(c->summary), with_client_options(c->options()));
}

int run_node_command(std::span<const std::string> argv) {
  if (argv.empty()) {
    std::cerr << node_help();
    return kExitUsage;
  }
  if (argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help") {
    std::cout << node_help();
    return kExitOk;
  }
  const Command* c = find_command(argv[0]);
  if (!c) {
    std::cerr << "error: unknown node command \"" << terminal_safe(argv[0])
              << "\"\nrun 'ironhold node --help' for the commands\n";
    return kExitUsage;
  }
  const std::string command = "ironhold node " + std::string(c->name);
  return run_guarded(command, [&] {
    Args args = node::make_args(c->name);
    args.parse(argv.subspan(1));
    if (args.help_requested()) {
      std::cout << args.help_text();
      return kExitOk;
    }
    return c->run(args);
  });
}

}  // namespace ironhold::cli
