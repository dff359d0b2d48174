// Exports over real HTTP against a real PostgreSQL: as of a past time they show the inventory as
// it was (a node retired since is there, a firmware upgraded since shows its old version, a moved
// node its old site); now they show it as it is; every export has a manifest that vouches for
// the exact bytes sent and is itself in the audit trail.
#include <catch2/catch.hpp>
#include <sstream>
#include <thread>

#include "inventory/crypto/primitives.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace export_routes_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

std::string enroll(TestServer& server, const std::string& token, const std::string& name,
                   const std::string& site) {
  static int port = 1000;
  const auto res = http_send(server.port(), "POST", "/api/v1/nodes",
                             {{"name", name},
                              {"driver", "redfish"},
                              {"endpoint", "https://127.0.0.2:" + std::to_string(++port)},
                              {"location", {{"site", site}}},
                              {"credentials", {{"username", "u"}, {"password", "p"}}}},
                             token);
  INFO(res.body);
  REQUIRE(res.status == 201);
  return res.json()["id"];
}

// The database's clock, between two changes: what `as_of` is compared with.
std::string database_now(TestServer& server) {
  std::this_thread::sleep_for(20ms);
  const std::string now = server.database().execute("SELECT rfc3339(clock_timestamp())");
  std::this_thread::sleep_for(20ms);
  return now;
}

std::vector<std::string> lines_of(const std::string& body) {
  std::vector<std::string> out;
  std::istringstream in(body);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

json ndjson(const std::string& body) {
  json rows = json::array();
  for (const auto& line : lines_of(body)) rows.push_back(json::parse(line));
  return rows;
}

json by_name(const json& rows, const char* key = "name") {
  json out = json::object();
  for (const auto& r : rows) out[r[key].get<std::string>()] = r;
  return out;
}

struct Fleet {
  TestServer server;
  std::string admin = server.token("admin");
  std::string auditor = server.token("auditor");
  std::string a, b;
  std::string before;  // a time before the changes

  Fleet() {
    a = enroll(server, admin, "gpu-a", "dc-1");
    b = enroll(server, admin, "gpu-b", "dc-1");
    server.database().execute(
        "INSERT INTO firmware_records (node_id, node_name, component, version) VALUES "
        "('" +
        a + "', 'gpu-a', 'BIOS', '1.0'), ('" + a +
        "', 'gpu-a', 'BMC', '5.1'), "
        "('" +
        b + "', 'gpu-b', 'BIOS', '1.0')");
    before = database_now(server);
    // Later: gpu-a's BIOS is upgraded and it moves; gpu-b is retired.
    server.database().execute(
        "UPDATE firmware_records SET valid_to = now() WHERE node_id = '" + a +
        "' AND component = 'BIOS' AND valid_to IS NULL; INSERT INTO firmware_records (node_id, "
        "node_name, component, version) VALUES ('" +
        a + "', 'gpu-a', 'BIOS', '2.0')");
    REQUIRE(http_send(server.port(), "PATCH", "/api/v1/nodes/gpu-a",
                      {{"location", {{"site", "dc-2"}}}}, admin)
                .status == 200);
    REQUIRE(http_send(server.port(), "DELETE", "/api/v1/nodes/gpu-b", json(), admin).status == 204);
  }

  HttpResult get(const std::string& target) { return http_get(server.port(), target, auditor); }
};

}  // namespace

TEST_CASE("an asset export as of a past time shows the nodes as they were", "[web][export]") {
  Fleet f;
  const auto then = f.get("/api/v1/export/assets?format=ndjson&as_of=" + url_encode(f.before));
  INFO(then.body);
  REQUIRE(then.status == 200);
  const json old_rows = by_name(ndjson(then.body));
  REQUIRE(old_rows.size() == 2);
  CHECK(old_rows["gpu-a"]["site"] == "dc-1");
  CHECK(old_rows["gpu-b"]["retired_at"].is_null());
  CHECK(old_rows["gpu-b"]["source"] == "bmc");

  const auto now = f.get("/api/v1/export/assets?format=ndjson");
  const json rows = by_name(ndjson(now.body));
  REQUIRE(rows.size() == 1);  // gpu-b is retired: not in service now
  CHECK(rows["gpu-a"]["site"] == "dc-2");
  const json with_retired =
      by_name(ndjson(f.get("/api/v1/export/assets?format=ndjson&lifecycle=retired").body));
  REQUIRE(with_retired.contains("gpu-b"));
  CHECK(with_retired["gpu-b"]["retired_at"].is_string());

  // Selectors apply to what the nodes were then.
  const auto at_site =
      f.get("/api/v1/export/assets?format=ndjson&site=dc-1&as_of=" + url_encode(f.before));
  CHECK(ndjson(at_site.body).size() == 2);
  CHECK(ndjson(f.get("/api/v1/export/assets?format=ndjson&site=dc-1").body).empty());
}

TEST_CASE("a firmware export as of a past time shows the versions then", "[web][export]") {
  Fleet f;
  const auto then = f.get("/api/v1/export/firmware?format=json&as_of=" + url_encode(f.before));
  INFO(then.body);
  REQUIRE(then.status == 200);
  const json old_rows = json::parse(then.body);
  REQUIRE(old_rows.size() == 3);
  for (const auto& r : old_rows)
    if (r["component"] == "BIOS") CHECK(r["version"] == "1.0");

  const json rows = json::parse(f.get("/api/v1/export/firmware?format=json").body);
  REQUIRE(rows.size() == 2);  // gpu-b is retired
  for (const auto& r : rows) {
    CHECK(r["node_name"] == "gpu-a");
    if (r["component"] == "BIOS") CHECK(r["version"] == "2.0");
  }
}

TEST_CASE("a CSV export has a header, one row per node and no cell a spreadsheet would run",
          "[web][export]") {
  TestServer server;
  const std::string admin = server.token("admin");
  enroll(server, admin, "gpu-x", "=HYPERLINK(\"http://evil\")");
  enroll(server, admin, "gpu-y", "+1");
  const auto res = http_get(server.port(), "/api/v1/export/assets", server.token("viewer"));
  REQUIRE(res.status == 200);
  CHECK(res.header("content-type").find("text/csv") == 0);
  const auto rows = lines_of(res.body);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].rfind("id,name,source,provider,driver,", 0) == 0);
  CHECK(res.body.find(",=HYPERLINK") == std::string::npos);
  CHECK(res.body.find("'=HYPERLINK") != std::string::npos);
  CHECK(res.body.find(",+1,") == std::string::npos);
}

TEST_CASE("an export's manifest vouches for the bytes sent and is audited", "[web][export]") {
  Fleet f;
  const auto res = f.get("/api/v1/export/firmware?as_of=" + url_encode(f.before));
  REQUIRE(res.status == 200);
  const std::string id = res.header("x-export-id");
  REQUIRE(!id.empty());
  const auto got = f.get("/api/v1/export/manifests/" + id);
  INFO(got.body);
  REQUIRE(got.status == 200);
  const json manifest = got.json();
  CHECK(manifest["state"] == "complete");
  CHECK(manifest["rows"] == 3);
  CHECK(manifest["sha256"] == crypto::sha256_hex(res.body));
  CHECK(manifest["kind"] == "firmware");
  CHECK(manifest["format"] == "csv");
  CHECK(manifest["parameters"]["as_of"] == f.before);
  CHECK(manifest["requested_by"] == "auditor-2");

  // The export is an audit entry, and the manifest holds the chain's head with it.
  const auto audit = f.get("/api/v1/audit?action=export.firmware").json()["items"];
  REQUIRE(audit.size() == 1);
  CHECK(audit[0]["target_id"] == id);
  CHECK(audit[0]["seq"] == manifest["audit_head"]["seq"]);

  // Someone else's manifest is not shown to a viewer; an unknown one is 404.
  CHECK(http_get(f.server.port(), "/api/v1/export/manifests/" + id, f.server.token("viewer"))
            .status == 404);
  CHECK(f.get("/api/v1/export/manifests/00000000-0000-0000-0000-000000000000").status == 404);
}

TEST_CASE("exports refuse what they cannot answer", "[web][export]") {
  TestServer server;
  const std::string token = server.token("viewer");
  CHECK(http_get(server.port(), "/api/v1/export/assets?as_of=last-week", token).status == 400);
  CHECK(http_get(server.port(), "/api/v1/export/assets?as_of=2999-01-01T00:00:00Z", token).status ==
        400);
  CHECK(http_get(server.port(), "/api/v1/export/assets?format=xlsx", token).status == 400);
  CHECK(http_get(server.port(), "/api/v1/export/assets?colour=red", token).status == 400);
  CHECK(http_get(server.port(), "/api/v1/export/firmware?health=purple", token).status == 400);
  CHECK(http_get(server.port(), "/api/v1/export/assets", std::nullopt).status == 401);
}

}  // namespace export_routes_test
