// The --config file every `ironhold` command reads: the TOML subset it parses, the errors it gives
// (file and line, never a value), and how its values rank against flags, environment and defaults
// in cli::Args. tests/app/serve_config_test.cpp runs the real binary from a file.
#include "app/cli/config_file.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "app/cli/args.hpp"
#include "tests/support/test_cluster.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace config_file_test {

using ironhold::cli::Args;
using ironhold::cli::config_values;
using ironhold::cli::ConfigEntry;
using ironhold::cli::ConfigFile;
using ironhold::cli::Option;
using ironhold::cli::parse_config;
using ironhold::cli::UsageError;
using ironhold::test::TempDir;

namespace {

std::string parse_error(std::string_view text) {
  try {
    parse_config(text, "f.toml");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

std::vector<Option> options() {
  return {
      {.name = "listen",
       .help = "Address.",
       .env = "IRONHOLD_CFGTEST_LISTEN",
       .default_value = "127.0.0.1:8080",
       .value_name = "HOST:PORT"},
      {.name = "tls-cert", .help = "Cert.", .value_name = "FILE"},
      {.name = "token", .help = "Token.", .env = "IRONHOLD_CFGTEST_TOKEN"},
      {.name = "tag", .short_name = 't', .repeatable = true, .help = "Tag."},
      {.name = "no-poller", .takes_value = false, .help = "No poller."},
      {.name = "verbose",
       .takes_value = false,
       .help = "Verbose.",
       .env = "IRONHOLD_CFGTEST_VERBOSE"},
      {.name = "threads", .help = "Threads.", .default_value = "4", .value_name = "N"},
  };
}

std::vector<std::vector<std::string>> values_for(std::string_view text, std::string_view command) {
  const auto opts = options();
  return config_values(parse_config(text, "f.toml"), command, opts);
}

std::string values_error(std::string_view text, std::string_view command = "ironhold serve") {
  try {
    values_for(text, command);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

using Strings = std::vector<std::string>;

// A file in a directory of its own, removed with it.
struct ConfigOnDisk {
  TempDir dir{"ih-config"};
  std::string path;
  explicit ConfigOnDisk(const std::string& text) : path((dir.path() / "ironhold.toml").string()) {
    std::ofstream(path) << text;
  }
};

Args parsed(std::vector<std::string> argv, std::string command = "ironhold serve") {
  Args a(std::move(command), "", "Test.", options());
  a.parse(argv);
  return a;
}

void clear_env() {
  for (const char* name : {"IRONHOLD_CFGTEST_LISTEN", "IRONHOLD_CFGTEST_TOKEN",
                           "IRONHOLD_CFGTEST_VERBOSE", "IRONHOLD_CONFIG"})
    ::unsetenv(name);
}

}  // namespace

TEST_CASE("config: strings with escapes, literal strings, integers, booleans, lists", "[config]") {
  const ConfigFile f = parse_config(
      "\xEF\xBB\xBF# Ironhold\r\n"
      "\n"
      "   # indented comment\n"
      "a = \"x\\\\y\\\"z\\n\\t\\u00e9\\U0001F600\"  # after a value\n"
      "b = 'C:\\path\\no \"escapes\"'\n"
      "c = 1_000\n"
      "d = -42\n"
      "e = +7\n"
      "f = true\n"
      "g=false\n"
      "h = [\"a\", 'b', 3]\n"
      "i = [\n"
      "  \"x\",  # one\n"
      "  # between\n"
      "  \"y\",\n"
      "]\n"
      "j = []\n"
      "tls_cert = \"\"\n"
      "[serve]\n"
      "k = 0\n"
      "[ node . list ]\n"
      "l = \"\"\n",
      "f.toml");
  REQUIRE(f.path == "f.toml");
  REQUIRE(f.entries.size() == 13);
  const auto& e = f.entries;
  CHECK(e[0].key == "a");
  CHECK(e[0].type == ConfigEntry::Type::string);
  CHECK(e[0].values == Strings{"x\\y\"z\n\t\xC3\xA9\xF0\x9F\x98\x80"});
  CHECK(e[0].line == 4);
  CHECK(e[0].section.empty());
  CHECK(e[1].values == Strings{"C:\\path\\no \"escapes\""});
  CHECK(e[2].type == ConfigEntry::Type::integer);
  CHECK(e[2].values == Strings{"1000"});
  CHECK(e[3].values == Strings{"-42"});
  CHECK(e[4].values == Strings{"7"});
  CHECK(e[5].type == ConfigEntry::Type::boolean);
  CHECK(e[5].values == Strings{"true"});
  CHECK(e[6].values == Strings{"false"});
  CHECK(e[7].type == ConfigEntry::Type::list);
  CHECK(e[7].values == Strings{"a", "b", "3"});
  CHECK(e[8].values == Strings{"x", "y"});
  CHECK(e[8].line == 12);
  CHECK(e[9].type == ConfigEntry::Type::list);
  CHECK(e[9].values.empty());
  CHECK(e[10].key == "tls_cert");
  CHECK(e[10].name == "tls-cert");
  CHECK(e[10].values == Strings{""});
  CHECK(e[11].section == "serve");
  CHECK(e[11].line == 20);
  CHECK(e[12].section == "node.list");
  CHECK(parse_config("[ node . list ]\nl = 1", "f").entries[0].section == "node.list");
  CHECK(parse_config("", "f").entries.empty());
  CHECK(parse_config("# only a comment", "f").entries.empty());
}

TEST_CASE("config: syntax errors name the file and the line", "[config]") {
  CHECK(parse_error("a = 1\nb\n") ==
        "f.toml:2: expected key = value, a [section] or a # comment (keys are option names)");
  CHECK(parse_error("= 1") ==
        "f.toml:1: expected key = value, a [section] or a # comment (keys are option names)");
  CHECK(parse_error("\"quoted\" = 1") ==
        "f.toml:1: expected key = value, a [section] or a # comment (keys are option names)");
  CHECK(parse_error("a.b = 1") ==
        "f.toml:1: dotted keys are not supported; use a [section] per command");
  CHECK(parse_error("a =\n") == "f.toml:1: key a has no value");
  CHECK(parse_error("\n\na = \"open\n") == "f.toml:3: key a: unterminated string");
  CHECK(parse_error("a = 'open") == "f.toml:1: key a: unterminated string");
  CHECK(parse_error("a = \"\\q\"").starts_with("f.toml:1: key a: unknown escape in a string"));
  CHECK(parse_error("a = \"\\u12\"") == "f.toml:1: key a: \\u needs 4 and \\U 8 hex digits");
  CHECK(parse_error("a = \"\\uD800\"") == "f.toml:1: key a: an escape names no Unicode character");
  CHECK(parse_error("a = \"x\x01y\"") ==
        "f.toml:1: key a: a control character in a string (write it as an escape)");
  CHECK(parse_error("a = \"\"\"x\"\"\"") ==
        "f.toml:1: key a: multi-line strings are not supported");
  CHECK(parse_error("a = 1.5").starts_with("f.toml:1: key a: not a value;"));
  CHECK(parse_error("a = 012").starts_with("f.toml:1: key a: not a value;"));
  CHECK(parse_error("a = 1__0").starts_with("f.toml:1: key a: not a value;"));
  CHECK(parse_error("a = 99999999999999999999").starts_with("f.toml:1: key a: not a value;"));
  CHECK(parse_error("a = yes").starts_with("f.toml:1: key a: not a value;"));
  CHECK(parse_error("a = 127.0.0.1:8080").starts_with("f.toml:1: key a: not a value;"));
  CHECK(parse_error("a = 1 2") == "f.toml:1: unexpected text after the value of key a");
  CHECK(parse_error("a = \"x\" y") == "f.toml:1: unexpected text after the value of key a");
  CHECK(parse_error("a = {b = 1}").starts_with("f.toml:1: key a: tables are not supported"));
  CHECK(parse_error("a = [[1]]") == "f.toml:1: key a: lists of lists are not supported");
  CHECK(parse_error("a = [true]") == "f.toml:1: key a: a list holds strings or integers");
  CHECK(parse_error("a = [\"x\"\n\"y\"]") == "f.toml:2: key a: expected , or ] in the list");
  CHECK(parse_error("a = [\n\"x\",\n") == "f.toml:3: key a: unterminated list");
  CHECK(parse_error("[serve") == "f.toml:1: unterminated section header");
  CHECK(parse_error("[]").starts_with("f.toml:1: a section header names a command"));
  CHECK(parse_error("[a..b]").starts_with("f.toml:1: a section header names a command"));
  CHECK(parse_error("[[serve]]") == "f.toml:1: arrays of tables ([[...]]) are not supported");
  CHECK(parse_error("[serve] x") == "f.toml:1: unexpected text after the section header [serve]");
  CHECK(parse_error("[serve]\n[demo]\n[serve]") ==
        "f.toml:3: section [serve] appears twice (first on line 1)");
  CHECK(parse_error("a = 1\na = 2") ==
        "f.toml:2: key a is set twice at the top level (first on line 1)");
  CHECK(parse_error("[serve]\ntls-cert = 'a'\ntls_cert = 'b'") ==
        "f.toml:3: key tls_cert is set twice in [serve] (first on line 2)");
  // The same key in different sections is fine.
  CHECK(parse_error("a = 1\n[serve]\na = 2") == "no error");
}

TEST_CASE("config: errors never quote a value", "[config]") {
  const std::string secret = "hunter2-Sekr1t";
  const std::vector<std::string> files = {
      "token = \"" + secret,                   // unterminated
      "token = '" + secret + "\n'",            // newline in a literal
      "token = " + secret,                     // unquoted
      "token = \"" + secret + "\\q\"",         // bad escape
      "token = \"" + secret + "\" " + secret,  // text after the value
      secret,                                  // a line that is only a secret
      secret + "! = 1",                        // ... or used as a key with odd characters
      "x." + secret + " = 1",                  // ... or in a dotted key
      "[serve]\ntokn = \"" + secret + "\"",    // unknown key in the command's own section
      "no-poller = \"" + secret + "\"",        // a string for a flag
      "token = true",                          // a boolean for a value (no secret, but checked)
      "listen = [\"" + secret + "\"]",         // a list for a single value
      "token = [\"" + secret + "\" \"x\"]",    // bad list
      "token = {x = \"" + secret + "\"}",      // a table
  };
  for (const auto& text : files) {
    std::string message;
    try {
      values_for(text, "ironhold serve");
    } catch (const UsageError& e) {
      message = e.what();
    }
    INFO(text);
    INFO(message);
    CHECK(message.starts_with("f.toml:"));
    CHECK(message.find("Sekr1t") == std::string::npos);
  }
}

TEST_CASE("config: values for a command from the top level and its sections", "[config]") {
  const std::string text =
      "listen = '0.0.0.0:1'\n"
      "tag = 'top'\n"
      "url = 'http://x'        # unknown to serve: another command's key\n"
      "no-poller = true\n"
      "[serve]\n"
      "listen = '0.0.0.0:2'\n"
      "tag = ['s1', 's2']\n"
      "no_poller = false       # false: not set, and it beats the top level\n"
      "threads = 8\n"
      "[node]\n"
      "listen = '0.0.0.0:3'\n"
      "bogus = 1               # [node] is not `ironhold node list`'s own section\n"
      "[node.list]\n"
      "tag = []\n"
      "[demo]\n"
      "anything = 'goes'\n";
  const auto serve = values_for(text, "ironhold serve");
  CHECK(serve[0] == Strings{"0.0.0.0:2"});
  CHECK(serve[1].empty());
  CHECK(serve[3] == Strings{"s1", "s2"});
  CHECK(serve[4].empty());
  CHECK(serve[6] == Strings{"8"});

  const auto list = values_for(text, "ironhold node list");
  CHECK(list[0] == Strings{"0.0.0.0:3"});  // [node] over the top level
  CHECK(list[3].empty());                  // an empty list sets nothing
  CHECK(list[4] == Strings{"true"});       // from the top level

  const auto other = values_for(text, "ironhold user add");
  CHECK(other[0] == Strings{"0.0.0.0:1"});
  CHECK(other[3] == Strings{"top"});  // a single value for a repeatable option

  CHECK(ironhold::cli::config_sections("ironhold node list") == Strings{"node", "node.list"});
  CHECK(ironhold::cli::config_sections("ironhold serve") == Strings{"serve"});
}

TEST_CASE("config: an unknown key in the command's own section, and wrong types, are refused",
          "[config]") {
  CHECK(values_error("[serve]\n\ntls-crt = 'x'") ==
        "f.toml:3: unknown key tls-crt in [serve]: ironhold serve has no option --tls-crt");
  CHECK(values_error("[node.list]\nbogus = 1", "ironhold node list") ==
        "f.toml:2: unknown key bogus in [node.list]: ironhold node list has no option --bogus");
  CHECK(values_error("bogus = 1\n[node]\nbogus = 1\n[demo]\nbogus = 1", "ironhold node list") ==
        "no error");
  CHECK(values_error("listen = ['a', 'b']") ==
        "f.toml:1: key listen: --listen takes one value, not a list");
  CHECK(values_error("listen = true") ==
        "f.toml:1: key listen: --listen takes a HOST:PORT, not true or false (quote it if the "
        "word is meant)");
  CHECK(values_error("no-poller = 'yes'") ==
        "f.toml:1: key no-poller: --no-poller is a flag, set it to true or false");
  CHECK(values_error("no-poller = 1") ==
        "f.toml:1: key no-poller: --no-poller is a flag, set it to true or false");
  CHECK(values_error("threads = 16") == "no error");  // an integer for a value
  // Wrong types are checked wherever the key applies, but not in other commands' sections.
  CHECK(values_error("[demo]\nlisten = true") == "no error");
}

TEST_CASE("config: command line, then environment, then file, then default", "[config][args]") {
  clear_env();
  ConfigOnDisk file(
      "listen = '10.0.0.1:1'\n"
      "token = \"from-file\"\n"
      "tag = ['f1', 'f2']\n"
      "verbose = true\n"
      "[serve]\n"
      "tls_cert = '/etc/ironhold/cert.pem'\n");

  // Without a file: the default.
  CHECK(parsed({}).get("listen") == "127.0.0.1:8080");
  CHECK_FALSE(parsed({}).get("token"));

  auto a = parsed({"--config", file.path});
  CHECK(a.get("listen") == "10.0.0.1:1");
  CHECK(a.get("token") == "from-file");
  CHECK(a.get("tls-cert") == "/etc/ironhold/cert.pem");
  CHECK(a.all("tag") == Strings{"f1", "f2"});
  CHECK(a.get("tag") == "f2");
  CHECK(a.flag("verbose"));
  CHECK_FALSE(a.flag("no-poller"));
  CHECK(a.get("threads") == "4");  // the default where the file is silent
  CHECK_FALSE(a.given("listen"));  // given() is the command line only
  CHECK(a.get("config") == file.path);

  // The environment beats the file, the command line beats both.
  ::setenv("IRONHOLD_CFGTEST_LISTEN", "10.0.0.2:2", 1);
  ::setenv("IRONHOLD_CFGTEST_VERBOSE", "0", 1);
  auto b = parsed({"--config", file.path, "-t", "c1"});
  CHECK(b.get("listen") == "10.0.0.2:2");
  CHECK_FALSE(b.flag("verbose"));
  CHECK(b.all("tag") == Strings{"c1"});  // given values replace the file's list
  CHECK(parsed({"--config", file.path, "--listen", "10.0.0.3:3"}).get("listen") == "10.0.0.3:3");
  ::setenv("IRONHOLD_CFGTEST_LISTEN", "", 1);  // set but empty counts as unset
  CHECK(parsed({"--config", file.path}).get("listen") == "10.0.0.1:1");

  // IRONHOLD_CONFIG names the file; --config beats it, and --config= reads none.
  ::setenv("IRONHOLD_CONFIG", file.path.c_str(), 1);
  CHECK(parsed({}).get("token") == "from-file");
  CHECK_FALSE(parsed({"--config="}).get("token"));
  ConfigOnDisk other("token = 'other'\n");
  CHECK(parsed({"--config", other.path}).get("token") == "other");
  clear_env();
}

TEST_CASE("config: a missing file, a bad one, and --help", "[config][args]") {
  clear_env();
  TempDir dir("ih-config");
  const std::string missing = (dir.path() / "nope.toml").string();
  try {
    parsed({"--config", missing});
    FAIL("no error");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()) ==
          "cannot read the config file " + missing + ": No such file or directory");
  }
  ConfigOnDisk bad("[serve]\ntoken = 'ok'\nlisten = \"secret-value\n");
  try {
    parsed({"--config", bad.path});
    FAIL("no error");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()) == bad.path + ":3: key listen: unterminated string");
  }
  // --help works whatever the file says, and tells how the file names options.
  auto h = parsed({"--config", bad.path, "--help"});
  CHECK(h.help_requested());
  std::string help = h.help_text();
  INFO(help);
  const auto one_line = [](std::string text) {
    std::replace(text.begin(), text.end(), '\n', ' ');
    return text;
  };
  CHECK(help.find("    --config FILE") != std::string::npos);
  CHECK(help.find("[env: IRONHOLD_CONFIG]") != std::string::npos);
  CHECK(one_line(help).find("at the top level or under [serve]") != std::string::npos);
  CHECK(one_line(parsed({"--help"}, "ironhold node list").help_text())
            .find("under [node] or [node.list]") != std::string::npos);
  // A command cannot declare a --config of its own, nor can a file name another file.
  CHECK_THROWS_AS(Args("ironhold x", "", "", {{.name = "config", .help = "?"}}), std::logic_error);
  ConfigOnDisk nested("config = '/etc/other.toml'\n");
  CHECK_THROWS_WITH(parsed({"--config", nested.path}),
                    nested.path +
                        ":1: key config: a config file cannot name another; use --config or "
                        "IRONHOLD_CONFIG");
}

}  // namespace config_file_test
