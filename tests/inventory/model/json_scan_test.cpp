// Reading JSON text without a tree (json_scan): compacting and finding a member, checked against
// nlohmann::json's parser on text laid out as PostgreSQL's jsonb writes it and other ways.
#include "inventory/model/json_scan.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

// This file's names, apart from those of the other test files compiled with it.
namespace json_scan_test {

using nlohmann::json;
namespace json_text = ironhold::json_text;

namespace {

// Inputs with every kind of value, strings that hold what the scanner looks for (quotes,
// backslashes, braces, commas, colons, spaces), and whitespace of every kind between tokens.
const char* const kDocuments[] = {
    R"({"a": 1, "b": [1, 2.5, -3e2, true, false, null], "c": {"d": "e"}})",
    R"({"tls": "insecure", "timeout_ms": 2500})",
    R"({"q": "say \"hi\", {not} [an] object: ok", "back\\slash": "\\", "u": "\u00e9\u0001"})",
    R"({"empty": {}, "none": [], "deep": [[[{"x": [{}]}]]], "s": " spaced  out "})",
    "{\n\t\"line\" :\r\n [ 1 ,\n 2 ] ,  \"last\"\t:\"end\"  }",
    R"({"unicode": "Société 🚀", "tab": "a\tb", "n": 0.125})",
    R"({})",
    R"([1, {"a": 2}, "three"])",
    R"("just a string, with: {braces}")",
    R"(12.50)",
    R"(null)",
};

std::string compact(std::string_view text) {
  std::string out = "kept|";
  json_text::append_compact(out, text);
  REQUIRE(out.rfind("kept|", 0) == 0);
  return out.substr(5);
}

// Whitespace outside strings: what compacting must have removed.
bool has_space_between_tokens(std::string_view text) {
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("compacted JSON parses to the same value and keeps no whitespace between tokens",
          "[json_text]") {
  for (const char* document : kDocuments) {
    INFO(document);
    const std::string out = compact(document);
    CHECK(json::parse(out) == json::parse(document));
    CHECK_FALSE(has_space_between_tokens(out));
  }
  // Strings keep their bytes, escapes included.
  CHECK(compact(R"({"k": "a \" b \\ c"})") == R"({"k":"a \" b \\ c"})");
}

TEST_CASE("a top-level member's text is the member's value", "[json_text]") {
  for (const char* document : kDocuments) {
    INFO(document);
    const json parsed = json::parse(document);
    if (!parsed.is_object()) {
      CHECK_FALSE(json_text::member(document, "a"));
      continue;
    }
    for (const auto& [key, value] : parsed.items()) {
      INFO(key);
      const auto text = json_text::member(document, key);
      if (key.find('\\') != std::string::npos) continue;  // keys with escapes are not looked up
      REQUIRE(text);
      CHECK(json::parse(*text) == value);
    }
    CHECK_FALSE(json_text::member(document, "no such key"));
  }
  // Only the top level: a nested member of that name is not the answer.
  CHECK_FALSE(json_text::member(R"({"outer": {"tls": "insecure"}})", "tls"));
  CHECK(json_text::member(R"({"outer": {"tls": 1}, "tls": "on"})", "tls") == R"("on")");
  // A key's name inside a string value is not a key.
  CHECK_FALSE(json_text::member(R"({"note": "\"tls\": \"insecure\""})", "tls"));
}

TEST_CASE("text that ends early or is not an object finds no member", "[json_text]") {
  CHECK_FALSE(json_text::member("", "a"));
  CHECK_FALSE(json_text::member(R"({"a")", "a"));
  CHECK_FALSE(json_text::member(R"({"a": )", "a"));
  CHECK_FALSE(json_text::member(R"({"a": "unterminated)", "a"));
  CHECK_FALSE(json_text::member(R"({"a": [1, 2)", "a"));
  CHECK_FALSE(json_text::member(R"({"b": 1 "a": 2})", "a"));
  CHECK(compact("") == "");
}

}  // namespace json_scan_test
