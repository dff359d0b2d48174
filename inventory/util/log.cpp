#include "inventory/util/log.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

#include "inventory/util/time.hpp"

namespace ironhold::log {
namespace {

std::atomic<Level> current_level{Level::info};
std::atomic<Sink> current_sink{nullptr};
std::mutex write_mutex;

constexpr const char* level_names[] = {"debug", "info", "warn", "error"};

}  // namespace

void set_level(Level l) { current_level = l; }
Level level() { return current_level; }

bool parse_level(std::string_view text, Level& out) {
  for (int i = 0; i < 4; ++i)
    if (text == level_names[i]) {
      out = static_cast<Level>(i);
      return true;
    }
  return false;
}

void set_sink(Sink sink) { current_sink = sink; }

void write(Level l, std::string_view message, const nlohmann::json& fields) {
  if (l < current_level.load()) return;
  nlohmann::json line = nlohmann::json::object();
  line["time"] = format_rfc3339(std::chrono::system_clock::now());
  line["level"] = level_names[static_cast<int>(l)];
  line["msg"] = message;
  if (fields.is_object())
    for (const auto& [key, value] : fields.items()) line[key] = value;
  // Invalid UTF-8 from a peer must not make logging throw.
  std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::lock_guard lock(write_mutex);
  if (Sink sink = current_sink.load()) {
    sink(text);
  } else {
    text += '\n';
    std::fwrite(text.data(), 1, text.size(), stderr);
  }
}

}  // namespace ironhold::log
