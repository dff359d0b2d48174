#pragma once
// Following tasks until they end, for --wait: on a terminal one status line rewritten in place,
// otherwise one plain line per task as it ends (for logs and scripts).
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "app/cli/http_client.hpp"

namespace ironhold::cli {

struct WaitOptions {
  bool terminal = false;  // rewrite one progress line instead of printing lines
  std::chrono::milliseconds poll_interval{500};
};

// Polls GET /api/v1/tasks/{id} for every task until all have ended; reports progress on `out`.
// Returns the tasks as they ended, in the order given.
std::vector<nlohmann::json> wait_for_tasks(HttpClient& client, std::vector<nlohmann::json> tasks,
                                           std::ostream& out, const WaitOptions& options);

// "gpu-01  power cycle  succeeded" / "... failed: <error>": one task's outcome for people.
std::string task_outcome_line(const nlohmann::json& task);
// What the task does: "power cycle", "boot pxe", "identify on".
std::string task_summary(const nlohmann::json& task);
bool task_ended(const nlohmann::json& task);
// A member as text for tables: a string as is, a number or bool as JSON, "" for null or missing.
std::string field_text(const nlohmann::json& obj, const char* key);

}  // namespace ironhold::cli
