#pragma once
// The CLI's reading of a paged list route ({"items": [...], "next": cursor}): page after page
// until `want` items or the last page.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/args.hpp"
#include "app/cli/http_client.hpp"

namespace ironhold::cli {

// --limit N as a count of items (a whole number from 1); `fallback` when it is not given.
std::size_t item_limit(const Args& args, std::size_t fallback);

// `query` is the first page's ("?state=running", or empty); later pages pass the cursor alone.
std::vector<nlohmann::json> fetch_items(HttpClient& client, const std::string& path,
                                        const std::string& query, std::size_t want);

}  // namespace ironhold::cli
