#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "app/cli/csv.hpp"
#include "inventory/error.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace cli_csv_test {

using ironhold::cli::CsvReader;
using ironhold::cli::read_csv;
using Fields = std::vector<std::string>;

namespace {

std::vector<Fields> records(std::string_view text) {
  CsvReader reader(text);
  std::vector<Fields> out;
  while (auto r = reader.next()) out.push_back(r->fields);
  return out;
}

std::string error_of(std::string_view text) {
  try {
    read_csv(text, "nodes.csv");
  } catch (const ironhold::Error& e) {
    CHECK(e.kind() == ironhold::ErrorKind::invalid);
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("csv: plain fields, empty fields, LF and CRLF line ends", "[cli][csv]") {
  CHECK(records("a,b,c\n1,,3\n") == std::vector<Fields>{{"a", "b", "c"}, {"1", "", "3"}});
  CHECK(records("a,b\r\n1,2\r\n") == std::vector<Fields>{{"a", "b"}, {"1", "2"}});
  CHECK(records("a,b\r1,2") == std::vector<Fields>{{"a", "b"}, {"1", "2"}});  // old Mac CR
  CHECK(records("a,b\n1,2") == std::vector<Fields>{{"a", "b"}, {"1", "2"}});  // no final EOL
  CHECK(records("a,\n") == std::vector<Fields>{{"a", ""}});                   // trailing empty
  CHECK(records("").empty());
}

TEST_CASE("csv: quoted fields keep commas, doubled quotes and line breaks", "[cli][csv]") {
  CHECK(records("\"a,b\",\"say \"\"hi\"\"\",\"\"\n") ==
        std::vector<Fields>{{"a,b", "say \"hi\"", ""}});
  CHECK(records("name,pem\r\nx,\"-----BEGIN-----\r\nAAA\r\n-----END-----\"\r\ny,z\r\n") ==
        std::vector<Fields>{
            {"name", "pem"}, {"x", "-----BEGIN-----\r\nAAA\r\n-----END-----"}, {"y", "z"}});
  CHECK(records("\"17,3\"") == std::vector<Fields>{{"17,3"}});
}

TEST_CASE("csv: a UTF-8 byte order mark is dropped, other UTF-8 is kept", "[cli][csv]") {
  CHECK(records("\xEF\xBB\xBFname\nn\xC3\xBC\n") == std::vector<Fields>{{"name"}, {"n\xC3\xBC"}});
}

TEST_CASE("csv: blank lines are skipped, a stray quote in an unquoted field is data",
          "[cli][csv]") {
  CHECK(records("a\n\n\r\nb\n\n") == std::vector<Fields>{{"a"}, {"b"}});
  CHECK(records("5\" disk,x\n") == std::vector<Fields>{{"5\" disk", "x"}});
}

TEST_CASE("csv: records report the line they start on", "[cli][csv]") {
  CsvReader reader("h\n\"a\nb\"\n\nc\n");
  CHECK(reader.next()->line == 1);
  CHECK(reader.next()->line == 2);
  CHECK(reader.next()->line == 5);
  CHECK_FALSE(reader.next().has_value());
}

TEST_CASE("csv: broken quoting is an error naming the line", "[cli][csv]") {
  CHECK(error_of("a,b\n1,\"open\n2,3\n") ==
        "nodes.csv line 2: a quoted field is not closed (missing \")");
  CHECK(error_of("a,b\n\"x\"y,2\n")
            .starts_with("nodes.csv line 2: unexpected text after a "
                         "closing quote"));
}

TEST_CASE("csv: read_csv splits header and rows and rejects ragged rows", "[cli][csv]") {
  auto doc = read_csv("name,unit\r\nn1,7\r\nn2,\r\n", "nodes.csv");
  CHECK(doc.header == Fields{"name", "unit"});
  REQUIRE(doc.rows.size() == 2);
  CHECK(doc.rows[1].fields == Fields{"n2", ""});
  CHECK(doc.rows[1].line == 3);

  CHECK(error_of("name,unit\nn1,7,extra\n") ==
        "nodes.csv line 2 has 3 fields but the header has 2 (a value containing a comma must be "
        "quoted)");
  CHECK(error_of("name,unit\nn1,7\nn2\n").starts_with("nodes.csv line 3 has 1 fields"));
  CHECK(error_of("") == "nodes.csv is empty: expected a header row");
  CHECK(error_of("\xEF\xBB\xBF\n\n") == "nodes.csv is empty: expected a header row");
}

}  // namespace cli_csv_test
