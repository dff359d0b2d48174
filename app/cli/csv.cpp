#include "app/cli/csv.hpp"

#include "inventory/error.hpp"

namespace ironhold::cli {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

}  // namespace

CsvReader::CsvReader(std::string_view text) : text_(text) {
  if (text_.substr(0, kBom.size()) == kBom) text_.remove_prefix(kBom.size());
}

std::optional<CsvRecord> CsvReader::next() {
  // Consumes one line end (CRLF, LF or a lone CR) at pos_, if there is one.
  auto take_line_end = [this]() {
    if (pos_ >= text_.size()) return false;
    if (text_[pos_] == '\r') {
      ++pos_;
      if (pos_ < text_.size() && text_[pos_] == '\n') ++pos_;
    } else if (text_[pos_] == '\n') {
      ++pos_;
    } else {
      return false;
    }
    ++line_;
    return true;
  };

  // Blank lines carry no record; spreadsheets often leave a few at the end.
  while (take_line_end()) {
  }
  if (pos_ >= text_.size()) return std::nullopt;

  CsvRecord record{.line = line_, .fields = {}};
  std::string field;
  while (true) {
    if (pos_ < text_.size() && text_[pos_] == '"') {
      const std::size_t opened_at = line_;
      ++pos_;
      while (true) {
        if (pos_ >= text_.size())
          throw invalid("line " + std::to_string(opened_at) +
                        ": a quoted field is not closed (missing \")");
        const char c = text_[pos_++];
        if (c == '"') {
          if (pos_ < text_.size() && text_[pos_] == '"') {
            field += '"';
            ++pos_;
            continue;
          }
          break;
        }
        // Line ends inside quotes are data, but still count for line numbers in messages.
        if (c == '\n' || (c == '\r' && (pos_ >= text_.size() || text_[pos_] != '\n'))) ++line_;
        field += c;
      }
      if (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\r' && text_[pos_] != '\n')
        throw invalid("line " + std::to_string(line_) +
                      ": unexpected text after a closing quote (a quote inside a quoted field "
                      "must be doubled: \"\")");
    } else {
      // An unquoted field runs to the next comma or line end; a stray quote in it is kept as
      // data, as spreadsheets do, instead of rejecting the file.
      while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\r' &&
             text_[pos_] != '\n')
        field += text_[pos_++];
    }
    record.fields.push_back(std::move(field));
    field.clear();
    if (pos_ < text_.size() && text_[pos_] == ',') {
      ++pos_;
      continue;
    }
    take_line_end();
    return record;
  }
}

CsvDocument read_csv(std::string_view text, std::string_view source) {
  CsvReader reader(text);
  CsvDocument doc;
  auto next = [&]() {
    try {
      return reader.next();
    } catch (const Error& e) {
      throw invalid(std::string(source) + " " + e.what());
    }
  };
  auto header = next();
  if (!header) throw invalid(std::string(source) + " is empty: expected a header row");
  doc.header = std::move(header->fields);
  while (auto rec = next()) {
    if (rec->fields.size() != doc.header.size()) {
      throw invalid(std::string(source) + " line " + std::to_string(rec->line) + " has " +
                    std::to_string(rec->fields.size()) + " fields but the header has " +
                    std::to_string(doc.header.size()) +
                    " (a value containing a comma must be quoted)");
    }
    doc.rows.push_back(std::move(*rec));
  }
  return doc;
}

}  // namespace ironhold::cli
