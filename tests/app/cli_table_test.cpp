#include <catch2/catch.hpp>
#include <string>

#include "app/cli/table.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace cli_table_test {

using ironhold::cli::display_width;
using ironhold::cli::render_fields;
using ironhold::cli::Table;
using ironhold::cli::terminal_safe;

TEST_CASE("table: columns align, empty cells show -, no trailing spaces", "[cli][table]") {
  Table t({"NAME", "HEALTH", "NOTE"});
  t.add_row({"gpu-a01", "ok", "x"});
  t.add_row({"b", "", ""});
  t.add_row({"c"});  // short rows are padded
  CHECK(t.rows() == 3);
  CHECK(t.render() ==
        "NAME     HEALTH  NOTE\n"
        "gpu-a01  ok      x\n"
        "b        -       -\n"
        "c        -       -\n");
}

TEST_CASE("table: an empty table is its header line", "[cli][table]") {
  CHECK(Table({"A", "B"}).render() == "A  B\n");
}

TEST_CASE("table: width counts UTF-8 characters, not bytes", "[cli][table]") {
  CHECK(display_width("n\xC3\xBC") == 2);
  Table t({"N", "X"});
  t.add_row({"n\xC3\xBC\xC3\xBC", "1"});
  t.add_row({"abcd", "2"});
  CHECK(t.render() == "N     X\nn\xC3\xBC\xC3\xBC   1\nabcd  2\n");
}

TEST_CASE("table: too many cells is a programming error", "[cli][table]") {
  Table t({"A"});
  CHECK_THROWS_AS(t.add_row({"1", "2"}), std::logic_error);
}

TEST_CASE("table: values from the server cannot drive the terminal", "[cli][table]") {
  CHECK(terminal_safe("a\x1b[31mred\x07") == "a?[31mred?");
  CHECK(terminal_safe("line1\nline2\tx\r") == "line1 line2 x ");
  CHECK(terminal_safe("csi\xC2\x9B"
                      "2J") == "csi?2J");
  CHECK(terminal_safe("caf\xC3\xA9") == "caf\xC3\xA9");
  Table t({"NAME"});
  t.add_row({"evil\x1b]0;title\x07"});
  CHECK(t.render() == "NAME\nevil?]0;title?\n");
}

TEST_CASE("table: key/value view aligns values", "[cli][table]") {
  CHECK(render_fields({{"Name", "gpu-a01"}, {"Asset tag", ""}, {"ID", "42"}}) ==
        "Name:       gpu-a01\n"
        "Asset tag:  -\n"
        "ID:         42\n");
}

}  // namespace cli_table_test
