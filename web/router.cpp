#include "web/router.hpp"

#include <stdexcept>

#include "inventory/util/percent_decode.hpp"

namespace ironhold::web {
namespace {

std::vector<std::string> pattern_segments(std::string_view pattern) {
  std::vector<std::string> segments;
  split_path(pattern, segments);
  return segments;
}

bool is_placeholder(const std::string& s) {
  return s.size() > 2 && s.front() == '{' && s.back() == '}';
}

}  // namespace

bool split_path(std::string_view path, std::vector<std::string>& segments) {
  segments.clear();
  if (path.empty() || path.front() != '/') return false;
  path.remove_prefix(1);
  while (!path.empty()) {
    const auto slash = path.find('/');
    std::string segment;
    if (!percent_decode(path.substr(0, slash), segment)) return false;
    segments.push_back(std::move(segment));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
    if (path.empty()) segments.emplace_back();  // a trailing slash is a distinct, empty segment
  }
  return true;
}

void Router::add(Route route) {
  for (const auto& r : routes_)
    if (r.method == route.method && r.pattern == route.pattern)
      throw std::logic_error("route registered twice: " + route.pattern);
  routes_.push_back(std::move(route));
}

Router::Match Router::match(http::verb method, const std::vector<std::string>& segments) const {
  Match result;
  // A literal segment beats a placeholder ("/nodes/summary" over "/nodes/{id}").
  int best_literals = -1;
  for (const auto& route : routes_) {
    const auto pattern = pattern_segments(route.pattern);
    if (pattern.size() != segments.size()) continue;
    PathParams params;
    int literals = 0;
    bool ok = true;
    for (std::size_t i = 0; i < pattern.size() && ok; ++i) {
      if (is_placeholder(pattern[i])) {
        if (segments[i].empty()) ok = false;
        params[pattern[i].substr(1, pattern[i].size() - 2)] = segments[i];
      } else if (pattern[i] == segments[i]) {
        ++literals;
      } else {
        ok = false;
      }
    }
    if (!ok) continue;
    if (route.method != method) {
      result.allowed.push_back(route.method);
      continue;
    }
    if (literals > best_literals) {
      best_literals = literals;
      result.route = &route;
      result.params = std::move(params);
    }
  }
  return result;
}

}  // namespace ironhold::web
