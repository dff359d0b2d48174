#include "web/stream/sse.hpp"

namespace ironhold::web::sse {
namespace {

// A field value must not hold a line break: one would end the field and start a bogus one.
void append_field(std::string& out, std::string_view name, std::string_view value) {
  out += name;
  out += ": ";
  for (const char c : value) out += (c == '\r' || c == '\n') ? ' ' : c;
  out += '\n';
}

// CRLF, LF and CR all end a line in the format; each line becomes a data: line.
void append_data(std::string& out, std::string_view data) {
  std::size_t start = 0;
  for (std::size_t i = 0; i <= data.size(); ++i) {
    if (i < data.size() && data[i] != '\r' && data[i] != '\n') continue;
    out += "data: ";
    out.append(data.substr(start, i - start));
    out += '\n';
    if (i + 1 < data.size() && data[i] == '\r' && data[i + 1] == '\n') ++i;
    start = i + 1;
  }
}

}  // namespace

std::string event(std::string_view id, std::string_view type, std::string_view data) {
  std::string out;
  out.reserve(data.size() + id.size() + type.size() + 32);
  append_field(out, "id", id);
  append_field(out, "event", type);
  append_data(out, data);
  out += '\n';
  return out;
}

std::string id_only(std::string_view id) {
  std::string out;
  if (id.empty()) {
    out = "id\n\n";  // a field without a colon has an empty value
    return out;
  }
  append_field(out, "id", id);
  out += '\n';
  return out;
}

std::string comment(std::string_view text) {
  std::string out;
  append_field(out, "", text);
  out += '\n';
  return out;
}

}  // namespace ironhold::web::sse
