#include "web/router.hpp"

#include <stdexcept>

#include "inventory/util/percent_decode.hpp"

namespace ironhold::web {
namespace {

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
  Pattern pattern;
  split_path(route.pattern, pattern.segments);
  for (std::size_t i = 0; i + 1 < pattern.segments.size(); ++i)
    if (is_rest_placeholder(pattern.segments[i]))
      throw std::logic_error("a {name*} placeholder must be the last segment: " + route.pattern);
  for (const auto& r : routes_)
    if (r.method == route.method && r.pattern == route.pattern)
      throw std::logic_error("route registered twice: " + route.pattern);
  for (const auto& segment : pattern.segments)
    pattern.placeholder.push_back(is_placeholder(segment));
  pattern.takes_rest = !pattern.segments.empty() && is_rest_placeholder(pattern.segments.back());
  routes_.push_back(std::move(route));
  patterns_.push_back(std::move(pattern));
}

int Router::fit(const Pattern& pattern, const std::vector<std::string>& segments) {
  const std::size_t size = pattern.segments.size();
  if (pattern.takes_rest ? segments.size() < size : size != segments.size()) return -1;
  int literals = 0;
  for (std::size_t i = 0; i < size; ++i) {
    if (pattern.takes_rest && i + 1 == size) {
      for (std::size_t j = i; j < segments.size(); ++j)
        if (segments[j].empty()) return -1;
    } else if (pattern.placeholder[i]) {
      if (segments[i].empty()) return -1;
    } else if (pattern.segments[i] == segments[i]) {
      ++literals;
    } else {
      return -1;
    }
  }
  return literals;
}

PathParams Router::params_of(const Pattern& pattern, const std::vector<std::string>& segments) {
  PathParams params;
  const std::size_t size = pattern.segments.size();
  for (std::size_t i = 0; i < size; ++i) {
    const std::string& name = pattern.segments[i];
    if (pattern.takes_rest && i + 1 == size) {
      std::string rest;
      for (std::size_t j = i; j < segments.size(); ++j) rest += (j == i ? "" : "/") + segments[j];
      params[name.substr(1, name.size() - 3)] = std::move(rest);
    } else if (pattern.placeholder[i]) {
      params[name.substr(1, name.size() - 2)] = segments[i];
    }
  }
  return params;
}

Router::Match Router::match(http::verb method, const std::vector<std::string>& segments) const {
  Match result;
  // A literal segment beats a placeholder ("/nodes/summary" over "/nodes/{id}").
  int best_score = -1;
  std::size_t best = 0;
  for (std::size_t i = 0; i < routes_.size(); ++i) {
    const int literals = fit(patterns_[i], segments);
    if (literals < 0) continue;
    if (routes_[i].method != method) {
      result.allowed.push_back(routes_[i].method);
      continue;
    }
    const int score = match_score(literals, patterns_[i].takes_rest);
    if (score > best_score) {
      best_score = score;
      best = i;
    }
  }
  if (best_score >= 0) {
    result.route = &routes_[best];
    result.params = params_of(patterns_[best], segments);
  }
  return result;
}

}  // namespace ironhold::web
