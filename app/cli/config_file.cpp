#include "app/cli/config_file.hpp"

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <utility>

namespace ironhold::cli {
namespace {

constexpr std::size_t kMaxFileSize = 1 << 20;

bool is_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// A TOML decimal integer ("-12", "+3", "1_000", not "012" nor "1__0"), normalised to what
// std::to_string would print; nullopt for anything else.
std::optional<std::string> normalise_integer(std::string_view token) {
  std::string digits;
  std::size_t i = 0;
  bool negative = false;
  if (i < token.size() && (token[i] == '+' || token[i] == '-')) negative = token[i++] == '-';
  if (i == token.size() || !is_digit(token[i])) return std::nullopt;
  if (token[i] == '0' && i + 1 < token.size()) return std::nullopt;  // leading zero
  for (; i < token.size(); ++i) {
    if (is_digit(token[i])) {
      digits += token[i];
    } else if (token[i] == '_' && i + 1 < token.size() && is_digit(token[i + 1]) &&
               is_digit(token[i - 1])) {
      continue;
    } else {
      return std::nullopt;
    }
  }
  const std::string text = (negative ? "-" : "") + digits;
  long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return std::to_string(value);
}

std::string describe_section(const std::string& section) {
  return section.empty() ? std::string("at the top level") : "in [" + section + "]";
}

struct Value {
  ConfigEntry::Type type = ConfigEntry::Type::string;
  std::vector<std::string> values;
};

// A cursor over the whole text rather than a line splitter, because a list may span lines.
class Parser {
 public:
  Parser(std::string_view text, std::string path) : text_(text), path_(std::move(path)) {
    if (text_.starts_with("\xEF\xBB\xBF")) pos_ = 3;  // a UTF-8 byte order mark
  }

  ConfigFile run() {
    ConfigFile file{.path = path_, .entries = {}};
    while (true) {
      skip_blanks();
      if (at_end()) break;
      const char c = peek();
      if (c == '\n') {
        newline();
      } else if (c == '#') {
        skip_comment();
      } else if (c == '[') {
        section_header();
      } else {
        file.entries.push_back(key_value());
      }
    }
    return file;
  }

 private:
  [[noreturn]] void fail_at(int line, const std::string& what) const {
    throw UsageError(path_ + ":" + std::to_string(line) + ": " + what);
  }
  [[noreturn]] void fail(const std::string& what) const { fail_at(line_, what); }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void newline() {
    ++pos_;
    ++line_;
  }
  // Spaces and tabs; a carriage return too, so that CRLF files read like LF ones.
  void skip_blanks() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\r')) ++pos_;
  }
  void skip_comment() {
    while (!at_end() && peek() != '\n') ++pos_;
  }
  // Blanks, newlines and comments: what may sit between a list's elements.
  void skip_space_in_list() {
    while (true) {
      skip_blanks();
      if (peek() == '#') {
        skip_comment();
      } else if (!at_end() && peek() == '\n') {
        newline();
      } else {
        return;
      }
    }
  }
  // After a header or a value only blanks and a comment may follow on the line.
  void end_line(const std::string& after) {
    skip_blanks();
    if (peek() == '#') skip_comment();
    if (at_end()) return;
    if (peek() != '\n') fail("unexpected text after " + after);
    newline();
  }

  std::string bare_key() {
    const std::size_t start = pos_;
    while (!at_end() && is_key_char(peek())) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  void section_header() {
    const int line = line_;
    ++pos_;  // '['
    if (peek() == '[') fail("arrays of tables ([[...]]) are not supported");
    std::vector<std::string> words;
    while (true) {
      skip_blanks();
      std::string word = bare_key();
      skip_blanks();
      if (word.empty())
        fail(
            "a section header names a command: words of letters, digits, - and _ joined by dots, "
            "as in [serve] or [node.list]");
      words.push_back(std::move(word));
      if (peek() == '.') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        break;
      }
      fail(at_end() || peek() == '\n' ? std::string("unterminated section header")
                                      : std::string("unexpected character in a section header"));
    }
    std::string name;
    for (const auto& w : words) name += (name.empty() ? "" : ".") + w;
    if (auto [it, inserted] = section_lines_.emplace(name, line); !inserted)
      fail("section [" + name + "] appears twice (first on line " + std::to_string(it->second) +
           ")");
    section_ = std::move(name);
    end_line("the section header [" + section_ + "]");
  }

  ConfigEntry key_value() {
    ConfigEntry entry;
    entry.line = line_;
    entry.section = section_;
    entry.key = bare_key();
    if (entry.key.empty())
      fail("expected key = value, a [section] or a # comment (keys are option names)");
    entry.name = entry.key;
    for (char& c : entry.name)
      if (c == '_') c = '-';
    skip_blanks();
    // Not naming the key: a line without "=" may be a pasted secret rather than a key.
    if (peek() == '.') fail("dotted keys are not supported; use a [section] per command");
    if (peek() != '=')
      fail("expected key = value, a [section] or a # comment (keys are option names)");
    ++pos_;
    skip_blanks();
    Value v = value(entry.key, false);
    entry.type = v.type;
    entry.values = std::move(v.values);
    end_line("the value of key " + entry.key);

    const auto where = std::make_pair(entry.section, entry.name);
    if (auto [it, inserted] = key_lines_.emplace(where, entry.line); !inserted)
      fail_at(entry.line, "key " + entry.key + " is set twice " + describe_section(entry.section) +
                              " (first on line " + std::to_string(it->second) + ")");
    return entry;
  }

  Value value(const std::string& key, bool in_list) {
    switch (peek()) {
      case '"':
        if (peek(1) == '"' && peek(2) == '"')
          fail("key " + key + ": multi-line strings are not supported");
        return {ConfigEntry::Type::string, {basic_string(key)}};
      case '\'':
        if (peek(1) == '\'' && peek(2) == '\'')
          fail("key " + key + ": multi-line strings are not supported");
        return {ConfigEntry::Type::string, {literal_string(key)}};
      case '[':
        if (in_list) fail("key " + key + ": lists of lists are not supported");
        return list(key);
      case '{':
        fail("key " + key +
             ": tables are not supported; an option takes a string, an integer, true or false, "
             "or a list");
      default:
        return bare_value(key);
    }
  }

  void check_string_char(const std::string& key, char c) const {
    if (c == '\n' || at_end()) fail("key " + key + ": unterminated string");
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7F)
      fail("key " + key + ": a control character in a string (write it as an escape)");
  }

  std::string basic_string(const std::string& key) {
    ++pos_;  // '"'
    std::string out;
    while (true) {
      const char c = peek();
      check_string_char(key, c);
      ++pos_;
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      const char e = peek();
      ++pos_;
      switch (e) {
        case '\\':
          out += '\\';
          break;
        case '"':
          out += '"';
          break;
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'u':
          out_codepoint(key, out, 4);
          break;
        case 'U':
          out_codepoint(key, out, 8);
          break;
        default:
          fail("key " + key +
               ": unknown escape in a string (the escapes are \\\\ \\\" \\n \\t \\r \\b \\f \\u "
               "\\U; or use a 'literal string')");
      }
    }
  }

  void out_codepoint(const std::string& key, std::string& out, int digits) {
    std::uint32_t cp = 0;
    for (int i = 0; i < digits; ++i) {
      const int d = hex_digit(peek());
      if (d < 0) fail("key " + key + ": \\u needs 4 and \\U 8 hex digits");
      cp = cp * 16 + static_cast<std::uint32_t>(d);
      ++pos_;
    }
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      fail("key " + key + ": an escape names no Unicode character");
    append_utf8(out, cp);
  }

  std::string literal_string(const std::string& key) {
    ++pos_;  // '\''
    const std::size_t start = pos_;
    while (true) {
      const char c = peek();
      check_string_char(key, c);
      if (c == '\'') break;
      ++pos_;
    }
    std::string out(text_.substr(start, pos_ - start));
    ++pos_;
    return out;
  }

  Value list(const std::string& key) {
    ++pos_;  // '['
    Value v{ConfigEntry::Type::list, {}};
    while (true) {
      skip_space_in_list();
      if (at_end()) fail("key " + key + ": unterminated list");
      if (peek() == ']') break;
      Value element = value(key, true);
      if (element.type == ConfigEntry::Type::boolean)
        fail("key " + key + ": a list holds strings or integers");
      v.values.push_back(std::move(element.values.front()));
      skip_space_in_list();
      if (at_end()) fail("key " + key + ": unterminated list");
      if (peek() == ',') {
        ++pos_;
      } else if (peek() != ']') {
        fail("key " + key + ": expected , or ] in the list");
      }
    }
    ++pos_;  // ']'
    return v;
  }

  // true, false or an integer: a run of characters up to a blank, a comma, a bracket, a comment.
  Value bare_value(const std::string& key) {
    const std::size_t start = pos_;
    while (!at_end()) {
      const char c = peek();
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ']' || c == '#')
        break;
      ++pos_;
    }
    const std::string_view token = text_.substr(start, pos_ - start);
    if (token.empty()) fail("key " + key + " has no value");
    if (token == "true" || token == "false")
      return {ConfigEntry::Type::boolean, {std::string(token)}};
    if (auto n = normalise_integer(token)) return {ConfigEntry::Type::integer, {*n}};
    fail("key " + key +
         ": not a value; strings need quotes (\"...\" or '...'), numbers are whole and decimal, "
         "booleans are true or false");
  }

  std::string_view text_;
  std::string path_;
  std::size_t pos_ = 0;
  int line_ = 1;
  std::string section_;
  std::map<std::string, int> section_lines_;
  std::map<std::pair<std::string, std::string>, int> key_lines_;
};

std::vector<std::string> command_words(std::string_view command) {
  if (command.starts_with("ironhold ")) command.remove_prefix(9);
  std::vector<std::string> words;
  std::size_t start = 0;
  while (start < command.size()) {
    auto end = command.find(' ', start);
    if (end == std::string_view::npos) end = command.size();
    if (end > start) words.emplace_back(command.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

// How many of the command's words a section names (0 for the top level), or nullopt when it
// names another command.
std::optional<std::size_t> specificity(const std::string& section,
                                       const std::vector<std::string>& sections) {
  if (section.empty()) return 0;
  for (std::size_t i = 0; i < sections.size(); ++i)
    if (sections[i] == section) return i + 1;
  return std::nullopt;
}

}  // namespace

ConfigFile parse_config(std::string_view text, std::string path) {
  return Parser(text, std::move(path)).run();
}

ConfigFile read_config_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read the config file " + path + ": " + std::strerror(errno));
  std::string text;
  char buffer[8192];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxFileSize)
      throw UsageError("the config file " + path + " is larger than 1 MiB");
  }
  if (in.bad()) throw UsageError("cannot read the config file " + path);
  return parse_config(text, path);
}

std::vector<std::string> config_sections(std::string_view command) {
  std::vector<std::string> sections;
  std::string name;
  for (const auto& word : command_words(command)) {
    name += (name.empty() ? "" : ".") + word;
    sections.push_back(name);
  }
  return sections;
}

std::vector<std::vector<std::string>> config_values(const ConfigFile& file,
                                                    std::string_view command,
                                                    std::span<const Option> options) {
  const auto sections = config_sections(command);
  const std::string own_section = sections.empty() ? std::string() : sections.back();
  const auto fail = [&](const ConfigEntry& e, const std::string& what) {
    throw UsageError(file.path + ":" + std::to_string(e.line) + ": " + what);
  };

  struct Chosen {
    const ConfigEntry* entry = nullptr;
    std::size_t specificity = 0;
  };
  std::vector<Chosen> chosen(options.size());
  for (const auto& e : file.entries) {
    const auto level = specificity(e.section, sections);
    if (!level) continue;
    std::size_t index = options.size();
    for (std::size_t i = 0; i < options.size(); ++i)
      if (options[i].name == e.name) index = i;
    if (index == options.size()) {
      // Only where the file speaks to this very command can we tell a typo from a key that is
      // meant for another command.
      if (!e.section.empty() && e.section == own_section)
        fail(e, "unknown key " + e.key + " in [" + e.section + "]: " + std::string(command) +
                    " has no option --" + e.name);
      continue;
    }
    const Option& opt = options[index];
    if (opt.name == "config")
      fail(e,
           "key " + e.key + ": a config file cannot name another; use --config or IRONHOLD_CONFIG");
    if (!opt.takes_value && e.type != ConfigEntry::Type::boolean)
      fail(e, "key " + e.key + ": --" + opt.name + " is a flag, set it to true or false");
    if (opt.takes_value && e.type == ConfigEntry::Type::boolean)
      fail(e, "key " + e.key + ": --" + opt.name + " takes a " + opt.value_name +
                  ", not true or false (quote it if the word is meant)");
    if (e.type == ConfigEntry::Type::list && !opt.repeatable)
      fail(e, "key " + e.key + ": --" + opt.name + " takes one value, not a list");
    if (!chosen[index].entry || *level >= chosen[index].specificity) chosen[index] = {&e, *level};
  }

  std::vector<std::vector<std::string>> values(options.size());
  for (std::size_t i = 0; i < options.size(); ++i) {
    const ConfigEntry* e = chosen[i].entry;
    if (!e) continue;
    if (e->type == ConfigEntry::Type::boolean) {
      if (e->values.front() == "true") values[i] = {"true"};
    } else {
      values[i] = e->values;
    }
  }
  return values;
}

}  // namespace ironhold::cli
