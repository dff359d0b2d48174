// The crawler against the DMTF mockups served from their files, and against synthetic services
// that fail, repeat or never end.
#include "bmc/redfish/crawler.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "tests/bmc/redfish/redfish_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace crawler_test {

using namespace ironhold;
using namespace ironhold::bmc::redfish;
using namespace ironhold::bmc::redfish::testing;
using nlohmann::json;

namespace {

bool asked_under(const ServiceState& state, const std::string& prefix) {
  return std::any_of(state.requests.begin(), state.requests.end(), [&](const std::string& path) {
    return path == prefix || path.rfind(prefix + "/", 0) == 0 || path.rfind(prefix + "?", 0) == 0;
  });
}

bool asked(const ServiceState& state, const std::string& path) {
  return std::find(state.requests.begin(), state.requests.end(), path) != state.requests.end();
}

CrawlOptions scope(CrawlScope s) {
  CrawlOptions options;
  options.scope = s;
  return options;
}

const std::string rack_system = "/redfish/v1/Systems/437XR1138R2";

// Paths nothing in Ironhold uses: reading them only costs the BMC time.
const std::vector<std::string> never_read = {
    "/redfish/v1/AccountService",     "/redfish/v1/Registries",     "/redfish/v1/$metadata",
    "/redfish/v1/JsonSchemas",        "/redfish/v1/EventService",   "/redfish/v1/TaskService",
    "/redfish/v1/CertificateService", "/redfish/v1/SessionService", "/redfish/v1/KeyService",
    "/redfish/v1/ComponentIntegrity", "/redfish/v1/Fabrics"};

}  // namespace

TEST_CASE("status scope reads the root, the Systems collection and each System only",
          "[redfish][crawler]") {
  auto root = mockup("public-rackmount1");
  if (root.empty()) {
    WARN("redfish mockups not found; skipped");
    return;
  }
  auto state = serve_mockup(root);
  CrawlResult result = crawl_service(state, scope(CrawlScope::status));
  REQUIRE_FALSE(result.error);
  CHECK(result.system_paths == mockup_members(root, "/redfish/v1/Systems"));
  std::set<std::string> expected = {"/redfish/v1", "/redfish/v1/Systems"};
  for (const auto& system : result.system_paths) expected.insert(system);
  CHECK(std::set<std::string>(state->requests.begin(), state->requests.end()) == expected);
  CHECK(state->requests.size() == expected.size());
}

TEST_CASE("status scope with known System paths goes straight to them", "[redfish][crawler]") {
  auto root = mockup("public-rackmount1");
  if (root.empty()) {
    WARN("redfish mockups not found; skipped");
    return;
  }
  auto state = serve_mockup(root);
  CrawlOptions options = scope(CrawlScope::status);
  options.system_paths = {rack_system + "/"};
  CrawlResult result = crawl_service(state, options);
  REQUIRE_FALSE(result.error);
  CHECK(state->requests == std::vector<std::string>{rack_system});
  CHECK(result.system_paths == std::vector<std::string>{rack_system});
}

TEST_CASE("sensors scope reads chassis sensors and log entries, not inventory parts",
          "[redfish][crawler]") {
  auto root = mockup("public-rackmount1");
  if (root.empty()) {
    WARN("redfish mockups not found; skipped");
    return;
  }
  auto state = serve_mockup(root);
  CrawlResult result = crawl_service(state, scope(CrawlScope::sensors));
  REQUIRE_FALSE(result.error);
  for (const auto& sensor : mockup_members(root, "/redfish/v1/Chassis/1U/Sensors"))
    CHECK(result.graph.find(sensor));
  CHECK(result.graph.find("/redfish/v1/Chassis/1U/ThermalSubsystem/ThermalMetrics"));
  CHECK(asked(*state, "/redfish/v1/Systems/437XR1138R2/LogServices/Log1/Entries"));
  CHECK(asked(*state, "/redfish/v1/Managers/BMC/LogServices/Log/Entries"));
  // Only the Processors that readings relate to (to tell GPU temperatures), not the collection.
  CHECK_FALSE(asked(*state, rack_system + "/Processors"));
  CHECK_FALSE(asked_under(*state, rack_system + "/Memory"));
  CHECK_FALSE(asked_under(*state, "/redfish/v1/UpdateService"));
  // Sensors exist, so the deprecated Thermal/Power documents are not needed for readings.
  CHECK_FALSE(asked(*state, "/redfish/v1/Chassis/1U/Thermal"));
  for (const auto& path : never_read) CHECK_FALSE(asked_under(*state, path));
}

TEST_CASE("a nextLink that repeats the same page is followed once", "[redfish][crawler]") {
  auto root = mockup("public-rackmount1");
  if (root.empty()) {
    WARN("redfish mockups not found; skipped");
    return;
  }
  const std::string entries = "/redfish/v1/Systems/437XR1138R2/LogServices/Log1/Entries";
  json page = mockup_doc(root, entries);
  REQUIRE(page.contains("@odata.nextLink"));  // the quirk this test is about
  auto state = serve_mockup(root);
  CrawlResult result = crawl_service(state, scope(CrawlScope::sensors));
  REQUIRE_FALSE(result.error);
  auto next = page["@odata.nextLink"].get<std::string>();
  CHECK(std::count(state->requests.begin(), state->requests.end(), next) == 1);
  CHECK(result.graph.members(entries) == mockup_members(root, entries));
}

TEST_CASE("inventory scope reads each resource once and skips unrelated services",
          "[redfish][crawler]") {
  for (std::string name : {"public-rackmount1", "public-cxl"}) {
    auto root = mockup(name);
    if (root.empty()) {
      WARN("redfish mockups not found; skipped");
      return;
    }
    INFO(name);
    auto state = serve_mockup(root);
    CrawlResult result = crawl_service(state, scope(CrawlScope::inventory));
    REQUIRE_FALSE(result.error);
    std::set<std::string> unique(state->requests.begin(), state->requests.end());
    CHECK(unique.size() == state->requests.size());
    for (const auto& path : never_read) CHECK_FALSE(asked_under(*state, path));
    for (const auto& system : result.system_paths) {
      json document = mockup_doc(root, system);
      std::string processors = document["Processors"]["@odata.id"];
      for (const auto& member : mockup_members(root, processors)) CHECK(result.graph.find(member));
    }
  }
}

TEST_CASE("Members is the truth whatever Members@odata.count says", "[redfish][crawler]") {
  auto state = std::make_shared<ServiceState>();
  state->generate = [](const std::string& path) -> std::optional<json> {
    if (path == "/redfish/v1") return json{{"Systems", {{"@odata.id", "/redfish/v1/Systems"}}}};
    if (path == "/redfish/v1/Systems")
      return json{{"Members@odata.count", "banana"},
                  {"Members",
                   {{{"@odata.id", "/redfish/v1/Systems/a"}},
                    {{"@odata.id", "/redfish/v1/Systems/b/"}},
                    {{"@odata.id", "https://bmc.example:443/redfish/v1/Systems/a"}},
                    {{"@odata.id", 42}},
                    "junk"}}};
    if (path.rfind("/redfish/v1/Systems/", 0) == 0) return json{{"Id", path.substr(20)}};
    return std::nullopt;
  };
  CrawlResult result = crawl_service(state, scope(CrawlScope::status));
  REQUIRE_FALSE(result.error);
  CHECK(result.system_paths ==
        std::vector<std::string>{"/redfish/v1/Systems/a", "/redfish/v1/Systems/b"});
  CHECK(std::count(state->requests.begin(), state->requests.end(), "/redfish/v1/Systems/a") == 1);
}

TEST_CASE("a failing sub-resource is a warning and the crawl goes on", "[redfish][crawler]") {
  auto root = mockup("public-rackmount1");
  if (root.empty()) {
    WARN("redfish mockups not found; skipped");
    return;
  }
  auto state = serve_mockup(root);
  state->failures["/redfish/v1/Chassis/1U/Sensors/CPU1Temp"] = {DriverErrorCode::rejected,
                                                                "500 Internal Server Error"};
  state->failures[rack_system + "/Memory"] = {DriverErrorCode::rejected, "404 Not Found"};
  CrawlResult result = crawl_service(state, scope(CrawlScope::inventory));
  REQUIRE_FALSE(result.error);
  CHECK(result.warnings.size() == 2);
  CHECK(result.graph.find("/redfish/v1/Chassis/1U/Sensors/AmbientTemp"));
  CHECK(result.graph.find("/redfish/v1/UpdateService/FirmwareInventory/BMC"));
}

TEST_CASE("an unreadable root or System is the crawl's error", "[redfish][crawler]") {
  auto root = mockup("public-rackmount1");
  if (root.empty()) {
    WARN("redfish mockups not found; skipped");
    return;
  }
  for (std::string failing :
       {std::string("/redfish/v1"), std::string("/redfish/v1/Systems"), rack_system}) {
    INFO(failing);
    auto state = serve_mockup(root);
    state->failures[failing] = {DriverErrorCode::timeout, "total timeout"};
    CrawlResult result = crawl_service(state, scope(CrawlScope::inventory));
    REQUIRE(result.error);
    CHECK(result.error->code == DriverErrorCode::timeout);
    CHECK(state->requests.back() == failing);  // nothing read after it
  }
}

TEST_CASE("auth_failed or a TLS pin mismatch stops the crawl at once", "[redfish][crawler]") {
  auto root = mockup("public-rackmount1");
  if (root.empty()) {
    WARN("redfish mockups not found; skipped");
    return;
  }
  for (auto code : {DriverErrorCode::auth_failed, DriverErrorCode::tls_pin_mismatch}) {
    auto state = serve_mockup(root);
    const std::string failing = "/redfish/v1/Chassis/1U/Sensors";
    state->failures[failing] = {code, "refused"};
    CrawlResult result = crawl_service(state, scope(CrawlScope::sensors));
    REQUIRE(result.error);
    CHECK(result.error->code == code);
    CHECK(state->requests.back() == failing);
  }
}

TEST_CASE("a service that links without end is cut off at max_documents", "[redfish][crawler]") {
  auto state = std::make_shared<ServiceState>();
  // Every page of the Systems collection brings a new System and links a further page.
  state->generate = [](const std::string& path) -> std::optional<json> {
    if (path == "/redfish/v1") return json{{"Systems", {{"@odata.id", "/redfish/v1/Systems"}}}};
    if (path.rfind("/redfish/v1/Systems", 0) != 0) return std::nullopt;
    auto query = path.find("?page=");
    if (path == "/redfish/v1/Systems" || query != std::string::npos) {
      int page = query == std::string::npos ? 0 : std::stoi(path.substr(query + 6));
      return json{
          {"Members", {{{"@odata.id", "/redfish/v1/Systems/" + std::to_string(page)}}}},
          {"Members@odata.nextLink", "/redfish/v1/Systems?page=" + std::to_string(page + 1)}};
    }
    return json{{"Id", "x"}, {"PowerState", "On"}};
  };
  SECTION("by max_pages") {
    CrawlOptions options = scope(CrawlScope::status);
    options.max_pages = 20;
    CrawlResult result = crawl_service(state, options);
    REQUIRE(result.error);
    CHECK(result.error->code == DriverErrorCode::bad_response);
    CHECK(state->requests.size() <= 22);
  }
  SECTION("by max_documents") {
    CrawlOptions options = scope(CrawlScope::status);
    options.max_pages = 1'000'000;
    options.max_documents = 100;
    CrawlResult result = crawl_service(state, options);
    REQUIRE(result.error);
    CHECK(result.error->code == DriverErrorCode::bad_response);
    CHECK(state->requests.size() == 100);
  }
  SECTION("a collection with very many members") {
    state->generate = [](const std::string& path) -> std::optional<json> {
      if (path == "/redfish/v1") return json{{"Systems", {{"@odata.id", "/redfish/v1/Systems"}}}};
      if (path == "/redfish/v1/Systems") {
        json members = json::array();
        for (int i = 0; i < 5000; ++i)
          members.push_back({{"@odata.id", "/redfish/v1/Systems/" + std::to_string(i)}});
        return json{{"Members", members}};
      }
      return json{{"Id", "x"}};
    };
    CrawlOptions options = scope(CrawlScope::status);
    options.max_documents = 50;
    CrawlResult result = crawl_service(state, options);
    REQUIRE(result.error);
    CHECK(result.error->code == DriverErrorCode::bad_response);
    CHECK(state->requests.size() == 50);
  }
}

TEST_CASE("log entries already seen are not read or kept again", "[redfish][crawler]") {
  auto root = mockup("public-rackmount1");
  if (root.empty()) {
    WARN("redfish mockups not found; skipped");
    return;
  }
  const std::string entries = "/redfish/v1/Systems/437XR1138R2/LogServices/Log1/Entries";
  auto members = mockup_members(root, entries);
  REQUIRE(members.size() >= 2);
  auto state = serve_mockup(root);
  CrawlOptions options = scope(CrawlScope::sensors);
  const std::string seen = members[0];
  options.entry_seen = [seen](const std::string& path) { return path == seen; };
  CrawlResult result = crawl_service(state, options);
  REQUIRE_FALSE(result.error);
  CHECK_FALSE(result.graph.find(seen));
  CHECK_FALSE(asked(*state, seen));
  CHECK(result.graph.find(members[1]));
}

TEST_CASE("canonical paths", "[redfish][crawler]") {
  CHECK(canonical_path("/redfish/v1/Systems/1/") == "/redfish/v1/Systems/1");
  CHECK(canonical_path("/redfish/v1/") == "/redfish/v1");
  CHECK(canonical_path("/redfish/v1/Chassis/1U/Thermal#/Fans/0") ==
        "/redfish/v1/Chassis/1U/Thermal");
  CHECK(canonical_path("/redfish/v1/X/Entries?$skiptoken=2") == "/redfish/v1/X/Entries");
  CHECK(canonical_path("https://10.0.0.1:443/redfish/v1/Systems") == "/redfish/v1/Systems");
  CHECK(canonical_path("/redfish/v1//Systems") == "/redfish/v1/Systems");
  CHECK(canonical_path("/redfish/v1/../etc/passwd").empty());
  CHECK(canonical_path("/other/v1").empty());
  CHECK(canonical_path("").empty());
  CHECK(canonical_path("/redfish/v10").empty());
}

namespace {

// The rackmount System as a selecting service answers "$select=Id,PowerState,Status".
json selected_rack_system(const std::filesystem::path& root) {
  const json whole = load_json(file_for(root, rack_system)).value();
  json out = json::object();
  for (const char* key : {"@odata.id", "@odata.type", "Id", "PowerState", "Status"})
    if (whole.contains(key)) out[key] = whole[key];
  return out;
}

const std::string select_status = "$select=Id,PowerState,Status";

}  // namespace

TEST_CASE("status scope asks known Systems for the selected properties only",
          "[redfish][crawler][select]") {
  auto root = mockup("public-rackmount1");
  if (root.empty()) {
    WARN("redfish mockups not found; skipped");
    return;
  }
  auto state = serve_mockup(root);
  const json selected = selected_rack_system(root);
  state->generate = [&](const std::string& path) -> std::optional<json> {
    if (path == rack_system + "?" + select_status) return selected;
    return std::nullopt;
  };
  CrawlOptions options = scope(CrawlScope::status);
  options.system_paths = {rack_system};
  options.system_select = select_status;
  CrawlResult result = crawl_service(state, options);
  REQUIRE_FALSE(result.error);
  CHECK(state->requests == std::vector<std::string>{rack_system + "?" + select_status});
  CHECK_FALSE(result.select_ignored);
  REQUIRE(result.graph.find(rack_system));
  CHECK(*result.graph.find(rack_system) == selected);
}

TEST_CASE("a service that ignores or refuses $select is read whole, and that is reported",
          "[redfish][crawler][select]") {
  auto root = mockup("public-rackmount1");
  if (root.empty()) {
    WARN("redfish mockups not found; skipped");
    return;
  }
  const json whole = load_json(file_for(root, rack_system)).value();
  for (const bool refuses : {false, true}) {
    auto state = serve_mockup(root);
    if (refuses)
      state->failures[rack_system + "?" + select_status] =
          DriverError{DriverErrorCode::rejected, "400 Bad Request"};
    else  // answers, but with none of the properties asked for
      state->generate = [](const std::string& path) -> std::optional<json> {
        if (path.find('?') == std::string::npos) return std::nullopt;
        return json{{"@odata.id", rack_system}};
      };
    CrawlOptions options = scope(CrawlScope::status);
    options.system_paths = {rack_system};
    options.system_select = select_status;
    CrawlResult result = crawl_service(state, options);
    REQUIRE_FALSE(result.error);
    CHECK(state->requests ==
          std::vector<std::string>{rack_system + "?" + select_status, rack_system});
    CHECK(result.select_ignored);
    REQUIRE(result.graph.find(rack_system));
    CHECK(*result.graph.find(rack_system) == whole);
  }
}

TEST_CASE("supports_select reads the root's ProtocolFeaturesSupported, and only a boolean",
          "[redfish][crawler][select]") {
  ResourceGraph graph;
  CHECK_FALSE(supports_select(graph));
  graph.add("/redfish/v1", json{{"ProtocolFeaturesSupported", {{"SelectQuery", true}}}});
  CHECK(supports_select(graph));
  ResourceGraph declines;
  declines.add("/redfish/v1", json{{"ProtocolFeaturesSupported", {{"SelectQuery", false}}}});
  CHECK_FALSE(supports_select(declines));
  ResourceGraph odd;
  odd.add("/redfish/v1", json{{"ProtocolFeaturesSupported", {{"SelectQuery", 1}}}});
  CHECK_FALSE(supports_select(odd));
}

}  // namespace crawler_test
