#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/cli/args.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace cli_args_test {

using ironhold::cli::Args;
using ironhold::cli::Option;
using ironhold::cli::UsageError;

namespace {

Args make() {
  return Args("ironhold test", "NODE", "Does a test thing.",
              {
                  {.name = "url",
                   .help = "Server.",
                   .env = "IRONHOLD_TEST_URL",
                   .default_value = "http://127.0.0.1:8080",
                   .value_name = "URL"},
                  {.name = "output",
                   .short_name = 'o',
                   .help = "Format.",
                   .default_value = "table",
                   .value_name = "FORMAT"},
                  {.name = "tag", .short_name = 't', .repeatable = true, .help = "Tag."},
                  {.name = "purge", .short_name = 'p', .takes_value = false, .help = "Purge."},
                  {.name = "all", .short_name = 'a', .takes_value = false, .help = "All."},
                  {.name = "token", .help = "Token.", .env = "IRONHOLD_TEST_TOKEN"},
              });
}

Args parsed(std::vector<std::string> argv) {
  Args a = make();
  a.parse(argv);
  return a;
}

}  // namespace

TEST_CASE("args accept every spelling of an option's value", "[cli][args]") {
  CHECK(parsed({"--output=json"}).get("output") == "json");
  CHECK(parsed({"--output", "json"}).get("output") == "json");
  CHECK(parsed({"-o", "json"}).get("output") == "json");
  CHECK(parsed({"-ojson"}).get("output") == "json");
  CHECK(parsed({"--output="}).get("output") == "");         // an explicit empty value is a value
  CHECK(parsed({"--output", "-x"}).get("output") == "-x");  // the next word, whatever it is
}

TEST_CASE("args keep positionals in order, around options and after --", "[cli][args]") {
  auto a = parsed({"n1", "-p", "n2", "--", "--output", "-"});
  CHECK(a.positional() == std::vector<std::string>{"n1", "n2", "--output", "-"});
  CHECK(a.flag("purge"));
  CHECK(a.get("output") == "table");  // after "--" it was a positional, not an option
  CHECK(parsed({"-"}).positional() == std::vector<std::string>{"-"});
}

TEST_CASE("args: the last value wins, repeatable options keep every value", "[cli][args]") {
  auto a = parsed({"-o", "json", "--output", "table", "-t", "a=1", "--tag=b=2", "-tc=3"});
  CHECK(a.get("output") == "table");
  CHECK(a.all("tag") == std::vector<std::string>{"a=1", "b=2", "c=3"});
  CHECK(a.get("tag") == "c=3");
  CHECK(parsed({}).all("tag").empty());
}

TEST_CASE("args: boolean flags, bundled short flags", "[cli][args]") {
  auto a = parsed({"-pa"});
  CHECK(a.flag("purge"));
  CHECK(a.flag("all"));
  CHECK_FALSE(parsed({}).flag("purge"));
  auto b = parsed({"-pojson"});  // a value-taking option ends the bundle
  CHECK(b.flag("purge"));
  CHECK(b.get("output") == "json");
  CHECK(b.given("output"));
  CHECK_FALSE(b.given("url"));
}

TEST_CASE("args: errors name the bad option", "[cli][args]") {
  auto message = [](std::vector<std::string> argv) {
    try {
      parsed(std::move(argv));
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message({"--bogus"}) == "unknown option --bogus");
  CHECK(message({"--bogus=1"}) == "unknown option --bogus");
  CHECK(message({"-x"}) == "unknown option -x");
  CHECK(message({"-px"}) == "unknown option -x");
  CHECK(message({"--output"}) == "option --output needs a FORMAT");
  CHECK(message({"-o"}) == "option -o needs a FORMAT");
  CHECK(message({"--purge=yes"}) == "option --purge takes no value");
}

TEST_CASE("args: --help wins over other mistakes on the line", "[cli][args]") {
  CHECK(parsed({"--help"}).help_requested());
  CHECK(parsed({"-h"}).help_requested());
  CHECK(parsed({"--bogus", "--help"}).help_requested());
  CHECK(parsed({"-ph"}).help_requested());
  CHECK_FALSE(parsed({"--", "--help"}).help_requested());
  CHECK_FALSE(parsed({"n1"}).help_requested());
}

TEST_CASE("args: environment fallback, then default, a given value beats both", "[cli][args]") {
  ::unsetenv("IRONHOLD_TEST_URL");
  ::unsetenv("IRONHOLD_TEST_TOKEN");
  CHECK(parsed({}).get("url") == "http://127.0.0.1:8080");
  CHECK_FALSE(parsed({}).get("token").has_value());
  CHECK(parsed({}).value_or("token", "none") == "none");

  ::setenv("IRONHOLD_TEST_URL", "http://env:1", 1);
  ::setenv("IRONHOLD_TEST_TOKEN", "tok", 1);
  CHECK(parsed({}).get("url") == "http://env:1");
  CHECK(parsed({}).get("token") == "tok");
  CHECK(parsed({"--url", "http://flag:2"}).get("url") == "http://flag:2");

  ::setenv("IRONHOLD_TEST_URL", "", 1);  // set but empty counts as unset
  CHECK(parsed({}).get("url") == "http://127.0.0.1:8080");
  ::unsetenv("IRONHOLD_TEST_URL");
  ::unsetenv("IRONHOLD_TEST_TOKEN");
}

TEST_CASE("args: an undeclared name is a programming error", "[cli][args]") {
  CHECK_THROWS_AS(parsed({}).get("nope"), std::logic_error);
  CHECK_THROWS_AS(parsed({}).flag("nope"), std::logic_error);
}

TEST_CASE("args: help text shows usage, summary, options, env and defaults", "[cli][args]") {
  const std::string help = make().help_text();
  INFO(help);
  CHECK(help.starts_with("Usage: ironhold test [OPTIONS] NODE\n\nDoes a test thing.\n"));
  CHECK(help.find("-o, --output FORMAT") != std::string::npos);
  CHECK(help.find("    --url URL") != std::string::npos);
  CHECK(help.find("[default: http://127.0.0.1:8080] [env: IRONHOLD_TEST_URL]") !=
        std::string::npos);
  CHECK(help.find("(repeatable)") != std::string::npos);
  CHECK(help.find("-p, --purge  ") != std::string::npos);  // a flag shows no value name
  CHECK(help.find("-h, --help") != std::string::npos);
}

}  // namespace cli_args_test
