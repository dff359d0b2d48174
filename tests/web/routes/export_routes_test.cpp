// Exports over real HTTP against a real PostgreSQL: as of a past time they show the inventory as
// it was (a node retired since is there, a firmware upgraded since shows its old version, a moved
// node its old site); now they show it as it is; every export has a manifest that vouches for
// the exact bytes sent and is itself in the audit trail. Owned servers (a simulated Redfish BMC)
// and cloud instances (a simulated EC2) are exported side by side, as the node API shows them;
// exports run on a budget of their own, and one past it is refused while the API still answers.
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <pqxx/pqxx>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include "inventory/crypto/primitives.hpp"
#include "inventory/util/time.hpp"
#include "sim/cloud/ec2/ec2_simulator.hpp"
#include "sim/redfish/fleet.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/project_mockups.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/sse_client.hpp"
#include "tests/support/server/test_server.hpp"
#include "tests/web/poller/poller_helpers.hpp"

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

namespace {

namespace asio = boost::asio;

// A simulated EC2 on a thread of its own: its default instances become cloud nodes.
struct Ec2 {
  asio::io_context io;
  sim::cloud::ec2::Ec2Simulator sim{io};
  unsigned short port = sim.listen({asio::ip::make_address("127.0.0.1"), 0}).port();
  std::thread thread{[this] { io.run(); }};

  ~Ec2() {
    sim.close();
    io.stop();
    thread.join();
  }

  json account(const std::string& name) const {
    return {{"name", name},
            {"provider", "ec2"},
            {"endpoint", "http://127.0.0.1:" + std::to_string(port) + "/"},
            {"region", sim.options().region},
            {"credentials",
             {{"access_key_id", sim.options().access_key_id},
              {"secret_access_key", sim.options().secret_access_key}}}};
  }
};

// RFC 4180 read back: commas and line ends inside quotes are data, "" is a quote.
std::vector<std::vector<std::string>> csv_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      row.push_back(std::move(field));
      field.clear();
      rows.push_back(std::move(row));
      row.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  return rows;
}

// A CSV export's rows as objects keyed by its header's names.
json csv_records(const std::string& text) {
  const auto rows = csv_rows(text);
  json out = json::array();
  for (std::size_t r = 1; r < rows.size(); ++r) {
    REQUIRE(rows[r].size() == rows[0].size());
    json record = json::object();
    for (std::size_t i = 0; i < rows[0].size(); ++i) record[rows[0][i]] = rows[r][i];
    out.push_back(std::move(record));
  }
  return out;
}

// A JSON value as a CSV cell shows it: null is empty, a string itself, anything else its JSON.
std::string cell(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

SystemTime time_of(const json& v) {
  INFO(v.dump());
  REQUIRE(v.is_string());
  const auto t = parse_rfc3339(v.get<std::string>());
  REQUIRE(t);
  return *t;
}

std::string enroll_bmc(TestServer& server, const std::string& token, const std::string& name,
                       const std::string& endpoint) {
  const auto res = http_send(server.port(), "POST", "/api/v1/nodes",
                             {{"name", name},
                              {"driver", "redfish"},
                              {"endpoint", endpoint},
                              {"location", {{"site", "dc-7"}, {"rack", "r12"}, {"unit", 20}}},
                              {"credentials", {{"username", "admin"}, {"password", "password"}}}},
                             token);
  INFO(res.body);
  REQUIRE(res.status == 201);
  return res.json()["id"];
}

// What the node API says about a node, field by field, against its asset export row (JSON).
void check_asset_row(const json& row, const json& node) {
  INFO(row.dump() << "\n" << node.dump());
  CHECK(row["name"] == node["name"]);
  CHECK(row["source"] == node["source"]);
  CHECK(row["driver"] == node["driver"]);
  CHECK(row["cloud_account_id"] == node["cloud_account_id"]);
  CHECK(row["provider_id"] == node["provider_id"]);
  CHECK(row["site"] == node["location"]["site"]);
  CHECK(row["rack"] == node["location"]["rack"]);
  CHECK(row["unit"] == node["location"]["unit"]);
  for (const char* key : {"manufacturer", "model", "serial", "asset_tag"})
    CHECK(row[key] == node[key]);
  for (const char* key : {"cpu_count", "cpu_model", "gpu_count", "gpu_model", "drive_count"})
    CHECK(row[key] == node["hardware"][key]);
  CHECK(row["lifecycle"] == node["lifecycle"]);
  CHECK(row["first_seen"] == node["created_at"]);
  // The node is seen again after the export: what the export says was true then.
  const SystemTime last_seen = time_of(row["last_seen"]);
  CHECK(last_seen >= time_of(node["created_at"]));
  CHECK(last_seen <= time_of(node["last_seen"]));
}

// The same for a row of the CSV export.
void check_asset_cells(const json& row, const json& node) {
  INFO(row.dump() << "\n" << node.dump());
  CHECK(row["name"] == cell(node["name"]));
  CHECK(row["source"] == cell(node["source"]));
  CHECK(row["cloud_account_id"] == cell(node["cloud_account_id"]));
  CHECK(row["provider_id"] == cell(node["provider_id"]));
  CHECK(row["site"] == cell(node["location"]["site"]));
  CHECK(row["serial"] == cell(node["serial"]));
  for (const char* key : {"cpu_count", "gpu_count", "gpu_model"})
    CHECK(row[key] == cell(node["hardware"][key]));
  CHECK(row["lifecycle"] == cell(node["lifecycle"]));
  CHECK(row["first_seen"] == cell(node["created_at"]));
}

// A request made while exports are held: its answer, or an exception after a minute (a server
// that queued it behind them would otherwise hang the test).
struct Answer {
  int status = 0;
  std::string content_type;
  std::string body;
};

Answer answer(TestServer& server, const std::string& target, const std::string& token) {
  SseClient client(server.port(), target, token);
  Answer out{client.status(), client.header("content-type"), {}};
  out.body = client.read_body();
  return out;
}

// A firmware record as (component, version, since).
using FirmwareLine = std::tuple<std::string, std::string, std::string>;

FirmwareLine firmware_line(const json& r) {
  return {r["component"].get<std::string>(), r["version"].get<std::string>(),
          r["since"].get<std::string>()};
}

}  // namespace

TEST_CASE("owned servers and cloud instances are exported side by side as the node API shows them",
          "[web][export][e2e]") {
  sim::RedfishFleetOptions o;
  o.mockup_dir = project_mockup("hgx-gpu-server");
  sim::RedfishFleet fleet(o);
  fleet.start();
  Ec2 ec2;
  CloudSyncOptions sync;
  sync.idle_wait = 100ms;
  TestServer server({}, {}, fast_poller(), sync);
  const std::string admin = server.token("admin");
  const std::string auditor = server.token("auditor");
  const std::string owned = enroll_bmc(server, admin, "hgx-01", fleet.endpoint(0));
  REQUIRE(http_send(server.port(), "POST", "/api/v1/cloud-accounts", ec2.account("aws-lab"), admin)
              .status == 201);

  // The BMC inspected (its GPUs and firmware known), and the account's instances listed.
  const json inspected = wait_for_node(server, admin, owned, [](const json& n) {
    return n["lifecycle"] == "available" && n["hardware"]["gpu_count"].is_number();
  });
  REQUIRE(inspected["lifecycle"] == "available");
  REQUIRE(inspected["hardware"]["gpu_count"].get<int>() > 0);
  json firmware;
  REQUIRE(eventually([&] {
    firmware = http_get(server.port(), "/api/v1/nodes/" + owned + "/firmware", admin).json();
    return !firmware["items"].empty();
  }));
  REQUIRE(eventually([&] {
    return !http_get(server.port(), "/api/v1/nodes?source=cloud", admin).json()["items"].empty();
  }));
  const json account = http_get(server.port(), "/api/v1/cloud-accounts/aws-lab", admin).json();

  const auto as_json = http_get(server.port(), "/api/v1/export/assets?format=json", auditor);
  const auto as_csv = http_get(server.port(), "/api/v1/export/assets", auditor);
  REQUIRE(as_json.status == 200);
  REQUIRE(as_csv.status == 200);
  const json rows = by_name(json::parse(as_json.body), "id");
  const json cells = by_name(csv_records(as_csv.body), "id");

  // Every node the API lists, owned or cloud, is in both, as the API shows it.
  const json listed = http_get(server.port(), "/api/v1/nodes?limit=1000", admin).json()["items"];
  CHECK(rows.size() == listed.size());
  CHECK(cells.size() == listed.size());
  int cloud = 0;
  for (const auto& item : listed) {
    const std::string id = item["id"];
    const json node = http_get(server.port(), "/api/v1/nodes/" + id, admin).json();
    REQUIRE(rows.contains(id));
    REQUIRE(cells.contains(id));
    check_asset_row(rows[id], node);
    check_asset_cells(cells[id], node);
    if (node["source"] == "cloud") {
      ++cloud;
      CHECK(node["cloud_account_id"] == account["id"]);
      CHECK(rows[id]["provider"] == account["provider"]);
      CHECK(cells[id]["provider"] == account["provider"]);
    } else {
      CHECK(rows[id]["provider"].is_null());
      CHECK(cells[id]["provider"] == "");
    }
  }
  CHECK(cloud >= 1);
  CHECK(rows[owned]["source"] == "bmc");
  CHECK(rows[owned]["gpu_count"] == inspected["hardware"]["gpu_count"]);
  CHECK(rows[owned]["gpu_model"].is_string());

  // Firmware: each component of the owned server with its version and since when, as the
  // node's firmware route says; since is not in the future nor before the node was enrolled.
  std::multiset<FirmwareLine> expected;
  for (const auto& f : firmware["items"]) expected.insert(firmware_line(f));
  const auto fw_json = http_get(server.port(), "/api/v1/export/firmware?format=json", auditor);
  const auto fw_csv = http_get(server.port(), "/api/v1/export/firmware", auditor);
  REQUIRE(fw_json.status == 200);
  REQUIRE(fw_csv.status == 200);
  const auto now = std::chrono::system_clock::now();
  const SystemTime enrolled = time_of(inspected["created_at"]);
  std::multiset<FirmwareLine> from_json, from_csv;
  for (const auto& r : json::parse(fw_json.body)) {
    if (r["node_id"] != owned) continue;
    CHECK(r["node_name"] == "hgx-01");
    CHECK(r["source"] == "bmc");
    CHECK(time_of(r["since"]) <= now);
    CHECK(time_of(r["since"]) >= enrolled);
    from_json.insert(firmware_line(r));
  }
  for (const auto& r : csv_records(fw_csv.body))
    if (r["node_id"] == owned) from_csv.insert(firmware_line(r));
  CHECK(from_json == expected);
  CHECK(from_csv == expected);
}

TEST_CASE("an export past the budget is refused while the API answers, and the budget comes back",
          "[web][export]") {
  web::ServerOptions options;
  // The held exports below must outlast the checks made while they are held.
  options.write_timeout = 10min;
  TestServer server(options);
  // The test server keeps the service's default export pool.
  const int budget = app::ServiceConfig{}.export_connections;
  REQUIRE(budget >= 1);
  const std::string admin = server.token("admin");
  const std::string auditor = server.token("auditor");
  enroll(server, admin, "gpu-a", "dc-1");
  // Far more bytes than the sockets buffer (5,000 nodes with 16 tags of 255 characters: about
  // 21 MB, where loopback buffers take about 10), so that a client that does not read holds its
  // export open, and more rows than the export fetches at once, so that its cursor is still open
  // then. Written straight to the table: enrolling them one by one would take minutes under the
  // sanitizers.
  constexpr int kBulk = 5000;
  server.database().execute(
      "INSERT INTO nodes (name, source, driver, site, tags) "
      "SELECT 'bulk-' || i, 'bmc', 'redfish', 'bulk', "
      "(SELECT jsonb_object_agg('tag-' || k, repeat(chr(97 + k % 26), 255)) "
      "FROM generate_series(1, 16) k) FROM generate_series(1, " +
      std::to_string(kBulk) + ") i");

  // As many exports as the budget, their headers read and their bodies not: the server waits to
  // write the rest of each.
  std::vector<std::unique_ptr<SseClient>> held;
  for (int i = 0; i < budget; ++i) {
    held.push_back(std::make_unique<SseClient>(server.port(), "/api/v1/export/assets", auditor));
    REQUIRE(held.back()->status() == 200);
  }

  // One more, of either kind, is refused at once and says why; the API answers meanwhile.
  for (const char* target : {"/api/v1/export/assets?site=dc-1", "/api/v1/export/firmware"}) {
    INFO(target);
    const Answer refused = answer(server, target, auditor);
    INFO(refused.body);
    CHECK(refused.status == 503);
    CHECK(refused.content_type == "application/problem+json");
    const json problem = json::parse(refused.body);
    CHECK(problem["status"] == 503);
    const std::string detail = problem["detail"];
    CHECK(detail.find("export") != std::string::npos);
    CHECK(detail.find(std::to_string(budget)) != std::string::npos);
  }
  CHECK(answer(server, "/api/v1/nodes?limit=5", auditor).status == 200);
  const Answer node = answer(server, "/api/v1/nodes/gpu-a", auditor);
  CHECK(node.status == 200);
  CHECK(json::parse(node.body)["name"] == "gpu-a");
  // The held exports hold connections of the export pool, not of the pool the API and the poller
  // share (which runs the task engine's claims meanwhile): their cursors stay open there however
  // long the clients take. (Other roles' sessions show their state to a superuser only.)
  pqxx::connection superuser(server.database().superuser_url());
  // A transaction open on each export's connection (running its next FETCH, or waiting).
  const auto open_transactions = [&](const std::string& pool_name) {
    pqxx::work tx(superuser);
    return tx
        .exec_params1(
            "SELECT count(*)::int FROM pg_stat_activity WHERE datname = $1 "
            "AND application_name LIKE '% ' || $2 AND xact_start IS NOT NULL",
            server.database().name(), pool_name)[0]
        .as<int>();
  };
  CHECK(open_transactions("export") == budget);

  // One read to its end: every row is there, and its place in the budget comes back.
  CHECK(csv_records(held.front()->read_body()).size() == kBulk + 1);  // and gpu-a
  const auto small_export_runs = [&] {
    const Answer res = answer(server, "/api/v1/export/assets?site=dc-1&format=ndjson", auditor);
    return res.status == 200 && ndjson(res.body).size() == 1;
  };
  CHECK(eventually(small_export_runs));

  // Full again with another held export; then a client goes away mid-body: its place comes back
  // too, and its export is recorded as not completed.
  held.front() = std::make_unique<SseClient>(server.port(), "/api/v1/export/assets", auditor);
  REQUIRE(held.front()->status() == 200);
  CHECK(answer(server, "/api/v1/export/firmware", auditor).status == 503);
  const std::string cut_id = held.back()->header("x-export-id");
  REQUIRE_FALSE(cut_id.empty());
  held.back().reset();
  CHECK(eventually(small_export_runs));
  CHECK(eventually([&] {
    return server.database().execute("SELECT state FROM export_manifests WHERE id = '" + cut_id +
                                     "'") == "failed";
  }));
  held.clear();
}

}  // namespace export_routes_test
