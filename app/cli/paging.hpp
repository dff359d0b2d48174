#pragma once
// The CLI's reading of a paged list route ({"items": [...], "next": cursor}): page after page
// until `want` items or the last page.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/http_client.hpp"

namespace ironhold::cli {

// `query` is the first page's ("?state=running", or empty); later pages pass the cursor alone.
std::vector<nlohmann::json> fetch_items(HttpClient& client, const std::string& path,
                                        const std::string& query, std::size_t want);

}  // namespace ironhold::cli
