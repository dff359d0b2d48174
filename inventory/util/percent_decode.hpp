#pragma once
// Percent-decoding of URL paths and query values (RFC 3986 section 2.1).
#include <string>
#include <string_view>

namespace ironhold {

// Decodes every %XX into `out`; false (with `out` unspecified) on a '%' not followed by two hex
// digits. '+' is left alone: it means a space only in HTML forms.
bool percent_decode(std::string_view in, std::string& out);

}  // namespace ironhold
