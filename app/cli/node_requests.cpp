// `ironhold node`'s pure pieces: request bodies and queries built from flags, and the table row
// and detail view of a node. Also defines the helpers node_internal.hpp shares with the commands.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <fstream>
#include <iterator>

#include "app/cli/http_client.hpp"
#include "app/cli/node_commands.hpp"
#include "app/cli/node_internal.hpp"
#include "app/cli/table.hpp"
#include "inventory/error.hpp"

namespace ironhold::cli::node {
namespace detail {

using nlohmann::json;

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

std::string one_positional(const Args& args, const char* what) {
  if (args.positional().size() != 1)
    throw UsageError("expected exactly one " + std::string(what) + " argument, got " +
                     std::to_string(args.positional().size()));
  return args.positional().front();
}

}  // namespace detail

namespace {

using detail::one_positional;
using detail::parse_int;
using detail::split_pair;
using detail::text;
using detail::trim;
using nlohmann::json;

// A boolean member; anything else (missing, null, a string from a confused server) is false.
bool is_true(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_boolean() && it->get<bool>();
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

std::string selector_query(const Args& args) {
  std::string q;
  auto add = [&q](std::string_view key, const std::string& value) {
    q += (q.empty() ? "?" : "&") + std::string(key) + "=" + url_encode(value);
  };
  for (const char* name : {"source", "driver", "health", "lifecycle", "site", "rack", "project"})
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
  return q;
}

std::string list_query(const Args& args) {
  std::string q = selector_query(args);
  auto add = [&q](std::string_view key, const std::string& value) {
    q += (q.empty() ? "?" : "&") + std::string(key) + "=" + url_encode(value);
  };
  if (auto v = args.get("sort")) add("sort", *v);
  if (auto limit = args.get("limit")) {
    const long long n = parse_int(*limit, "--limit");
    if (n < 1) throw UsageError("--limit must be at least 1");
    add("limit", std::to_string(std::min<long long>(n, 1000)));
  }
  return q;
}

json enroll_body(const Args& args, const std::optional<std::string>& password) {
  json body = {{"name", one_positional(args, "NAME")}};
  if (auto project = args.get("project")) body["project"] = *project;
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
  for (const char* key : {"name", "project", "driver", "endpoint"})
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
  if (auto g = args.get("gpus-expected"))
    body["gpus_expected"] = *g == "seen" ? json(nullptr) : json(parse_int(*g, "--gpus-expected"));
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

namespace {

// "7 (8 expected)" where the count the node should have differs from what it has, else the count.
std::string gpus_text(const json& n) {
  const json hardware = n.value("hardware", json::object());
  std::string seen = hardware.is_object() ? text(hardware, "gpu_count") : std::string();
  const std::string expected = text(n, "gpus_expected");
  if (expected.empty() || expected == seen) return seen;
  return (seen.empty() ? std::string("?") : seen) + " (" + expected + " expected)";
}

}  // namespace

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
      {"Project", text(n, "project")},
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
      {"GPUs", gpus_text(n)},
      {"Provider ID", text(n, "provider_id")},
      {"Credentials", is_true(n, "credentials_set") ? "set" : "not set"},
      {"Last seen", text(n, "last_seen")},
      {"Created", text(n, "created_at")},
      {"Updated", text(n, "updated_at")},
      {"Retired", text(n, "retired_at")},
  });
}

}  // namespace ironhold::cli::node
