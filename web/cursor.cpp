#include "web/cursor.hpp"

#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"

namespace ironhold::web {

std::string encode_cursor_json(const nlohmann::json& doc) {
  const auto text = doc.dump();
  return crypto::base64url({reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

nlohmann::json decode_cursor_json(std::string_view cursor) {
  std::vector<std::uint8_t> bytes;
  if (cursor.size() <= 4096 && crypto::from_base64url(cursor, bytes)) {
    auto doc = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
    if (doc.is_object()) return doc;
  }
  throw invalid("the cursor is not valid: use the \"next\" value of the previous page unchanged",
                "cursor");
}

}  // namespace ironhold::web
