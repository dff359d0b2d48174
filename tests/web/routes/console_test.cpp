// The operator console over real HTTP: the entry page at /, its files under /assets/<hash>/
// (cached for good, each with its type and ETag, every module the page imports present), a
// strict Content-Security-Policy, 404 for any other hash; and the GPU-model counts of the node
// summary the console's overview shows.
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <tuple>

#include "tests/support/server/http_client.hpp"
#include "tests/support/server/test_server.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace console_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;

namespace {

constexpr const char* kImmutable = "public, max-age=31536000, immutable";

// Every /assets/<hash>/<path> the page refers to (src="..." or href="...").
std::vector<std::pair<std::string, std::string>> asset_references(const std::string& html) {
  static const std::regex reference(R"re((?:src|href)="/assets/([^/"]+)/([^"]+)")re");
  std::vector<std::pair<std::string, std::string>> out;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), reference);
       it != std::sregex_iterator(); ++it)
    out.emplace_back((*it)[1].str(), (*it)[2].str());
  return out;
}

// The modules a module imports by relative path ("./api.js", "../format.js"), resolved against
// the importing module's folder.
std::vector<std::string> relative_imports(const std::string& module_path, const std::string& code) {
  static const std::regex import_from(R"re((?:from|import)\s*\(?\s*["'](\.{1,2}/[^"']+)["'])re");
  std::string folder = module_path.substr(0, module_path.rfind('/') + 1);
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), import_from);
       it != std::sregex_iterator(); ++it) {
    std::vector<std::string> parts;
    std::string joined = folder + (*it)[1].str();
    std::size_t start = 0;
    while (start <= joined.size()) {
      const auto slash = joined.find('/', start);
      const std::string part =
          joined.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
      if (part == "..") {
        if (!parts.empty()) parts.pop_back();
      } else if (!part.empty() && part != ".") {
        parts.push_back(part);
      }
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
    std::string resolved;
    for (const auto& p : parts) resolved += (resolved.empty() ? "" : "/") + p;
    out.push_back(resolved);
  }
  return out;
}

std::string expected_type(const std::string& path) {
  const auto dot = path.rfind('.');
  const std::string ext = dot == std::string::npos ? "" : path.substr(dot);
  if (ext == ".js") return "text/javascript; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".html") return "text/html; charset=utf-8";
  return "?";
}

HttpResult get_with(unsigned short port, const std::string& target,
                    std::map<std::string, std::string> headers) {
  HttpRequest r;
  r.target = target;
  r.headers = std::move(headers);
  return http_request(port, r);
}

void check_strict_policy(const HttpResult& res) {
  const std::string csp = res.header("content-security-policy");
  INFO(csp);
  CHECK(csp.find("default-src 'self'") != std::string::npos);
  CHECK(csp.find("script-src 'self'") != std::string::npos);
  CHECK(csp.find("frame-ancestors 'none'") != std::string::npos);
  CHECK(csp.find("unsafe-inline") == std::string::npos);
  CHECK(csp.find("unsafe-eval") == std::string::npos);
  CHECK(res.header("x-content-type-options") == "nosniff");
}

}  // namespace

TEST_CASE("GET / serves the console, whose files are cached for good under one content hash",
          "[web][console]") {
  TestServer server;
  const auto port = server.port();

  const auto page = http_get(port, "/", std::nullopt);  // no token: the sign-in page is open
  REQUIRE(page.status == 200);
  CHECK(page.header("content-type") == "text/html; charset=utf-8");
  CHECK(page.header("cache-control") == "no-cache");
  check_strict_policy(page);
  CHECK(page.body.find("<script type=\"module\"") != std::string::npos);
  // No inline script or style: everything comes from the console's own files.
  CHECK(std::regex_search(page.body, std::regex("<script[^>]*>[^<]+</script>")) == false);
  CHECK(page.body.find("<style") == std::string::npos);
  CHECK(page.body.find(" style=") == std::string::npos);
  CHECK(page.body.find("{{ASSET_BASE}}") == std::string::npos);

  const auto references = asset_references(page.body);
  REQUIRE(references.size() >= 3);  // the stylesheet, the icon, the application module
  const std::string hash = references.front().first;
  CHECK(std::regex_match(hash, std::regex("[0-9a-f]{16}")));
  std::set<std::string> kinds;
  std::vector<std::string> pending;
  for (const auto& [h, path] : references) {
    CHECK(h == hash);  // one build, one hash
    pending.push_back(path);
  }

  // Each file the page names, and each module those import, is there with its type, an ETag and
  // the immutable cache header.
  std::set<std::string> seen;
  while (!pending.empty()) {
    const std::string path = pending.back();
    pending.pop_back();
    if (!seen.insert(path).second) continue;
    const auto res = http_get(port, "/assets/" + hash + "/" + path, std::nullopt);
    INFO(path << " answered " << res.status << " " << res.body.substr(0, 200));
    REQUIRE(res.status == 200);
    CHECK(res.header("content-type") == expected_type(path));
    CHECK(res.header("cache-control") == kImmutable);
    CHECK(std::regex_match(res.header("etag"), std::regex("\"[0-9a-f]{32}\"")));
    check_strict_policy(res);
    CHECK_FALSE(res.body.empty());
    kinds.insert(path.substr(path.rfind('.') + 1));
    if (path.ends_with(".js"))
      for (const auto& imported : relative_imports(path, res.body)) pending.push_back(imported);

    // The browser revalidating what it holds gets 304 and no body.
    const auto again =
        get_with(port, "/assets/" + hash + "/" + path, {{"If-None-Match", res.header("etag")}});
    CHECK(again.status == 304);
    CHECK(again.body.empty());
  }
  CHECK(kinds.count("js") == 1);
  CHECK(kinds.count("css") == 1);
  CHECK(kinds.count("svg") == 1);
  CHECK(seen.size() >= 8);  // the modules of the views, the chart, the stream...

  // The entry page revalidates with its ETag.
  const auto revalidated = get_with(port, "/", {{"If-None-Match", page.header("etag")}});
  CHECK(revalidated.status == 304);
  CHECK(revalidated.header("cache-control") == "no-cache");
  CHECK(get_with(port, "/", {{"If-None-Match", "\"0123\""}}).status == 200);
}

TEST_CASE("a console file under another hash, or one the console lacks, is 404 and not cached",
          "[web][console]") {
  TestServer server;
  const auto port = server.port();
  const auto page = http_get(port, "/", std::nullopt);
  REQUIRE(page.status == 200);
  const auto references = asset_references(page.body);
  REQUIRE_FALSE(references.empty());
  const auto& [hash, path] = references.front();
  REQUIRE(http_get(port, "/assets/" + hash + "/" + path, std::nullopt).status == 200);

  std::string other = hash;
  other[0] = other[0] == '0' ? '1' : '0';
  for (const std::string& target :
       {"/assets/" + other + "/" + path, "/assets/0000000000000000/" + path,
        "/assets/" + hash.substr(0, 8) + "/" + path, "/assets/" + hash + "/no-such-file.js",
        "/assets/" + hash + "/", "/assets/" + hash, "/assets/" + hash + "/../" + path,
        "/assets/" + hash + "/js/../" + path}) {
    const auto res = http_get(port, target, std::nullopt);
    INFO(target << " answered " << res.status);
    CHECK(res.status == 404);
    CHECK(res.header("cache-control") != kImmutable);
    CHECK(res.header("content-type") == "application/problem+json");
  }
}

#ifdef IRONHOLD_XTERM_PACKAGE_DIR
namespace {

// A file of the npm package the build embedded (installed by npm ci, which checked it against the
// lockfile's integrity), read from the package itself.
std::string from_package(const std::string& member) {
  std::ifstream in(std::string(IRONHOLD_XTERM_PACKAGE_DIR) + "/" + member, std::ios::binary);
  REQUIRE(in);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("the serial console page has its own policy and serves xterm.js as npm ships it",
          "[web][console]") {
  TestServer server;
  const auto port = server.port();
  const auto page = http_get(port, "/serial-console", std::nullopt);
  REQUIRE(page.status == 200);
  CHECK(page.header("content-type") == "text/html; charset=utf-8");
  CHECK(page.body.find("{{ASSET_BASE}}") == std::string::npos);
  // xterm.js writes <style> elements: inline styles only, scripts stay the console's own files.
  const std::string csp = page.header("content-security-policy");
  INFO(csp);
  CHECK(csp.find("style-src 'self' 'unsafe-inline'") != std::string::npos);
  CHECK(csp.find("script-src 'self';") != std::string::npos);
  CHECK(csp.find("unsafe-eval") == std::string::npos);
  CHECK(csp.find("frame-ancestors 'none'") != std::string::npos);
  CHECK(std::regex_search(page.body, std::regex("<script[^>]*>[^<]+</script>")) == false);

  // The page names the vendored files under the console's one hash; each is the package's own.
  std::map<std::string, std::string> referenced;
  for (const auto& [hash, path] : asset_references(page.body)) referenced[path] = hash;
  const auto main_page = asset_references(http_get(port, "/", std::nullopt).body);
  REQUIRE_FALSE(main_page.empty());
  const std::string hash = main_page.front().first;
  for (const auto& [path, member, type] :
       {std::tuple<std::string, std::string, std::string>{"vendor/xterm/xterm.js", "lib/xterm.js",
                                                          "text/javascript; charset=utf-8"},
        {"vendor/xterm/xterm.css", "css/xterm.css", "text/css; charset=utf-8"},
        {"vendor/xterm/LICENSE", "LICENSE", "text/plain; charset=utf-8"}}) {
    INFO(path);
    REQUIRE(referenced.count(path) == 1);
    CHECK(referenced[path] == hash);
    const auto res = http_get(port, "/assets/" + hash + "/" + path, std::nullopt);
    REQUIRE(res.status == 200);
    CHECK(res.header("content-type") == type);
    CHECK(res.body == from_package(member));
  }
  CHECK(from_package("LICENSE").find("Permission is hereby granted") != std::string::npos);
}
#endif

TEST_CASE("the console's headers stay off the API, which answers as before", "[web][console]") {
  TestServer server;
  const auto res = http_get(server.port(), "/api/v1/nodes", server.token("viewer"));
  REQUIRE(res.status == 200);
  CHECK(res.header("content-type") == "application/json");
  CHECK(res.header("cache-control") == "no-store");
  CHECK(res.header("content-security-policy").empty());
  CHECK(http_get(server.port(), "/api/v1/nodes", std::nullopt).status == 401);
}

namespace {

// The nodes the GPU test enrolls: name, site, and what their inspection found (no model: a server
// without GPUs; "-": never inspected).
struct PlannedNode {
  std::string name, site;
  std::string gpu_model;
  int gpu_count = 0;
};

db::PollResult inspection_found(const std::string& node_id, const PlannedNode& n) {
  SystemInventory system;
  system.system_id = "1";
  system.status.system_id = "1";
  system.identity.manufacturer = "Acme";
  system.identity.serial = "SN-" + n.name;
  system.status.power_state = PowerState::on;
  system.status.health = Health::ok;
  system.summary.cpu_count = 2;
  system.summary.gpu_count = n.gpu_count;
  if (!n.gpu_model.empty()) system.summary.gpu_model = n.gpu_model;
  InspectionReport report;
  report.systems.push_back(std::move(system));
  db::PollResult result;
  result.kind = db::PollKind::inventory;
  result.node_id = node_id;
  result.report = std::move(report);
  return result;
}

}  // namespace

TEST_CASE("the node summary counts nodes and GPUs per GPU model, as inspections recorded them",
          "[web][console][nodes]") {
  TestServer server;
  const auto port = server.port();
  const auto operator_token = server.token("operator");
  const auto viewer = server.token("viewer");
  const std::vector<PlannedNode> plan = {
      {"g1", "ams1", "NVIDIA H100 80GB HBM3", 8},
      {"g2", "ams1", "NVIDIA H100 80GB HBM3", 8},
      {"g3", "fra2", "NVIDIA H100 80GB HBM3", 4},
      {"g4", "fra2", "NVIDIA A100", 4},
      {"g5", "ams1", "NVIDIA A100", 2},
      {"g6", "fra2", "NVIDIA L40S", 1},
      {"c1", "ams1", "", 0},
      {"c2", "fra2", "", 0},
      {"new", "ams1", "-", 0},
  };

  std::vector<db::PollResult> results;
  for (const auto& n : plan) {
    const json body = {{"name", n.name},
                       {"driver", "redfish"},
                       {"endpoint", "https://127.0.0.9:1"},
                       {"credentials", {{"username", "u"}, {"password", "p"}}},
                       {"location", {{"site", n.site}, {"rack", "R1"}, {"unit", 1}}}};
    const auto res = http_send(port, "POST", "/api/v1/nodes", body, operator_token);
    INFO(res.body);
    REQUIRE(res.status == 201);
    if (n.gpu_model != "-") results.push_back(inspection_found(res.json()["id"], n));
  }
  server.host().polls().record(results, "console-test");

  // The GPU catalogue's name for what an inspection found: the model whose name or GPU alias it
  // is, else the raw name itself.
  const json catalogue = http_get(port, "/api/v1/gpu-models", viewer).json();
  auto canonical = [&catalogue](const std::string& raw) {
    for (const auto& m : catalogue["items"]) {
      if (m["name"] == raw) return raw;
      for (const auto& a : m["aliases"])
        if (a["kind"] == "gpu" && a["alias"] == raw) return m["name"].get<std::string>();
    }
    return raw;
  };
  // What the plan says, per site filter ("" for all).
  auto expected = [&plan, &canonical](const std::string& site) {
    json models = json::object(), gpus = json::object();
    for (const auto& n : plan) {
      if (n.gpu_model.empty() || n.gpu_model == "-" || (!site.empty() && n.site != site)) continue;
      const std::string model = canonical(n.gpu_model);
      models[model] = models.value(model, 0) + 1;
      gpus[model] = gpus.value(model, 0) + n.gpu_count;
    }
    return std::pair{models, gpus};
  };

  for (const std::string site : {"", "ams1", "fra2"}) {
    INFO("site=" << site);
    const auto summary =
        http_get(port, "/api/v1/nodes/summary" + (site.empty() ? "" : "?site=" + site), viewer)
            .json();
    const auto [models, gpus] = expected(site);
    CHECK(summary["gpu_model"] == models);
    CHECK(summary["gpus"] == gpus);
    // The fields the summary always had are still there.
    std::size_t in_site = 0;
    for (const auto& n : plan) in_site += site.empty() || n.site == site;
    CHECK(summary["total"] == in_site);
    CHECK(summary["source"]["bmc"] == in_site);
    CHECK(summary["driver"]["redfish"] == in_site);
    for (const char* key : {"health", "power_state", "lifecycle"}) CHECK(summary[key].is_object());
  }

  // A count is a click-through filter: the list with gpu_model=<model> has that many nodes.
  const auto [models, gpus] = expected("");
  for (const auto& [model, count] : models.items()) {
    const auto listed =
        http_get(port, "/api/v1/nodes?limit=1000&gpu_model=" + url_encode(model), viewer).json();
    INFO(model);
    CHECK(listed["items"].size() == count.get<std::size_t>());
  }
}

}  // namespace console_test
