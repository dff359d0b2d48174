// GET /api/v1/cost against rows the test writes itself (node versions, hourly energy, a cloud
// account's region) and prices it enters through the API. Every expected figure is worked out
// here from those rows and prices by the rules of docs/cost.md: hours in service times the
// server's monthly costs, measured kWh times the site's price in force, the rated draw for a
// server with no readings, running hours times the instance's price; not read from the service.
// The fleet has a server that was powered off for half the period, one whose depreciation ends
// inside it, prices that change mid-period, a region with its own price and one without, and a
// model with no price at all.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <pqxx/pqxx>
#include <sstream>

#include "inventory/util/time.hpp"
#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

namespace cost_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

const SystemTime kStart = *parse_rfc3339("2026-11-02T00:00:00Z");
const SystemTime kEnd = kStart + 48h;
constexpr double kMonth = 365.25 * 24 / 12;  // hours, as docs/cost.md defines a month

struct Node {
  std::string name, source, model, site, gpu_model;
  int gpus;
  std::vector<std::pair<int, int>> on;  // hours after kStart the node was powered on
  std::chrono::hours enrolled;          // relative to kStart
  std::string region;                   // cloud: its account's region
  std::map<int, double> watts;          // hour -> measured average watts
};

std::vector<Node> fleet() {
  std::map<int, double> a_watts, c_watts;
  for (int h = 0; h < 48; ++h) a_watts[h] = 9000 + 100 * h;
  for (int h = 0; h < 40; ++h) c_watts[h] = 5000;
  return {
      {"dgx-a",
       "bmc",
       "DGX H100",
       "dc-1",
       "NVIDIA H100 SXM5 80GB",
       8,
       {{0, 48}},
       -72h,
       "",
       a_watts},
      // Powered off for the second half; no readings at all: its energy is estimated.
      {"dgx-b", "bmc", "DGX H100", "dc-1", "NVIDIA H100 SXM5 80GB", 8, {{0, 24}}, -72h, "", {}},
      // Written off 730.5 h after its enrolment: 30.5 h into the period.
      {"a100-c",
       "bmc",
       "HGX A100",
       "dc-2",
       "NVIDIA A100 SXM4 80GB",
       8,
       {{0, 48}},
       -700h,
       "",
       c_watts},
      {"p5-1",
       "cloud",
       "p5.48xlarge",
       "",
       "NVIDIA H100 SXM5 80GB",
       8,
       {{0, 36}},
       -100h,
       "us-east-1",
       {}},
      {"p5-2",
       "cloud",
       "p5.48xlarge",
       "",
       "NVIDIA H100 SXM5 80GB",
       8,
       {{0, 10}},
       -100h,
       "eu-west-1",
       {}},
      {"odd-d", "bmc", "Mystery 9000", "dc-1", "NVIDIA H100 SXM5 80GB", 8, {{0, 48}}, -72h, "", {}},
  };
}

// The prices, as the test enters them (amounts per docs/cost.md's units).
struct Prices {
  // server model -> [(effective hour, purchase, months, hosting/month, rated W)]
  std::map<std::string, std::vector<std::tuple<int, double, int, double, double>>> servers = {
      {"DGX H100", {{-720, 300000, 36, 2000, 10200}, {24, 300000, 36, 2500, 10200}}},
      {"HGX A100", {{-720, 150000, 1, 1000, 6500}}}};
  // site -> [(effective hour, per kWh)]
  std::map<std::string, std::vector<std::pair<int, double>>> energy = {
      {"dc-1", {{-720, 0.12}, {12, 0.20}}}, {"*", {{-720, 0.10}}}};
  // region -> [(effective hour, per hour)] for ec2 p5.48xlarge
  std::map<std::string, std::vector<std::pair<int, double>>> p5 = {{"us-east-1", {{-720, 98.32}}},
                                                                   {"*", {{-720, 110.0}}}};
};

// The price in force at hour h in a list of (effective hour, ...).
template <class T>
const T* at_hour(const std::vector<T>& list, int h) {
  const T* best = nullptr;
  for (const auto& p : list)
    if (std::get<0>(p) <= h) best = &p;
  return best;
}

bool is_on(const Node& n, int h) {
  for (const auto& [a, b] : n.on)
    if (h >= a && h < b) return true;
  return false;
}

struct Expected {
  double capital = 0, hosting = 0, energy = 0, rental = 0;
  double installed = 0, used = 0, rented_used = 0, kwh_measured = 0, kwh_estimated = 0;
  double installed_priced = 0, used_priced = 0;  // of servers with a price
};

// Hour by hour, by the rules, over the whole period.
std::map<std::string, Expected> expected_by_gpu_model(double& missing_server_hours) {
  const Prices prices;
  std::map<std::string, Expected> out;
  missing_server_hours = 0;
  for (const auto& n : fleet()) {
    Expected& e = out[n.gpu_model];
    for (int h = 0; h < 48; ++h) {
      const bool on = is_on(n, h);
      if (n.source == "cloud") {
        if (!on) continue;
        e.rented_used += n.gpus;
        const auto& list = prices.p5.count(n.region) ? prices.p5.at(n.region) : prices.p5.at("*");
        e.rental += at_hour(list, h)->second;
        continue;
      }
      e.installed += n.gpus;
      if (on) e.used += n.gpus;
      if (!prices.servers.count(n.model)) {
        missing_server_hours += 1;
        continue;
      }
      e.installed_priced += n.gpus;
      if (on) e.used_priced += n.gpus;
      const auto& [from, purchase, months, hosting, rated] =
          *at_hour(prices.servers.at(n.model), h);
      e.hosting += hosting / kMonth;
      // The hour's share before the server is written off.
      const double written_off = n.enrolled.count() + months * kMonth;  // hours after kStart
      const double share = std::clamp(written_off - h, 0.0, 1.0);
      e.capital += share * purchase / (months * kMonth);
      const auto& site_prices =
          prices.energy.count(n.site) ? prices.energy.at(n.site) : prices.energy.at("*");
      const double per_kwh = at_hour(site_prices, h)->second;
      if (!n.watts.empty()) {
        if (n.watts.count(h)) {
          e.kwh_measured += n.watts.at(h) / 1000;
          e.energy += n.watts.at(h) / 1000 * per_kwh;
        }
      } else if (on) {
        e.kwh_estimated += rated / 1000;
        e.energy += rated / 1000 * per_kwh;
      }
    }
  }
  return out;
}

std::string sql_text(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::string at(int hours) {
  return format_rfc3339(kStart + std::chrono::hours(hours));
}

void write_rows(TestServer& server) {
  std::ostringstream sql;
  std::map<std::string, std::string> accounts;
  for (const auto& n : fleet()) {
    const std::string id = server.database().execute("SELECT gen_random_uuid()");
    std::string account = "NULL";
    if (n.source == "cloud") {
      if (!accounts.count(n.region))
        accounts[n.region] = server.database().execute(
            "INSERT INTO cloud_accounts (name, provider, region, key_id, sealed) VALUES ('acct-" +
            n.region + "', 'ec2', " + sql_text(n.region) + ", 'k', '\\x00') RETURNING id");
      account = sql_text(accounts[n.region]) + "::uuid";
    }
    // A version per change of power: on for n.on, off around it.
    std::vector<std::pair<int, std::string>> changes = {{-5, "off"}};
    for (const auto& [a, b] : n.on) {
      changes.push_back({a, "on"});
      changes.push_back({b, "off"});
    }
    for (std::size_t i = 0; i < changes.size(); ++i) {
      const bool last = i + 1 == changes.size();
      const int from = i == 0 ? -5 : changes[i].first;
      if (!last && changes[i + 1].first == from) continue;
      const json hardware = {{"gpu_count", n.gpus}, {"gpu_model", n.gpu_model}};
      sql << "INSERT INTO node_versions (id, name, source, driver, provider, cloud_account_id, "
             "model, site, hardware, lifecycle, maintenance, health, power_state, created_at, "
             "valid_from, valid_to, project) VALUES ("
          << sql_text(id) << "::uuid, " << sql_text(n.name) << ", " << sql_text(n.source) << ", "
          << (n.source == "cloud" ? "'ec2', 'ec2'" : "'redfish', NULL") << ", " << account << ", "
          << sql_text(n.model) << ", " << (n.site.empty() ? "NULL" : sql_text(n.site)) << ", "
          << sql_text(hardware.dump()) << "::jsonb, 'deployed', false, 'ok', "
          << sql_text(changes[i].second) << ", " << sql_text(at(n.enrolled.count())) << ", "
          << sql_text(at(from)) << ", " << (last ? "NULL" : sql_text(at(changes[i + 1].first)))
          << ", 'default');\n";
    }
    for (const auto& [hour, watts] : n.watts)
      sql << "INSERT INTO node_energy_hourly (node_id, hour, joules, seconds) VALUES ("
          << sql_text(id) << "::uuid, " << sql_text(at(hour)) << ", " << watts * 3600
          << ", 3600);\n";
  }
  pqxx::connection c(server.database().owner_url());
  pqxx::work tx(c);
  tx.exec0(sql.str());
  tx.commit();
}

void enter_prices(TestServer& server, const std::string& admin) {
  const Prices prices;
  auto post = [&](const std::string& kind, const json& body) {
    const auto res = http_send(server.port(), "POST", "/api/v1/prices/" + kind, body, admin);
    INFO(res.body);
    REQUIRE(res.status == 201);
  };
  for (const auto& [model, list] : prices.servers)
    for (const auto& [from, purchase, months, hosting, rated] : list)
      post("servers", {{"model", model},
                       {"effective_from", at(from)},
                       {"currency", "USD"},
                       {"purchase_price", purchase},
                       {"depreciation_months", months},
                       {"hosting_per_month", hosting},
                       {"rated_watts", rated}});
  for (const auto& [site, list] : prices.energy)
    for (const auto& [from, per_kwh] : list)
      post("energy", {{"site", site},
                      {"effective_from", at(from)},
                      {"currency", "USD"},
                      {"per_kwh", per_kwh}});
  for (const auto& [region, list] : prices.p5)
    for (const auto& [from, per_hour] : list)
      post("instances", {{"provider", "ec2"},
                         {"region", region},
                         {"instance_type", "p5.48xlarge"},
                         {"effective_from", at(from)},
                         {"currency", "USD"},
                         {"per_hour", per_hour}});
}

}  // namespace

TEST_CASE("GPU cost, owned against rented, is recomputed from rows and prices the test wrote",
          "[web][cost]") {
  TestServer server;
  const std::string admin = server.token("admin");
  write_rows(server);
  enter_prices(server, admin);
  double missing_hours = 0;
  const auto want = expected_by_gpu_model(missing_hours);

  const auto res = http_get(server.port(),
                            "/api/v1/cost?from=" + url_encode(at(0)) + "&to=" + url_encode(at(48)),
                            server.token("viewer"));
  INFO(res.body.substr(0, 4000));
  REQUIRE(res.status == 200);
  const json report = res.json();
  CHECK(report["currency"] == "USD");
  REQUIRE(report["groups"].size() == want.size());
  for (const auto& g : report["groups"]) {
    const std::string model = g["key"]["gpu_model"];
    INFO(model);
    REQUIRE(want.count(model) == 1);
    const Expected& e = want.at(model);
    const json& owned = g["owned"];
    CHECK(owned["gpu_hours_installed"].get<double>() == Approx(e.installed));
    CHECK(owned["gpu_hours_used"].get<double>() == Approx(e.used));
    CHECK(owned["capital"].get<double>() == Approx(e.capital).margin(0.01));
    CHECK(owned["hosting"].get<double>() == Approx(e.hosting).margin(0.01));
    CHECK(owned["energy"].get<double>() == Approx(e.energy).margin(0.01));
    CHECK(owned["energy_kwh_measured"].get<double>() == Approx(e.kwh_measured).margin(0.001));
    CHECK(owned["energy_kwh_estimated"].get<double>() == Approx(e.kwh_estimated).margin(0.001));
    CHECK(owned["estimated"] == (e.kwh_estimated > 0));
    const double owned_total = e.capital + e.hosting + e.energy;
    CHECK(owned["total"].get<double>() == Approx(owned_total).margin(0.01));
    // Over the GPU-hours a price was in force for: the unpriced server is left out.
    CHECK(owned["gpu_hours_unpriced"].get<double>() == Approx(e.installed - e.installed_priced));
    if (e.used_priced > 0)
      CHECK(owned["cost_per_gpu_hour_used"].get<double>() ==
            Approx(owned_total / e.used_priced).epsilon(1e-6));
    const json& rented = g["rented"];
    CHECK(rented["gpu_hours_used"].get<double>() == Approx(e.rented_used));
    CHECK(rented["total"].get<double>() == Approx(e.rental).margin(0.01));
    if (e.rented_used > 0 && e.installed_priced > 0) {
      const double fixed = (e.capital + e.hosting) / e.installed_priced;
      const double energy = e.energy / e.used_priced;
      const double rent = e.rental / e.rented_used;
      CHECK(g["break_even_utilisation"].get<double>() ==
            Approx(fixed / (rent - energy)).epsilon(1e-5));
    } else {
      CHECK(g["break_even_utilisation"].is_null());
    }
  }
  // The H100s: a server off for half the period (its energy estimated), and both kinds side by
  // side.
  CHECK(want.at("NVIDIA H100 SXM5 80GB").kwh_estimated == Approx(24 * 10.2));
  // The model without a price is listed, not costed.
  REQUIRE(report["missing_prices"].size() == 1);
  CHECK(report["missing_prices"][0]["kind"] == "server");
  CHECK(report["missing_prices"][0]["what"] == "Mystery 9000");
  CHECK(report["missing_prices"][0]["hours"].get<double>() == Approx(missing_hours));

  // Every line is a quantity times a price in force, and they add up to the totals.
  const json prices =
      json::parse(http_get(server.port(), "/api/v1/prices", server.token("viewer")).body);
  std::map<std::string, json> by_id;
  for (const char* kind : {"servers", "energy", "instances"})
    for (const auto& p : prices[kind])
      by_id[std::string(kind) + "/" + std::to_string(p["id"].get<long long>())] = p;
  double sum = 0;
  for (const auto& line : report["inputs"]) {
    const std::string kind = line["price_kind"];
    const std::string key = (kind == "server"   ? "servers"
                             : kind == "energy" ? "energy"
                                                : "instances") +
                            std::string("/") + std::to_string(line["price_id"].get<long long>());
    INFO(line.dump());
    REQUIRE(by_id.count(key) == 1);
    const json& price = by_id[key];
    // The price was in force over the whole line.
    CHECK(*parse_rfc3339(price["effective_from"].get<std::string>()) <=
          *parse_rfc3339(line["from"].get<std::string>()));
    CHECK(line["amount"].get<double>() ==
          Approx(line["quantity"].get<double>() * line["rate"].get<double>()));
    sum += line["amount"].get<double>();
  }
  CHECK(sum == Approx(report["totals"]["owned"]["total"].get<double>() +
                      report["totals"]["rented"]["total"].get<double>())
                   .margin(0.01));

  // The CSV is the lines.
  const auto csv =
      http_get(server.port(),
               "/api/v1/cost?format=csv&from=" + url_encode(at(0)) + "&to=" + url_encode(at(48)),
               server.token("auditor"));
  REQUIRE(csv.status == 200);
  std::istringstream lines(csv.body);
  std::string line;
  std::getline(lines, line);
  if (!line.empty() && line.back() == '\r') line.pop_back();  // CSV rows end in CRLF
  CHECK(line ==
        "gpu_model,node_id,node,kind,from,to,quantity,unit,rate,currency,price_kind,"
        "price_id,amount,estimated");
  std::size_t rows = 0;
  while (std::getline(lines, line))
    if (!line.empty()) ++rows;
  CHECK(rows == report["inputs"].size());
}

TEST_CASE("prices are admin data with effective hours, one currency, and an audit trail",
          "[web][cost]") {
  TestServer server;
  const std::string admin = server.token("admin");
  auto post = [&](const std::string& kind, const json& body, const std::string& token) {
    return http_send(server.port(), "POST", "/api/v1/prices/" + kind, body, token);
  };
  const json energy = {{"site", "dc-1"},
                       {"effective_from", "2026-11-01T00:00:00Z"},
                       {"currency", "USD"},
                       {"per_kwh", 0.12}};
  CHECK(post("energy", energy, server.token("operator")).status == 403);
  const auto added = post("energy", energy, admin);
  REQUIRE(added.status == 201);
  CHECK(post("energy", energy, admin).status == 409);  // that hour has a price already
  json eur = energy;
  eur["effective_from"] = "2026-12-01T00:00:00Z";
  eur["currency"] = "EUR";
  CHECK(post("energy", eur, admin).status == 409);
  json half_hour = energy;
  half_hour["effective_from"] = "2026-12-01T00:30:00Z";
  CHECK(post("energy", half_hour, admin).status == 422);
  json negative = energy;
  negative["per_kwh"] = -1;
  CHECK(post("energy", negative, admin).status == 422);
  json text = energy;
  text["per_kwh"] = "0.12";
  CHECK(post("energy", text, admin).status == 400);
  json extra = energy;
  extra["colour"] = "red";
  CHECK(post("energy", extra, admin).status == 400);
  CHECK(post("servers",
             {{"model", "X"},
              {"effective_from", "2026-11-01T00:00:00Z"},
              {"currency", "USD"},
              {"purchase_price", 1},
              {"depreciation_months", 0},
              {"hosting_per_month", 0},
              {"rated_watts", 100}},
             admin)
            .status == 422);
  CHECK(post("gold", energy, admin).status == 404);
  CHECK(http_get(server.port(), "/api/v1/cost?from=2026-11-01T00:30:00Z", admin).status == 422);
  CHECK(http_get(server.port(), "/api/v1/cost?group_by=colour", admin).status == 400);

  const std::string id = std::to_string(added.json()["id"].get<long long>());
  CHECK(http_send(server.port(), "DELETE", "/api/v1/prices/energy/" + id, json(nullptr),
                  server.token("operator"))
            .status == 403);
  CHECK(http_send(server.port(), "DELETE", "/api/v1/prices/energy/" + id, json(nullptr), admin)
            .status == 204);
  CHECK(http_send(server.port(), "DELETE", "/api/v1/prices/energy/" + id, json(nullptr), admin)
            .status == 404);
  const json trail = http_get(server.port(), "/api/v1/audit?target=" + id, admin).json();
  std::vector<std::string> outcomes;
  for (const auto& e : trail["items"])
    if (e["target_type"] == "energy_price")
      outcomes.push_back(e["action"].get<std::string>() + " " + e["outcome"].get<std::string>());
  INFO(trail.dump());
  CHECK(std::count(outcomes.begin(), outcomes.end(), "POST /api/v1/prices/{kind} 201") == 1);
  CHECK(std::count(outcomes.begin(), outcomes.end(), "DELETE /api/v1/prices/{kind}/{id} 204") == 1);
}

}  // namespace cost_test
