#pragma once
// CSV for auditors' spreadsheets: RFC 4180 (CRLF line ends, fields with a comma, quote or line
// break quoted, quotes doubled), UTF-8, and safe to open: a cell that a spreadsheet would take
// for a formula (starting with =, +, -, @, a tab or a carriage return) is prefixed with a single
// quote, so BMC- or user-supplied text can never run as one.
#include <span>
#include <string>
#include <string_view>

namespace ironhold::web {

std::string csv_field(std::string_view text);
// The fields as one record, ending in CRLF.
std::string csv_row(std::span<const std::string> fields);

}  // namespace ironhold::web
