#include "inventory/model/node_query.hpp"

#include <algorithm>
#include <charconv>

#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"
#include "inventory/model/enums.hpp"
#include "inventory/model/node.hpp"
#include "inventory/model/node_spec.hpp"

namespace ironhold {
namespace {

using nlohmann::json;

constexpr std::string_view sort_names[] = {"name", "health", "power_state", "last_seen",
                                           "created_at"};

std::vector<std::string> split_list(std::string_view value) {
  std::vector<std::string> out;
  while (true) {
    const auto comma = value.find(',');
    auto part = value.substr(0, comma);
    if (!part.empty()) out.emplace_back(part);
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return out;
}

template <class E>
void add_enum_values(std::vector<std::string>& list, std::string_view key, std::string_view value) {
  for (auto& v : split_list(value)) {
    if (!parse_enum<E>(v))
      throw invalid("unknown " + std::string(key) + " \"" + v.substr(0, 40) + "\": use " +
                        join_names(enum_names<E>()),
                    std::string(key));
    list.push_back(std::move(v));
  }
}

bool parse_bool(std::string_view v, bool& out) {
  if (v == "true" || v == "1" || v == "yes") return out = true, true;
  if (v == "false" || v == "0" || v == "no") return out = false, true;
  return false;
}

json filter_to_json(const NodeFilter& f) {
  json j = json::object();
  auto put_list = [&](const char* k, const std::vector<std::string>& v) {
    if (!v.empty()) j[k] = v;
  };
  put_list("ids", f.ids);
  put_list("names", f.names);
  put_list("source", f.source);
  put_list("driver", f.driver);
  put_list("health", f.health);
  put_list("power_state", f.power_state);
  put_list("lifecycle", f.lifecycle);
  put_list("gpu_model", f.gpu_model);
  put_list("project", f.project);
  if (f.maintenance) j["maintenance"] = *f.maintenance;
  if (!f.tags.empty()) {
    json tags = json::array();
    for (const auto& [k, v] : f.tags) tags.push_back(k + ":" + v);
    j["tag"] = tags;
  }
  if (f.site) j["site"] = *f.site;
  if (f.rack) j["rack"] = *f.rack;
  if (f.q) j["q"] = *f.q;
  return j;
}

Error bad_cursor() {
  return invalid("the cursor is not valid: use the \"next\" value of the previous page unchanged",
                 "cursor");
}

}  // namespace

bool NodeFilter::includes_retired() const {
  return std::find(lifecycle.begin(), lifecycle.end(), "retired") != lifecycle.end();
}

bool NodeFilter::empty() const {
  return filter_to_json(*this).empty();
}

NodeSort parse_node_sort(std::string_view text) {
  NodeSort sort;
  if (!text.empty() && text.front() == '-') {
    sort.descending = true;
    text.remove_prefix(1);
  }
  for (std::size_t i = 0; i < std::size(sort_names); ++i)
    if (sort_names[i] == text) {
      sort.field = static_cast<NodeSortField>(i);
      return sort;
    }
  throw invalid("cannot sort by \"" + std::string(text.substr(0, 40)) + "\": use " +
                    join_names(sort_names) + ", with '-' in front for descending",
                "sort");
}

std::string to_string(const NodeSort& sort) {
  // Appended rather than "-" + string: GCC 12 warns (-Wstringop-overflow) about the latter once
  // inlined in a Release build, a known false positive.
  std::string text = sort.descending ? "-" : "";
  text += sort_names[static_cast<int>(sort.field)];
  return text;
}

bool add_filter_parameter(NodeFilter& f, std::string_view key, std::string_view value) {
  if (key == "ids") {
    for (auto& v : split_list(value)) {
      if (!is_uuid(v))
        throw invalid("\"ids\" takes node ids (UUIDs); use \"names\" for names", "ids");
      f.ids.push_back(std::move(v));
    }
  } else if (key == "names") {
    for (auto& v : split_list(value)) f.names.push_back(std::move(v));
  } else if (key == "source")
    add_enum_values<Source>(f.source, key, value);
  else if (key == "health")
    add_enum_values<Health>(f.health, key, value);
  else if (key == "power_state")
    add_enum_values<PowerState>(f.power_state, key, value);
  else if (key == "lifecycle")
    add_enum_values<Lifecycle>(f.lifecycle, key, value);
  else if (key == "driver") {
    for (auto& v : split_list(value)) f.driver.push_back(std::move(v));
  } else if (key == "gpu_model") {
    f.gpu_model.emplace_back(value);  // model names may contain commas: one value per parameter
  } else if (key == "maintenance") {
    bool b;
    if (!parse_bool(value, b))
      throw invalid("\"maintenance\" must be true or false", "maintenance");
    f.maintenance = b;
  } else if (key == "tag") {
    std::string k, v;
    if (!split_tag_selector(value, k, v))
      throw invalid("a tag filter is key:value (got \"" + std::string(value.substr(0, 80)) + "\")",
                    "tag");
    f.tags.emplace_back(std::move(k), std::move(v));
  } else if (key == "project") {
    for (auto& v : split_list(value)) {
      if (!valid_project_name(v))
        throw invalid("\"" + v.substr(0, 70) + "\" is not a project name", "project");
      f.project.push_back(std::move(v));
    }
  } else if (key == "site")
    f.site = std::string(value);
  else if (key == "rack")
    f.rack = std::string(value);
  else if (key == "q")
    f.q = std::string(value);
  else
    return false;
  return true;
}

std::string encode_cursor(const NodeQuery& query, const std::string& last_key,
                          const std::string& last_id) {
  json doc = {{"v", 1},
              {"f", filter_to_json(query.filter)},
              {"s", to_string(query.sort)},
              {"l", query.limit},
              {"k", last_key},
              {"i", last_id}};
  const std::string text = doc.dump();
  return crypto::base64url({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

NodeQuery decode_cursor(std::string_view cursor) {
  std::vector<std::uint8_t> bytes;
  if (cursor.size() > 16 * 1024 || !crypto::from_base64url(cursor, bytes)) throw bad_cursor();
  const json doc = json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (!doc.is_object() || doc.value("v", 0) != 1) throw bad_cursor();
  NodeQuery query;
  try {
    const auto& filter = doc.at("f");
    if (!filter.is_object()) throw bad_cursor();
    for (const auto& [key, value] : filter.items()) {
      if (value.is_array()) {
        for (const auto& item : value)
          if (!item.is_string() ||
              !add_filter_parameter(query.filter, key, item.get<std::string>()))
            throw bad_cursor();
      } else if (value.is_boolean()) {
        if (!add_filter_parameter(query.filter, key, value.get<bool>() ? "true" : "false"))
          throw bad_cursor();
      } else if (!value.is_string() ||
                 !add_filter_parameter(query.filter, key, value.get<std::string>())) {
        throw bad_cursor();
      }
    }
    query.sort = parse_node_sort(doc.at("s").get<std::string>());
    query.limit = doc.at("l").get<int>();
    if (query.limit < 1 || query.limit > max_page_size) throw bad_cursor();
    auto id = doc.at("i").get<std::string>();
    if (!is_uuid(id)) throw bad_cursor();
    query.after = std::make_pair(doc.at("k").get<std::string>(), std::move(id));
  } catch (const json::exception&) {
    throw bad_cursor();
  } catch (const Error&) {
    throw bad_cursor();
  }
  return query;
}

NodeFilter parse_node_selector(const json& selector) {
  if (!selector.is_object()) throw invalid("\"selector\" must be a JSON object", "selector");
  NodeFilter f;
  for (const auto& [key, value] : selector.items()) {
    const std::string field = "selector." + key;
    auto add = [&](const std::string& text) {
      if (text.empty())
        throw unprocessable("\"" + field + "\" is empty: give a value, or leave the field out",
                            field);
      try {
        if (!add_filter_parameter(f, key, text))
          throw invalid("unknown selector field \"" + key +
                            "\" (known: ids, names, source, driver, health, power_state, "
                            "lifecycle, maintenance, tag, site, rack, gpu_model, q, project)",
                        field);
      } catch (const Error& e) {
        throw Error(e.kind(), e.what(), field);
      }
    };
    if (value.is_string()) {
      add(value.get<std::string>());
    } else if (value.is_boolean()) {
      add(value.get<bool>() ? "true" : "false");
    } else if (value.is_array()) {
      for (const auto& item : value) {
        if (!item.is_string()) throw invalid("\"" + field + "\" must list strings", field);
        add(item.get<std::string>());
      }
    } else {
      throw invalid("\"" + field + "\" must be a string, a list of strings or a boolean", field);
    }
  }
  if (f.empty())
    throw unprocessable(
        "the selector is empty: an action on every node is never implied; name the nodes "
        "(ids, names) or filter them (rack, tag, health, ...)",
        "selector");
  return f;
}

}  // namespace ironhold
