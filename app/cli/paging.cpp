#include "app/cli/paging.hpp"

#include <charconv>
#include <set>

#include "app/cli/task_wait.hpp"

namespace ironhold::cli {

std::size_t item_limit(const Args& args, std::size_t fallback) {
  const auto text = args.get("limit");
  if (!text) return fallback;
  std::size_t limit = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), limit);
  if (ec != std::errc{} || end != text->data() + text->size() || limit == 0)
    throw UsageError("--limit must be a whole number from 1, not \"" + *text + "\"");
  return limit;
}

std::vector<nlohmann::json> fetch_items(HttpClient& client, const std::string& path,
                                        const std::string& query, std::size_t want) {
  std::vector<nlohmann::json> items;
  std::set<std::string> cursors;  // a server handing back a cursor twice must not loop us
  std::string target = path + query;
  while (items.size() < want) {
    const nlohmann::json page = client.get(target);
    for (const auto& item : page.value("items", nlohmann::json::array())) {
      if (items.size() >= want) break;
      items.push_back(item);
    }
    const std::string next = field_text(page, "next");
    if (next.empty() || !cursors.insert(next).second) break;
    target = path + "?cursor=" + url_encode(next);
  }
  return items;
}

}  // namespace ironhold::cli
