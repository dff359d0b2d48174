#include "web/csv_writer.hpp"

namespace ironhold::web {

std::string csv_field(std::string_view text) {
  std::string cell;
  if (!text.empty() && (text.front() == '=' || text.front() == '+' || text.front() == '-' ||
                        text.front() == '@' || text.front() == '\t' || text.front() == '\r'))
    cell = "'";
  cell += text;
  if (cell.find_first_of(",\"\r\n") == std::string::npos) return cell;
  std::string quoted = "\"";
  for (const char c : cell) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string csv_row(std::span<const std::string> fields) {
  std::string row;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) row += ',';
    row += csv_field(fields[i]);
  }
  return row + "\r\n";
}

}  // namespace ironhold::web
