#include "app/cli/paging.hpp"

#include <set>

#include "app/cli/task_wait.hpp"

namespace ironhold::cli {

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
