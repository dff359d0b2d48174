// CSV as RFC 4180 writes it, and cells a spreadsheet would run as formulas defused.
#include "web/csv_writer.hpp"

#include <catch2/catch.hpp>

// This file's names, apart from those of the other test files compiled with it.
namespace csv_writer_test {

using ironhold::web::csv_field;
using ironhold::web::csv_row;

TEST_CASE("CSV fields are quoted only when they must be, quotes doubled", "[web][csv]") {
  CHECK(csv_field("gpu-01") == "gpu-01");
  CHECK(csv_field("") == "");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
  CHECK(csv_field("ünïcode") == "ünïcode");
  const std::string fields[] = {"a", "b,c", ""};
  CHECK(csv_row(fields) == "a,\"b,c\",\r\n");
}

TEST_CASE("CSV cells that start like a formula are prefixed with a quote", "[web][csv]") {
  CHECK(csv_field("=HYPERLINK(\"http://x\")") == "\"'=HYPERLINK(\"\"http://x\"\")\"");
  CHECK(csv_field("+1") == "'+1");
  CHECK(csv_field("-2") == "'-2");
  CHECK(csv_field("@SUM(A1)") == "'@SUM(A1)");
  CHECK(csv_field("\tx") == "'\tx");
  CHECK(csv_field("1-2") == "1-2");
}

}  // namespace csv_writer_test
