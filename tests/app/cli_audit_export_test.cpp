// `ironhold audit verify|list` and `ironhold export` as a script runs them: the real binary against
// a real service. verify exits 0 on an intact chain and 1, naming the entry, on one edited in the
// database; export writes the file and its manifest beside it, and the file is what the manifest
// vouches for.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "inventory/crypto/primitives.hpp"
#include "inventory/util/concat.hpp"
#include "tests/app/cli_run.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace cli_audit_export_test {

#ifdef IRONHOLD_BINARY
using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;

namespace {

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

struct Setup {
  TestServer server;
  std::string admin = server.token("admin");

  Setup() {
    for (int i = 1; i <= 3; ++i) {
      const auto res =
          http_send(server.port(), "POST", "/api/v1/nodes",
                    {{"name", util::concat("gpu-0", std::to_string(i))},
                     {"driver", "redfish"},
                     {"endpoint", util::concat("https://127.0.0.2:", std::to_string(2000 + i))},
                     {"credentials", {{"username", "u"}, {"password", "p"}}}},
                    admin);
      REQUIRE(res.status == 201);
    }
  }

  Run cli(std::vector<std::string> args) {
    args.insert(args.end(), {"--url", server.url()});
    return run_cli(std::move(args), {{"IRONHOLD_TOKEN", admin}});
  }
};

}  // namespace

TEST_CASE("ironhold audit verify exits 0 on an intact chain and 1 on an edited entry",
          "[cli][audit]") {
  Setup s;
  const Run ok = s.cli({"audit", "verify"});
  INFO(ok.out << ok.err);
  CHECK(ok.status == 0);
  CHECK(contains(ok.out, "intact"));

  const Run listed = s.cli({"audit", "list", "--action", "POST *", "--output", "json"});
  REQUIRE(listed.status == 0);
  CHECK(json::parse(listed.out).size() == 3);
  const Run limited = s.cli({"audit", "list", "--limit", "2", "--output", "json"});
  REQUIRE(limited.status == 0);
  CHECK(json::parse(limited.out).size() == 2);
  const Run negative = s.cli({"audit", "list", "--limit", "-1"});
  CHECK(negative.status == 2);
  CHECK(contains(negative.err, "--limit"));

  s.server.database().execute(
      "ALTER TABLE audit_log DISABLE TRIGGER USER; UPDATE audit_log SET outcome = '500' WHERE seq "
      "= 2; "
      "ALTER TABLE audit_log ENABLE TRIGGER USER");
  const Run broken = s.cli({"audit", "verify"});
  INFO(broken.out << broken.err);
  CHECK(broken.status == 1);
  CHECK(contains(broken.out, "modified"));
  CHECK(contains(broken.out, "entry 2"));
  const Run as_json = s.cli({"audit", "verify", "--output", "json"});
  CHECK(as_json.status == 1);
  CHECK(json::parse(as_json.out)["problem"]["seq"] == 2);
}

TEST_CASE("ironhold export writes the file and its manifest, which vouches for it",
          "[cli][export]") {
  Setup s;
  const auto dir =
      std::filesystem::temp_directory_path() / ("ironhold-export-" + s.server.database().name());
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "assets.csv").string();
  const Run run = s.cli({"export", "assets", "--output", file});
  INFO(run.out << run.err);
  REQUIRE(run.status == 0);
  const std::string body = read_file(file);
  const json manifest = json::parse(read_file(file + ".manifest.json"));
  CHECK(manifest["rows"] == 3);
  CHECK(manifest["sha256"] == crypto::sha256_hex(body));
  CHECK(manifest["kind"] == "assets");
  CHECK(!std::filesystem::exists(file + ".partial"));

  const Run nd = s.cli({"export", "firmware", "--format", "ndjson"});
  CHECK(nd.status == 0);
  CHECK(nd.out.empty());  // nothing recorded yet: no firmware
  CHECK(contains(nd.err, "0 rows"));

  // As of a time before a node was retired: it is in that export, with the time in its manifest.
  const std::string before_retirement = s.server.database().execute(
      "SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')");
  REQUIRE(http_send(s.server.port(), "DELETE", "/api/v1/nodes/gpu-03", json(), s.admin).status ==
          204);
  const std::string then_file = (dir / "then.ndjson").string();
  const Run then = s.cli({"export", "assets", "--as-of", before_retirement, "--format", "ndjson",
                          "--output", then_file});
  INFO(then.out << then.err);
  REQUIRE(then.status == 0);
  const std::string then_body = read_file(then_file);
  CHECK(contains(then_body, "\"gpu-03\""));
  const json then_manifest = json::parse(read_file(then_file + ".manifest.json"));
  CHECK(then_manifest["rows"] == 3);
  CHECK(then_manifest.dump().find(before_retirement) != std::string::npos);
  const Run now = s.cli({"export", "assets", "--format", "ndjson"});
  REQUIRE(now.status == 0);
  CHECK_FALSE(contains(now.out, "\"gpu-03\""));
  CHECK(contains(now.out, "\"gpu-01\""));

  const Run bad = s.cli({"export", "assets", "--as-of", "yesterday"});
  CHECK(bad.status != 0);
  CHECK(contains(bad.err, "as_of"));
  // The command's own --output (a file) is the only one it has.
  const Run help = s.cli({"export", "assets", "--help"});
  CHECK(help.out.find("--output FILE") != std::string::npos);
  CHECK(help.out.find("--output FORMAT") == std::string::npos);
  std::filesystem::remove_all(dir);
}
#endif

}  // namespace cli_audit_export_test
