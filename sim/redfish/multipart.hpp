#pragma once
// multipart/form-data bodies (RFC 7578 on RFC 2046's multipart syntax), as a Redfish client sends
// them to UpdateService.MultipartHttpPushUri: an "UpdateParameters" JSON part and an "UpdateFile"
// part carrying the image. The parser never throws on what a client sends; it reports the first
// thing wrong instead, and caps the number of parts and the size of their headers.
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ironhold::sim::redfish {

struct FormPart {
  std::string name;          // Content-Disposition's name: always present
  std::string filename;      // Content-Disposition's filename, or empty
  std::string content_type;  // as sent; "text/plain" when the part has none (RFC 7578, 4.4)
  std::string_view body;     // the part's octets, a view into the parsed body
};

// Whether a Content-Type value names multipart/form-data (parameters not checked).
bool is_form_data(std::string_view content_type);

// The boundary parameter of a multipart/form-data Content-Type (quoted or not, the parameter name
// in any case); nothing for another media type, or a boundary missing, empty or longer than the
// 70 characters RFC 2046 allows.
std::optional<std::string> form_boundary(std::string_view content_type);

// Every part of `body` in order, or what makes it malformed: no opening or closing delimiter, a
// part whose headers do not end, a header line without a colon, a part that is not form-data or
// has no name, more than max_form_parts parts. Text before the first delimiter (the preamble) and
// after the closing one (the epilogue) is ignored, as RFC 2046 says.
inline constexpr std::size_t max_form_parts = 64;
std::variant<std::vector<FormPart>, std::string> parse_form_data(std::string_view body,
                                                                 std::string_view boundary);

}  // namespace ironhold::sim::redfish
