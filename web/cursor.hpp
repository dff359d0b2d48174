#pragma once
// Opaque page cursors: base64url of a small JSON document. Decoding validates the shape again
// (a cursor is client input) and any failure is the same 400 telling the client what to do.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace ironhold::web {

std::string encode_cursor_json(const nlohmann::json& doc);
// An object, or throws Error(invalid) for field "cursor".
nlohmann::json decode_cursor_json(std::string_view cursor);

}  // namespace ironhold::web
