#pragma once
// Test helpers for the Redfish crawler and normalizer: a Fetcher that serves a DMTF mockup tree
// straight from its files (the README's URL -> file rules), with per-path failures and a
// request log, and a way to run a coroutine to completion.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bmc/redfish/crawler.hpp"

namespace ironhold::bmc::redfish::testing {

// ../shared/redfish-mockups beside the clone; empty when absent (tests then skip with a WARN).
inline std::filesystem::path mockups_dir() {
  std::vector<std::filesystem::path> candidates;
  if (const char* env = std::getenv("IRONHOLD_SHARED_DIR")) candidates.emplace_back(env);
#ifdef IRONHOLD_SHARED_DIR
  candidates.emplace_back(IRONHOLD_SHARED_DIR);
#endif
  // tests/bmc/redfish/<this file> -> ../../../../shared
  candidates.push_back(std::filesystem::path(__FILE__).parent_path() / "../../../../shared");
  for (const auto& dir : candidates) {
    std::error_code error;
    if (std::filesystem::is_directory(dir / "redfish-mockups", error))
      return dir / "redfish-mockups";
  }
  return {};
}

inline std::filesystem::path mockup(const std::string& name) {
  auto dir = mockups_dir();
  if (dir.empty() || !std::filesystem::is_directory(dir / name)) return {};
  return dir / name;
}

// The README's rules: drop query and fragment, strip trailing '/', strip "/redfish/v1".
inline std::filesystem::path file_for(const std::filesystem::path& root, std::string path) {
  path = path.substr(0, path.find_first_of("?#"));
  while (!path.empty() && path.back() == '/') path.pop_back();
  const std::string prefix = "/redfish/v1";
  if (path.rfind(prefix, 0) != 0) return {};
  std::string rest = path.substr(prefix.size());
  if (rest.find("..") != std::string::npos) return {};
  return root / std::filesystem::path(rest.empty() ? "" : rest.substr(1)) / "index.json";
}

inline std::optional<nlohmann::json> load_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  auto document = nlohmann::json::parse(in, nullptr, false);
  if (document.is_discarded()) return std::nullopt;
  return document;
}

// What the service behind a fetcher does: serve a mockup, fail some paths, or generate answers.
struct ServiceState {
  std::filesystem::path root;                   // mockup folder (may be empty)
  std::map<std::string, DriverError> failures;  // request path -> error
  std::function<std::optional<nlohmann::json>(const std::string&)> generate;  // before files
  std::vector<std::string> requests;  // every path asked, in order
};

inline FetchResult answer(ServiceState& state, const std::string& path) {
  state.requests.push_back(path);
  if (auto failure = state.failures.find(path); failure != state.failures.end())
    return failure->second;
  if (state.generate)
    if (auto document = state.generate(path)) return std::move(*document);
  if (!state.root.empty())
    if (auto document = load_json(file_for(state.root, path))) return std::move(*document);
  return DriverError{DriverErrorCode::rejected, "404 Not Found"};
}

inline boost::asio::awaitable<FetchResult> answer_async(std::shared_ptr<ServiceState> state,
                                                        std::string path) {
  FetchResult result = answer(*state, path);
  co_return result;
}

// A Fetcher over a ServiceState (a struct, not a capturing coroutine lambda: GCC 12).
struct StateFetcher {
  std::shared_ptr<ServiceState> state;
  boost::asio::awaitable<FetchResult> operator()(const std::string& path) const {
    return answer_async(state, path);
  }
};

template <class T>
T run(boost::asio::awaitable<T> work) {
  boost::asio::io_context io;
  auto future = boost::asio::co_spawn(io, std::move(work), boost::asio::use_future);
  io.run();
  return future.get();
}

inline CrawlResult crawl_service(const std::shared_ptr<ServiceState>& state, CrawlOptions options) {
  return run(crawl(StateFetcher{state}, std::move(options)));
}

inline std::shared_ptr<ServiceState> serve_mockup(const std::filesystem::path& root) {
  auto state = std::make_shared<ServiceState>();
  state->root = root;
  return state;
}

// The mockup file of a resource path, parsed (for expected values); null json when absent.
inline nlohmann::json mockup_doc(const std::filesystem::path& root, const std::string& path) {
  return load_json(file_for(root, path)).value_or(nlohmann::json());
}

// The canonical @odata.id paths of a collection file's Members.
inline std::vector<std::string> mockup_members(const std::filesystem::path& root,
                                               const std::string& collection) {
  std::vector<std::string> members;
  nlohmann::json document = mockup_doc(root, collection);
  if (!document.is_object() || !document.contains("Members")) return members;
  for (const auto& member : document["Members"]) {
    std::string path = member.value("@odata.id", "");
    while (!path.empty() && path.back() == '/') path.pop_back();
    members.push_back(path);
  }
  return members;
}

}  // namespace ironhold::bmc::redfish::testing
