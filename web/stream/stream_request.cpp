#include "web/stream/stream_request.hpp"

#include <algorithm>
#include <charconv>

#include "inventory/error.hpp"

namespace ironhold::web {
namespace {

std::string_view family_of(std::string_view kind) {
  return kind.substr(0, kind.find('.'));
}

std::string_view strip_blanks(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::string family_list() {
  std::string out;
  for (const auto& f : stream_families()) out += (out.empty() ? "" : ", ") + f;
  return out;
}

std::set<std::string> parse_families(std::string_view text) {
  std::set<std::string> families;
  while (true) {
    const auto comma = text.find(',');
    const std::string_view name = strip_blanks(text.substr(0, comma));
    const auto& known = stream_families();
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw invalid("\"kinds\" is a comma-separated list of " + family_list() + "; got \"" +
                        std::string(name.substr(0, 40)) + "\"",
                    "kinds");
    families.emplace(name);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return families;
}

}  // namespace

bool StreamRequest::wants(const db::ChangeRow& change) const {
  if (!wants(change.kind)) return false;
  if (!scope) return true;
  return change.project && std::find(scope->begin(), scope->end(), *change.project) != scope->end();
}

bool StreamRequest::wants(std::string_view kind) const {
  const auto family = family_of(kind);
  if (family == "stream") return true;  // the stream's own events (stream.reset) always go
  return families.empty() || families.count(std::string(family)) > 0;
}

const std::vector<std::string>& stream_families() {
  static const std::vector<std::string> families = {"node", "task", "rollout", "cloud_account",
                                                    "alert"};
  return families;
}

std::optional<std::int64_t> parse_event_id(std::string_view text) {
  if (text.empty() ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  std::int64_t id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc{} || end != text.data() + text.size() || id <= 0) return std::nullopt;
  return id;
}

StreamRequest parse_stream_request(std::string_view last_event_id_header,
                                   const std::optional<std::string>& last_event_id_query,
                                   const std::optional<std::string>& kinds) {
  StreamRequest request;
  std::string_view given = last_event_id_header;
  const char* source = "Last-Event-ID";
  if (given.empty() && last_event_id_query) {
    given = *last_event_id_query;
    source = "last_event_id";
  }
  if (!given.empty()) {
    request.last_event_id = parse_event_id(given);
    if (!request.last_event_id)
      throw invalid(
          std::string(source) +
              " must be the id of an event this stream sent (a positive integer); got \"" +
              std::string(given.substr(0, 40)) + "\"",
          source);
  }
  if (kinds) request.families = parse_families(*kinds);
  return request;
}

}  // namespace ironhold::web
