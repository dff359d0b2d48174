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

// "{path*}": the rest of the path.
bool is_rest_placeholder(const std::string& s) {
  return is_placeholder(s) && s.size() > 3 && s[s.size() - 2] == '*';
}

// How well a route fits: literal segments count most; at equal literals a route of fixed length
// beats one that takes the rest of the path.
int match_score(int literals, bool takes_rest) {
  return literals * 2 + (takes_rest ? 0 : 1);
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
  const auto segments = pattern_segments(route.pattern);
  for (std::size_t i = 0; i + 1 < segments.size(); ++i)
    if (is_rest_placeholder(segments[i]))
      throw std::logic_error("a {name*} placeholder must be the last segment: " + route.pattern);
  for (const auto& r : routes_)
    if (r.method == route.method && r.pattern == route.pattern)
      throw std::logic_error("route registered twice: " + route.pattern);
  routes_.push_back(std::move(route));
}

Router::Match Router::match(http::verb method, const std::vector<std::string>& segments) const {
  Match result;
  // A literal segment beats a placeholder ("/nodes/summary" over "/nodes/{id}").
  int best_score = -1;
  for (const auto& route : routes_) {
    const auto pattern = pattern_segments(route.pattern);
    const bool takes_rest = !pattern.empty() && is_rest_placeholder(pattern.back());
    if (takes_rest ? segments.size() < pattern.size() : pattern.size() != segments.size()) continue;
    PathParams params;
    int literals = 0;
    bool ok = true;
    for (std::size_t i = 0; i < pattern.size() && ok; ++i) {
      if (takes_rest && i + 1 == pattern.size()) {
        std::string rest;
        for (std::size_t j = i; j < segments.size() && ok; ++j) {
          if (segments[j].empty()) ok = false;
          rest += (j == i ? "" : "/") + segments[j];
        }
        params[pattern[i].substr(1, pattern[i].size() - 3)] = std::move(rest);
      } else if (is_placeholder(pattern[i])) {
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
    const int score = match_score(literals, takes_rest);
    if (score > best_score) {
      best_score = score;
      result.route = &route;
      result.params = std::move(params);
    }
  }
  return result;
}

}  // namespace ironhold::web
