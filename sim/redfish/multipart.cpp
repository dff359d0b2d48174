#include "sim/redfish/multipart.hpp"

namespace ironhold::sim::redfish {

namespace {

// What one part's headers may take; a client sends two short lines.
constexpr std::size_t kMaxPartHeaders = 8 * 1024;
// RFC 2046, 5.1.1: a boundary is 1 to 70 characters.
constexpr std::size_t kMaxBoundary = 70;

char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool same_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  return true;
}

bool is_lwsp(char c) {
  return c == ' ' || c == '\t';
}

std::string_view trim_lwsp(std::string_view text) {
  while (!text.empty() && is_lwsp(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_lwsp(text.back())) text.remove_suffix(1);
  return text;
}

struct HeaderParameter {
  std::string name;  // lower case
  std::string value;
};

// A structured header value, "form-data; name=\"x\"; filename=y": its leading token and its
// parameters (quoted strings unescaped).
struct StructuredValue {
  std::string_view token;
  std::vector<HeaderParameter> parameters;
};

// Nothing for a quoted string that never closes.
std::optional<StructuredValue> split_structured(std::string_view value) {
  StructuredValue out;
  std::size_t at = value.find(';');
  out.token = trim_lwsp(value.substr(0, at));
  while (at != std::string_view::npos && at < value.size()) {
    ++at;  // past the ';'
    while (at < value.size() && is_lwsp(value[at])) ++at;
    const std::size_t name_end = value.find_first_of("=;", at);
    HeaderParameter parameter;
    for (char c : trim_lwsp(value.substr(at, name_end - at))) parameter.name += ascii_lower(c);
    at = name_end;
    if (at != std::string_view::npos && value[at] == '=') {
      ++at;
      while (at < value.size() && is_lwsp(value[at])) ++at;
      if (at < value.size() && value[at] == '"') {
        bool closed = false;
        for (++at; at < value.size(); ++at) {
          if (value[at] == '"') {
            closed = true;
            ++at;
            break;
          }
          if (value[at] == '\\' && at + 1 < value.size()) ++at;
          parameter.value += value[at];
        }
        if (!closed) return std::nullopt;
        at = value.find(';', at);
      } else {
        const std::size_t end = value.find(';', at);
        parameter.value = std::string(trim_lwsp(value.substr(at, end - at)));
        at = end;
      }
    }
    if (!parameter.name.empty()) out.parameters.push_back(std::move(parameter));
  }
  return out;
}

const std::string* parameter_named(const StructuredValue& value, std::string_view name) {
  for (const auto& parameter : value.parameters)
    if (parameter.name == name) return &parameter.value;
  return nullptr;
}

// Whether the text after a boundary (at `after`) completes a delimiter line: "--" for the
// closing delimiter, else optional white space and CRLF. A boundary that merely starts a longer
// word is content (RFC 2046 forbids it there, but senders do not check).
bool ends_delimiter(std::string_view body, std::size_t after) {
  if (body.substr(after, 2) == "--") return true;
  while (after < body.size() && is_lwsp(body[after])) ++after;
  return body.substr(after, 2) == "\r\n";
}

// The next delimiter (CRLF "--" boundary) at or after `from` that really is one.
std::size_t find_delimiter(std::string_view body, std::size_t from, std::string_view delimiter) {
  for (std::size_t at = body.find(delimiter, from); at != std::string_view::npos;
       at = body.find(delimiter, at + 1))
    if (ends_delimiter(body, at + delimiter.size())) return at;
  return std::string_view::npos;
}

// One part's header block into `part`; an error message, or empty.
std::string read_part_headers(std::string_view headers, std::size_t number, FormPart& part) {
  const std::string which = "part " + std::to_string(number);
  std::vector<std::pair<std::string_view, std::string>> fields;
  while (!headers.empty()) {
    const std::size_t end = headers.find("\r\n");
    const std::string_view line = headers.substr(0, end);
    headers = end == std::string_view::npos ? std::string_view() : headers.substr(end + 2);
    if (line.empty()) continue;
    if (is_lwsp(line.front()) && !fields.empty()) {  // an old-style folded continuation
      fields.back().second += ' ';  // appended: GCC 12 warns falsely on " " + ... (util/concat.hpp)
      fields.back().second += trim_lwsp(line);
      continue;
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos)
      return which + " has a header line without a colon: \"" + std::string(line.substr(0, 80)) +
             "\"";
    fields.emplace_back(trim_lwsp(line.substr(0, colon)),
                        std::string(trim_lwsp(line.substr(colon + 1))));
  }
  bool has_disposition = false;
  part.content_type = "text/plain";
  for (const auto& [name, value] : fields) {
    if (same_ignoring_case(name, "Content-Type")) part.content_type = value;
    if (!same_ignoring_case(name, "Content-Disposition") || has_disposition) continue;
    has_disposition = true;
    const auto disposition = split_structured(value);
    if (!disposition) return which + "'s Content-Disposition has an unterminated quoted string";
    if (!same_ignoring_case(disposition->token, "form-data"))
      return which + " is not form-data (Content-Disposition: " + value + ")";
    if (const std::string* name_value = parameter_named(*disposition, "name"))
      part.name = *name_value;
    if (const std::string* filename = parameter_named(*disposition, "filename"))
      part.filename = *filename;
  }
  if (!has_disposition) return which + " has no Content-Disposition header";
  if (part.name.empty()) return which + " has no name in its Content-Disposition";
  return {};
}

}  // namespace

bool is_form_data(std::string_view content_type) {
  return same_ignoring_case(trim_lwsp(content_type.substr(0, content_type.find(';'))),
                            "multipart/form-data");
}

std::optional<std::string> form_boundary(std::string_view content_type) {
  if (!is_form_data(content_type)) return std::nullopt;
  const auto value = split_structured(content_type);
  if (!value) return std::nullopt;
  const std::string* boundary = parameter_named(*value, "boundary");
  if (!boundary || boundary->empty() || boundary->size() > kMaxBoundary) return std::nullopt;
  return *boundary;
}

std::variant<std::vector<FormPart>, std::string> parse_form_data(std::string_view body,
                                                                 std::string_view boundary) {
  if (boundary.empty() || boundary.size() > kMaxBoundary)
    return "the boundary must be 1 to 70 characters";
  const std::string delimiter = "\r\n--" + std::string(boundary);
  // Without a preamble the first delimiter opens the body, with no CRLF before it. `at` is
  // where a "--" boundary starts.
  const std::string_view dash_boundary = std::string_view(delimiter).substr(2);
  std::size_t at = std::string_view::npos;
  if (body.starts_with(dash_boundary) && ends_delimiter(body, dash_boundary.size()))
    at = 0;
  else if (const std::size_t found = find_delimiter(body, 0, delimiter);
           found != std::string_view::npos)
    at = found + 2;
  if (at == std::string_view::npos)
    return "no delimiter line --" + std::string(boundary) + " opens the body";

  std::vector<FormPart> parts;
  for (;;) {
    at += dash_boundary.size();
    if (body.substr(at, 2) == "--") return parts;  // the closing delimiter; the epilogue follows
    at = body.find("\r\n", at) + 2;                // past the padding find_delimiter allowed
    if (parts.size() == max_form_parts)
      return "more than " + std::to_string(max_form_parts) + " parts";
    const std::size_t next = find_delimiter(body, at, delimiter);
    if (next == std::string_view::npos)
      return "the body ends before its closing delimiter --" + std::string(boundary) + "--";
    std::string_view part_text = body.substr(at, next - at);
    // Headers, an empty line, then the content; a part may have no headers (it starts with the
    // empty line) or no content (its headers run up to the delimiter).
    std::string_view headers = part_text;
    std::string_view content;
    if (part_text.starts_with("\r\n")) {
      headers = {};
      content = part_text.substr(2);
    } else if (const std::size_t blank = part_text.find("\r\n\r\n");
               blank != std::string_view::npos) {
      headers = part_text.substr(0, blank);
      content = part_text.substr(blank + 4);
    }
    if (headers.size() > kMaxPartHeaders)
      return "part " + std::to_string(parts.size() + 1) + "'s headers pass " +
             std::to_string(kMaxPartHeaders) + " bytes";
    FormPart part;
    if (std::string error = read_part_headers(headers, parts.size() + 1, part); !error.empty())
      return error;
    part.body = content;
    parts.push_back(std::move(part));
    at = next + 2;
  }
}

}  // namespace ironhold::sim::redfish
