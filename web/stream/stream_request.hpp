#pragma once
// What a client asks of GET /api/v1/stream: where to resume (Last-Event-ID) and which kinds of
// change it wants (?kinds=node,task). Pure, so that the parsing of hostile input is unit-tested.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/db/change_store.hpp"
#include "inventory/model/access.hpp"

namespace ironhold::web {

struct StreamRequest {
  // Resume after this change; none: live from now.
  std::optional<std::int64_t> last_event_id;
  // "node", "task", "rollout", "cloud_account"; empty: all of them.
  std::set<std::string> families;
  // The projects whose changes the client may see (from its credentials); nullopt: every one.
  ProjectScope scope;

  // Whether an event of this kind ("node.updated") goes to the client.
  bool wants(std::string_view kind) const;
  // And this change: its kind, and its project in the client's scope.
  bool wants(const db::ChangeRow& change) const;
};

// The families ?kinds= may name.
const std::vector<std::string>& stream_families();

// A change id as the stream sends it ("42"); nullopt for anything else (sign, spaces, letters,
// zero, out of range).
std::optional<std::int64_t> parse_event_id(std::string_view text);

// The Last-Event-ID header wins over the last_event_id query parameter: EventSource reconnects to
// the same URL and sends the header with the newer id. Empty values count as absent. Throws
// Error(invalid) naming the parameter at fault.
StreamRequest parse_stream_request(std::string_view last_event_id_header,
                                   const std::optional<std::string>& last_event_id_query,
                                   const std::optional<std::string>& kinds);

}  // namespace ironhold::web
