#include "app/cli/table.hpp"

#include <algorithm>
#include <stdexcept>

namespace ironhold::cli {
namespace {

constexpr std::string_view kEmpty = "-";
constexpr std::string_view kGap = "  ";

void append_padded(std::string& out, std::string_view cell, std::size_t width, bool last) {
  out += cell;
  if (!last) out.append(width - display_width(cell), ' ');
}

}  // namespace

std::string terminal_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else if (c < 0x20 || c == 0x7F) {
      out += '?';
    } else if (c == 0xC2 && i + 1 < text.size() &&
               static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
      out += '?';  // U+0080..U+009F: C1 controls (U+009B is a one-byte CSI on some terminals)
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::size_t display_width(std::string_view utf8) {
  return static_cast<std::size_t>(std::count_if(utf8.begin(), utf8.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;  // skip continuation bytes
  }));
}

Table::Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}

void Table::add_row(std::vector<std::string> cells) {
  if (cells.size() > headers_.size())
    throw std::logic_error("table row has more cells than the table has columns");
  cells.resize(headers_.size());
  for (auto& cell : cells) cell = cell.empty() ? std::string(kEmpty) : terminal_safe(cell);
  rows_.push_back(std::move(cells));
}

std::string Table::render() const {
  std::vector<std::size_t> widths(headers_.size());
  for (std::size_t c = 0; c < headers_.size(); ++c) {
    widths[c] = display_width(headers_[c]);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], display_width(row[c]));
  }
  std::string out;
  auto emit = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) out += kGap;
      append_padded(out, cells[c], widths[c], c + 1 == cells.size());
    }
    out += '\n';
  };
  emit(headers_);
  for (const auto& row : rows_) emit(row);
  return out;
}

std::string render_fields(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::size_t width = 0;
  for (const auto& [key, value] : fields) width = std::max(width, display_width(key) + 1);
  std::string out;
  for (const auto& [key, value] : fields) {
    const std::string label = terminal_safe(key) + ":";
    out += label;
    out.append(width - display_width(label), ' ');
    out += kGap;
    out += value.empty() ? std::string(kEmpty) : terminal_safe(value);
    out += '\n';
  }
  return out;
}

}  // namespace ironhold::cli
