#pragma once
// Selecting and ordering nodes: the filters of GET /api/v1/nodes (and later of exports and bulk
// actions), the sort, and the keyset cursor that carries both to the next page.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inventory/model/access.hpp"

namespace ironhold {

struct NodeFilter {
  // Each list matches any of its values (health=warning,critical); empty lists match everything.
  std::vector<std::string> ids, names;  // node ids (UUIDs) and names
  std::vector<std::string> source, driver, health, power_state, lifecycle;
  std::vector<std::string> gpu_model;  // exact model names, as the hardware summary gives them
  std::optional<bool> maintenance;
  std::vector<std::pair<std::string, std::string>> tags;  // all must match
  std::optional<std::string> site, rack;
  std::optional<std::string> q;      // case-insensitive name substring
  std::vector<std::string> project;  // project names
  // Not a filter a client chooses: the projects the caller may see, set by the API from the
  // caller's credentials on every request and never carried in a cursor. nullopt: every project.
  ProjectScope scope;
  // Retired nodes are listed only when asked for (lifecycle=retired).
  bool includes_retired() const;
  // No filter at all: every node in service.
  bool empty() const;
};

enum class NodeSortField { name, health, power_state, last_seen, created_at };

struct NodeSort {
  NodeSortField field = NodeSortField::name;
  bool descending = false;
};

struct NodeQuery {
  NodeFilter filter;
  NodeSort sort;
  int limit = 100;
  // The sort key and id of the last row of the previous page.
  std::optional<std::pair<std::string, std::string>> after;
};

inline constexpr int max_page_size = 1000;

// Parses `sort=` ("name", "-last_seen"); throws ironhold::Error (invalid) naming the accepted ones.
NodeSort parse_node_sort(std::string_view text);
std::string to_string(const NodeSort& sort);

// Adds one query parameter to a filter; returns false for a parameter that is not a filter.
// Throws ironhold::Error (invalid) for a bad value (an unknown health, a tag without ':').
bool add_filter_parameter(NodeFilter& filter, std::string_view key, std::string_view value);

// A bulk action's selector: a JSON object with the list filters' names (ids, names, source,
// driver, health, power_state, lifecycle, maintenance, tag, site, rack, gpu_model, q, project); a
// value is a string (comma lists as in the query), an array of strings, or a boolean for
// maintenance. Throws invalid (400) for unknown keys and wrong types, unprocessable (422) for an
// empty selector: an action on the whole fleet is never an accident.
NodeFilter parse_node_selector(const nlohmann::json& selector);

// The opaque cursor: base64url of a small JSON document holding the filters, sort, limit and the
// position. Decoding validates everything again: a cursor is client input.
std::string encode_cursor(const NodeQuery& query, const std::string& last_key,
                          const std::string& last_id);
NodeQuery decode_cursor(std::string_view cursor);

}  // namespace ironhold
