#pragma once
// An RFC 4180 CSV reader for files people export from spreadsheets: quoted fields with embedded
// quotes (""), commas and newlines; CRLF, LF or CR line ends; a UTF-8 byte order mark; blank
// lines skipped. Structural errors carry the line number so the person can fix the file.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ironhold::cli {

struct CsvRecord {
  std::size_t line = 0;  // 1-based physical line where the record starts
  std::vector<std::string> fields;
};

class CsvReader {
 public:
  // The text must outlive the reader.
  explicit CsvReader(std::string_view text);

  // The next record, or nullopt at the end. Throws ironhold::Error (invalid), its message starting
  // "line N: ", on an unterminated quoted field or text after a closing quote.
  std::optional<CsvRecord> next();

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
};

struct CsvDocument {
  std::vector<std::string> header;
  std::vector<CsvRecord> rows;  // data rows only
};

// Reads a whole file with a header row. Every row must have as many fields as the header: a
// ragged row means the columns are shifted, so the file is rejected (ironhold::Error, invalid)
// rather than guessed at. `source` names the file in messages ("nodes.csv", "stdin").
CsvDocument read_csv(std::string_view text, std::string_view source);

}  // namespace ironhold::cli
