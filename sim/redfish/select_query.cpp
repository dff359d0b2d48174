#include "sim/redfish/select_query.hpp"

#include <map>

#include "inventory/util/percent_decode.hpp"

namespace ironhold::sim::redfish {

using nlohmann::json;

namespace {

// Lenient, as BMCs are: a malformed escape is kept as text.
std::string decoded(std::string_view text) {
  std::string out;
  if (!percent_decode(text, out)) out = std::string(text);
  return out;
}

// The selected paths as a tree: an empty subtree selects the whole property.
struct Selection {
  std::map<std::string, Selection, std::less<>> children;
};

Selection parse_selection(std::string_view select) {
  Selection root;
  while (!select.empty()) {
    const auto comma = select.find(',');
    std::string_view item = select.substr(0, comma);
    select = comma == std::string_view::npos ? std::string_view{} : select.substr(comma + 1);
    Selection* node = &root;
    bool whole = false;  // an earlier item already selected an ancestor whole
    while (!item.empty() && !whole) {
      const auto slash = item.find('/');
      const std::string name(item.substr(0, slash));
      item = slash == std::string_view::npos ? std::string_view{} : item.substr(slash + 1);
      if (name.empty()) continue;
      const bool existed = node->children.count(name) != 0;
      Selection& child = node->children[name];
      whole = existed && child.children.empty() && !item.empty();
      if (item.empty()) child.children.clear();  // the property itself: all of it
      node = &child;
    }
  }
  return root;
}

json filter(const json& value, const Selection& selection, bool top_level) {
  if (!value.is_object() || selection.children.empty()) return value;
  json out = json::object();
  for (auto it = value.begin(); it != value.end(); ++it) {
    const auto chosen = selection.children.find(it.key());
    if (chosen != selection.children.end())
      out[it.key()] = filter(it.value(), chosen->second, false);
    else if (top_level && it.key().rfind("@odata.", 0) == 0)
      out[it.key()] = it.value();
  }
  return out;
}

}  // namespace

std::optional<std::string> query_parameter(std::string_view target, std::string_view name) {
  const auto question = target.find('?');
  if (question == std::string_view::npos) return std::nullopt;
  std::string_view query = target.substr(question + 1);
  query = query.substr(0, query.find('#'));
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    const auto equals = pair.find('=');
    if (decoded(pair.substr(0, equals)) != name) continue;
    return equals == std::string_view::npos ? std::string() : decoded(pair.substr(equals + 1));
  }
  return std::nullopt;
}

json apply_select(const json& document, std::string_view select) {
  const Selection selection = parse_selection(select);
  if (selection.children.empty()) return document;
  return filter(document, selection, true);
}

}  // namespace ironhold::sim::redfish
