#pragma once
// Reading JSON text without building a tree, for text PostgreSQL wrote (jsonb's output, which is
// always well formed): copying it compactly into an answer, and finding one member of an object.
// Where a whole node list is rendered, parsing each node's jsonb columns into nlohmann trees and
// dumping them again cost more than the query.
#include <optional>
#include <string>
#include <string_view>

namespace ironhold::json_text {

// `json` without the whitespace between tokens (jsonb writes `{"a": 1, "b": [2, 3]}`), strings
// kept byte for byte. Members stay in the order of the text (jsonb's: shorter keys first).
void append_compact(std::string& out, std::string_view json);

// The text of the value of the object's top-level member `key` (a key without escapes), or
// nothing when `json` is not an object, has no such member, or ends early.
std::optional<std::string_view> member(std::string_view json, std::string_view key);

}  // namespace ironhold::json_text
