// GET /api/v1/capacity against a node history the test writes itself, row by row, into
// node_versions: the expected GPU-hours are worked out here from those rows (each version clipped
// to the period, counted gpu_count times, in the state the definition gives it), not read from
// the service. The history has a node that was off half the period, one in maintenance, one
// whose provisioning failed and that was retired, a cloud instance that ran a third of it, and
// rows that must not count (no GPUs, a gpu_count that is not a number).
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <pqxx/pqxx>
#include <sstream>

#include "inventory/util/time.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

namespace capacity_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

// One row of node_versions as the test writes it.
struct Version {
  std::string node, source, site, project, gpu_model;
  json gpu_count;
  std::string power = "on", lifecycle = "deployed";
  bool maintenance = false;
  std::chrono::hours from, to;  // from the period's start; to < 0h: still open
  bool retired = false;
  std::string provider = "";
};

const SystemTime kStart = *parse_rfc3339("2026-11-02T00:00:00Z");
const SystemTime kEnd = kStart + 24h;
constexpr auto kOpen = std::chrono::hours(-1000);

std::vector<Version> history() {
  return {
      // On all period (and before it).
      {"dgx-a", "bmc", "dc-1", "default", "NVIDIA H100 SXM5 80GB", 8, "on", "deployed", false, -48h,
       kOpen},
      // On for the first half, off for the second.
      {"dgx-b", "bmc", "dc-1", "default", "NVIDIA H100 SXM5 80GB", 8, "on", "deployed", false, -2h,
       12h},
      {"dgx-b", "bmc", "dc-1", "default", "NVIDIA H100 SXM5 80GB", 8, "off", "deployed", false, 12h,
       kOpen},
      // A rented instance: running from 6 h to 18 h, then stopped.
      {"p5-1", "cloud", "", "research", "NVIDIA H100 SXM5 80GB", 8, "on", "deployed", false, 6h,
       18h, false, "ec2"},
      {"p5-1", "cloud", "", "research", "NVIDIA H100 SXM5 80GB", 8, "off", "deployed", false, 18h,
       30h, false, "ec2"},
      // In maintenance (and on) for three hours, then in service.
      {"a100-d", "bmc", "dc-2", "default", "NVIDIA A100 SXM4 80GB", 4, "on", "deployed", true, 0h,
       3h},
      {"a100-d", "bmc", "dc-2", "default", "NVIDIA A100 SXM4 80GB", 4, "on", "deployed", false, 3h,
       kOpen},
      // Provisioning failed (off), then deployed, then retired at 20 h.
      {"a100-e", "bmc", "dc-2", "default", "NVIDIA A100 SXM4 80GB", 4, "off", "provision_failed",
       false, -1h, 5h},
      {"a100-e", "bmc", "dc-2", "default", "NVIDIA A100 SXM4 80GB", 4, "on", "deployed", false, 5h,
       20h},
      {"a100-e", "bmc", "dc-2", "default", "NVIDIA A100 SXM4 80GB", 4, "off", "retired", false, 20h,
       kOpen, true},
      // Enrolled at 22 h, its BMC not answering yet.
      {"dgx-g", "bmc", "dc-1", "default", "NVIDIA H100 SXM5 80GB", 8, "unknown", "enrolled", false,
       22h, kOpen},
      // Not GPU capacity: no GPUs, and a gpu_count that is not a number.
      {"cpu-f", "bmc", "dc-1", "default", "", 0, "on", "deployed", false, -5h, kOpen},
      {"odd-h", "bmc", "dc-1", "default", "NVIDIA H100 SXM5 80GB", "8", "on", "deployed", false,
       -5h, kOpen},
  };
}

// The definition, worked out independently: the exclusive state of a version.
std::string state_of(const Version& v) {
  if (v.maintenance) return "maintenance";
  if (v.lifecycle.size() > 7 && v.lifecycle.substr(v.lifecycle.size() - 7) == "_failed")
    return "failed";
  if (v.power == "on" || v.power == "off") return v.power;
  return "unknown";
}

struct Expected {
  std::map<std::string, double> by_state;
  double powered_on = 0, installed = 0;
  long long gpus_at_end = 0, gpus_on_at_end = 0;
};

// Each version's GPU-hours inside [from, to), summed per key(v).
template <class Key>
std::map<std::string, Expected> expected(SystemTime from, SystemTime to, Key key) {
  std::map<std::string, Expected> out;
  for (const auto& v : history()) {
    if (!v.gpu_count.is_number() || v.gpu_count.get<int>() == 0 || v.retired) continue;
    const double gpus = v.gpu_count.get<int>();
    const SystemTime begin = std::max(kStart + v.from, from);
    const SystemTime end = std::min(v.to == kOpen ? to : kStart + v.to, to);
    Expected& e = out[key(v)];
    if (end > begin) {
      const double hours = std::chrono::duration<double>(end - begin).count() / 3600.0 * gpus;
      e.by_state[state_of(v)] += hours;
      e.installed += hours;
      if (v.power == "on") e.powered_on += hours;
    }
    const bool at_end = kStart + v.from <= to && (v.to == kOpen || kStart + v.to > to);
    if (at_end) {
      e.gpus_at_end += static_cast<long long>(gpus);
      if (v.power == "on") e.gpus_on_at_end += static_cast<long long>(gpus);
    }
  }
  return out;
}

std::string sql_text(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

void write_history(TestServer& server) {
  std::map<std::string, std::string> ids;
  std::ostringstream sql;
  for (const auto& v : history()) {
    if (!ids.count(v.node)) ids[v.node] = server.database().execute("SELECT gen_random_uuid()");
    json hardware = {{"gpu_count", v.gpu_count}};
    hardware["gpu_model"] = v.gpu_model.empty() ? json(nullptr) : json(v.gpu_model);
    sql << "INSERT INTO node_versions (id, name, source, driver, provider, site, hardware, "
           "lifecycle, maintenance, health, power_state, created_at, retired_at, valid_from, "
           "valid_to, project) VALUES ("
        << sql_text(ids[v.node]) << "::uuid, " << sql_text(v.node) << ", " << sql_text(v.source)
        << ", " << (v.source == "cloud" ? "'ec2'" : "'redfish'") << ", "
        << (v.provider.empty() ? "NULL" : sql_text(v.provider)) << ", "
        << (v.site.empty() ? "NULL" : sql_text(v.site)) << ", " << sql_text(hardware.dump())
        << "::jsonb, " << sql_text(v.lifecycle) << ", " << (v.maintenance ? "true" : "false")
        << ", 'ok', " << sql_text(v.power) << ", " << sql_text(format_rfc3339(kStart - 72h)) << ", "
        << (v.retired ? sql_text(format_rfc3339(kStart + v.from)) : "NULL") << ", "
        << sql_text(format_rfc3339(kStart + v.from)) << ", "
        << (v.to == kOpen ? "NULL" : sql_text(format_rfc3339(kStart + v.to))) << ", "
        << sql_text(v.project) << ");\n";
  }
  pqxx::connection c(server.database().owner_url());
  pqxx::work tx(c);
  tx.exec0(sql.str());
  tx.exec0("INSERT INTO projects (name) VALUES ('research') ON CONFLICT DO NOTHING");
  tx.commit();
}

json get_json(TestServer& server, const std::string& target, const std::string& token) {
  const auto res = http_get(server.port(), target, token);
  INFO(target << ": " << res.body);
  REQUIRE(res.status == 200);
  return res.json();
}

void check_figures(const json& got, const Expected& want) {
  CHECK(got["gpu_hours_installed"].get<double>() == Approx(want.installed).margin(0.001));
  CHECK(got["gpu_hours_powered_on"].get<double>() == Approx(want.powered_on).margin(0.001));
  for (const char* state : {"on", "off", "unknown", "maintenance", "failed"}) {
    INFO(state);
    const auto it = want.by_state.find(state);
    CHECK(got["gpu_hours_by_state"][state].get<double>() ==
          Approx(it == want.by_state.end() ? 0.0 : it->second).margin(0.001));
  }
  CHECK(got["gpus_installed"] == want.gpus_at_end);
  CHECK(got["gpus_powered_on"] == want.gpus_on_at_end);
}

std::string period(const std::string& extra = "") {
  return "/api/v1/capacity?from=" + url_encode(format_rfc3339(kStart)) +
         "&to=" + url_encode(format_rfc3339(kEnd)) + extra;
}

}  // namespace

TEST_CASE("GPU capacity is recomputed from a node history the test wrote", "[web][capacity]") {
  TestServer server;
  write_history(server);
  const std::string viewer = server.token("viewer");

  SECTION("per GPU model and source, owned and rented apart") {
    const json report = get_json(server, period("&group_by=gpu_model,source"), viewer);
    CHECK(report["step"] == "hour");
    const auto want =
        expected(kStart, kEnd, [](const Version& v) { return v.gpu_model + "|" + v.source; });
    REQUIRE(report["groups"].size() == want.size());
    for (const auto& g : report["groups"]) {
      const std::string key =
          g["key"]["gpu_model"].get<std::string>() + "|" + g["key"]["source"].get<std::string>();
      INFO(key);
      REQUIRE(want.count(key) == 1);
      check_figures(g, want.at(key));
    }
    // The node that was off half the period: 8 GPUs on for 12 h, off for 12 h.
    const auto owned_h100 = want.at("NVIDIA H100 SXM5 80GB|bmc");
    CHECK(owned_h100.by_state.at("off") == Approx(8 * 12.0));
  }

  SECTION("totals, and a series whose buckets add up to them") {
    const json report = get_json(server, period(), viewer);
    const auto want = expected(kStart, kEnd, [](const Version&) { return std::string("all"); });
    check_figures(report["totals"], want.at("all"));
    REQUIRE(report["totals"]["series"].size() == 24);
    double on = 0;
    for (const auto& point : report["totals"]["series"]) on += point["on"].get<double>();
    CHECK(on == Approx(want.at("all").by_state.at("on")).margin(0.01));
    // Hour 12 to 13 from the rows alone.
    const auto hour =
        expected(kStart + 12h, kStart + 13h, [](const Version&) { return std::string("all"); });
    CHECK(report["totals"]["series"][12]["off"].get<double>() ==
          Approx(hour.at("all").by_state.at("off")).margin(0.001));
    CHECK(report["totals"]["series"][12]["start"] == format_rfc3339(kStart + 12h));
  }

  SECTION("per site and project, as CSV") {
    const auto res = http_get(server.port(), period("&group_by=site,project&format=csv"), viewer);
    REQUIRE(res.status == 200);
    CHECK(res.header("content-type").find("text/csv") == 0);
    std::istringstream lines(res.body);
    std::string line;
    std::getline(lines, line);
    CHECK(line.rfind("from,to,site,project,gpus_installed,gpus_powered_on,gpu_hours_installed,"
                     "gpu_hours_powered_on,utilisation,gpu_hours_on",
                     0) == 0);
    const auto want =
        expected(kStart, kEnd, [](const Version& v) { return v.site + "," + v.project; });
    int rows = 0;
    while (std::getline(lines, line)) {
      if (line.empty()) continue;
      ++rows;
      std::vector<std::string> cells;
      std::stringstream cell_stream(line);
      for (std::string cell; std::getline(cell_stream, cell, ',');) cells.push_back(cell);
      REQUIRE(cells.size() >= 9);
      const std::string key = cells[2] + "," + cells[3];
      INFO(line);
      REQUIRE(want.count(key) == 1);
      CHECK(std::stod(cells[6]) == Approx(want.at(key).installed).margin(0.001));
      CHECK(std::stod(cells[7]) == Approx(want.at(key).powered_on).margin(0.001));
    }
    CHECK(rows == static_cast<int>(want.size()));
  }

  SECTION("a project's viewer sees its project's GPUs only") {
    const auto made =
        http_send(server.port(), "POST", "/api/v1/tokens",
                  {{"name", "research-viewer"}, {"role", "viewer"}, {"project", "research"}},
                  server.token("admin"));
    REQUIRE(made.status == 201);
    const json report = get_json(server, period(), made.json()["token"]);
    const auto want = expected(kStart, kEnd, [](const Version& v) { return v.project; });
    check_figures(report["totals"], want.at("research"));
  }
}

TEST_CASE("a capacity report refuses periods and groupings it cannot give", "[web][capacity]") {
  TestServer server;
  const std::string viewer = server.token("viewer");
  auto status = [&](const std::string& query) {
    return http_get(server.port(), "/api/v1/capacity" + query, viewer).status;
  };
  CHECK(status("?from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z") == 422);
  CHECK(status("?from=yesterday") == 400);
  CHECK(status("?step=minute") == 400);
  CHECK(status("?group_by=gpu_model,colour") == 400);
  CHECK(status("?group_by=site,site") == 400);
  CHECK(status("?from=2025-01-01T00:00:00Z&to=2026-11-01T00:00:00Z&step=hour") == 422);
  CHECK(status("?from=2020-01-01T00:00:00Z&to=2026-11-01T00:00:00Z") == 422);
  CHECK(status("?format=xlsx") == 400);
  CHECK(status("?colour=red") == 400);
  CHECK(http_get(server.port(), "/api/v1/capacity", std::nullopt).status == 401);
  // An empty fleet has no capacity, and says so with zeroes.
  const auto empty = http_get(server.port(), "/api/v1/capacity", viewer);
  REQUIRE(empty.status == 200);
  CHECK(empty.json()["totals"]["gpu_hours_installed"] == 0);
  CHECK(empty.json()["totals"]["utilisation"].is_null());
}

}  // namespace capacity_test
