#pragma once
// Human output: aligned columns for lists and aligned "Key: value" lines for one object. Every
// value is made terminal-safe first, because names, serials and errors come from BMC firmware and
// cloud APIs and may carry escape sequences or line breaks that would garble or hijack a terminal.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ironhold::cli {

// Control characters become '?' (tabs and line breaks a space), including the C1 controls that
// some terminals treat like ESC.
std::string terminal_safe(std::string_view text);
// Width on a terminal in columns, counting UTF-8 code points (wide CJK glyphs count as one).
std::size_t display_width(std::string_view utf8);

class Table {
 public:
  explicit Table(std::vector<std::string> headers);

  // A row with fewer cells than headers is padded with empty cells; more is a programming error.
  void add_row(std::vector<std::string> cells);
  std::size_t rows() const { return rows_.size(); }

  // Header line and rows, columns separated by two spaces, empty cells shown as "-", no trailing
  // spaces; every line ends with '\n'.
  std::string render() const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

// One object as "Key:  value" lines with the values aligned; an empty value is shown as "-".
std::string render_fields(const std::vector<std::pair<std::string, std::string>>& fields);

}  // namespace ironhold::cli
