#pragma once
// MAC addresses as installers, BMCs and operators write them ("52:54:00:AB:CD:EF",
// "52-54-00-ab-cd-ef", "525400abcdef"), in the one form Ironhold keeps and compares: lower case,
// colon-separated.
#include <optional>
#include <string>
#include <string_view>

namespace ironhold {

// The canonical form, or nothing when `text` is not a 48-bit MAC address.
std::optional<std::string> normalize_mac(std::string_view text);

}  // namespace ironhold
