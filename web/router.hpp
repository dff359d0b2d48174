#pragma once
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "web/route.hpp"

namespace ironhold::web {

using PathParams = std::unordered_map<std::string, std::string>;

// Patterns are literal segments and placeholders ("/api/v1/nodes/{id}": one non-empty segment).
// A last placeholder written "{name*}" takes the rest of the path, one or more non-empty segments,
// joined by '/' ("/assets/{hash}/{path*}" matches "/assets/ab12/js/app.js" with path
// "js/app.js"); a route with a fixed number of segments wins over it.
class Router {
 public:
  // Throws std::logic_error for a duplicate method + pattern, or a "{name*}" that is not the
  // last segment (programming errors).
  void add(Route route);

  struct Match {
    const Route* route = nullptr;  // null when nothing matches the method
    PathParams params;
    std::vector<http::verb> allowed;  // methods the path has, for 405's Allow header
  };
  // `path` is already percent-decoded segment by segment.
  Match match(http::verb method, const std::vector<std::string>& segments) const;

  const std::vector<Route>& routes() const noexcept { return routes_; }

 private:
  // A route's pattern split once, when it is added: every request is matched against every route.
  struct Pattern {
    std::vector<std::string> segments;
    std::vector<bool> placeholder;  // per segment: "{name}" (or the last one's "{name*}")
    bool takes_rest = false;        // the last segment is "{name*}"
  };
  // The route's segments fit the path's; its number of literal segments, or -1.
  static int fit(const Pattern& pattern, const std::vector<std::string>& segments);
  static PathParams params_of(const Pattern& pattern, const std::vector<std::string>& segments);

  std::vector<Route> routes_;
  std::vector<Pattern> patterns_;  // routes_[i]'s is patterns_[i]
};

// Splits "/api/v1/nodes/a%2Fb" into {"api", "v1", "nodes", "a/b"}; false on bad percent-encoding.
bool split_path(std::string_view path, std::vector<std::string>& segments);

}  // namespace ironhold::web
