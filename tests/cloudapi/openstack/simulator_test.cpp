// The OpenStack simulator over real HTTP: Keystone auth (password, application credential, wrong
// credentials), token checks and expiry, Nova version discovery, paginated servers/detail with
// microversion-dependent flavors, server actions and their task states, faults and terminate.
#include <catch2/catch.hpp>
#include <set>

#include "cloudapi/openstack/keystone.hpp"
#include "cloudapi/openstack/nova_json.hpp"
#include "sim/cloud/openstack/openstack_simulator.hpp"
#include "tests/cloudapi/openstack/sim_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace simulator_test {

using namespace ironhold::test::openstack;
using ironhold::sim::cloud::openstack::ApplicationCredential;
using ironhold::sim::cloud::openstack::OpenStackSimulatorOptions;
using nlohmann::json;
namespace os = ironhold::cloudapi::openstack;

namespace {

ironhold::bmc::http::HeaderList auth(const std::string& token,
                                     const std::string& microversion = "") {
  ironhold::bmc::http::HeaderList out{{"X-Auth-Token", token}};
  if (!microversion.empty()) out.emplace_back("OpenStack-API-Version", "compute " + microversion);
  return out;
}

OpenStackSimulatorOptions slow_transitions() {
  OpenStackSimulatorOptions options;
  options.transition = std::chrono::minutes(10);  // a task stays visible for the whole test
  return options;
}

}  // namespace

TEST_CASE("The simulated Keystone issues a token with a compute catalog", "[openstack][cloudapi]") {
  SimFixture fx;
  const json body =
      os::auth_request_body(os::parse_credentials(json{{"username", "admin"},
                                                       {"password", "openstack"},
                                                       {"user_domain_name", "Default"},
                                                       {"project_name", "gpu-team"},
                                                       {"project_domain_name", "Default"}}));
  const Reply reply = fx.call("POST", "/identity/v3/auth/tokens", body.dump());
  REQUIRE(reply.status == 201);
  const std::string subject = reply.header("X-Subject-Token");
  REQUIRE_FALSE(subject.empty());
  const auto token = os::parse_token_response(reply.body, subject);
  CHECK(token.project_name == "gpu-team");
  CHECK(token.expires_at > std::chrono::system_clock::now() + std::chrono::minutes(50));
  CHECK(os::select_endpoint(token.catalog, "compute", "public", "RegionOne") ==
        fx.base() + "/compute/v2.1");
  CHECK(os::select_endpoint(token.catalog, "compute", "internal", "RegionOne"));
  CHECK_FALSE(os::select_endpoint(token.catalog, "compute", "public", "RegionTwo"));
  CHECK(reply.doc()["token"]["roles"].size() >= 1);
}

TEST_CASE("Wrong credentials get Keystone's 401", "[openstack][cloudapi]") {
  OpenStackSimulatorOptions options;
  options.application_credential = ApplicationCredential{"app-1", "app-secret"};
  SimFixture fx(options);
  for (const json& credentials :
       {json{{"username", "admin"},
             {"password", "wrong"},
             {"user_domain_name", "Default"},
             {"project_name", "gpu-team"},
             {"project_domain_name", "Default"}},
        json{{"username", "admin"},
             {"password", "openstack"},
             {"user_domain_name", "Default"},
             {"project_name", "other-team"},
             {"project_domain_name", "Default"}},
        json{{"application_credential_id", "app-1"}, {"application_credential_secret", "nope"}}}) {
    const Reply reply = fx.call("POST", "/identity/v3/auth/tokens",
                                os::auth_request_body(os::parse_credentials(credentials)).dump());
    CHECK(reply.status == 401);
    CHECK(reply.header("X-Subject-Token").empty());
    CHECK(os::keystone_error_message(reply.body) ==
          "Unauthorized (401): The request you have made requires authentication.");
  }
  const Reply app =
      fx.call("POST", "/identity/v3/auth/tokens",
              os::auth_request_body(
                  os::parse_credentials(json{{"application_credential_id", "app-1"},
                                             {"application_credential_secret", "app-secret"}}))
                  .dump());
  CHECK(app.status == 201);
  CHECK(app.doc()["token"]["application_credential"]["id"] == "app-1");
  CHECK(fx.call("POST", "/identity/v3/auth/tokens", "{}").status == 400);
}

TEST_CASE("Nova needs a valid, unexpired token", "[openstack][cloudapi]") {
  OpenStackSimulatorOptions options;
  options.token_lifetime = std::chrono::milliseconds(300);
  SimFixture fx(options);
  CHECK(fx.call("GET", "/compute/v2.1/servers/detail").status == 401);
  CHECK(fx.call("GET", "/compute/v2.1/servers/detail", "", auth("forged")).status == 401);
  const std::string token = fx.token();
  REQUIRE_FALSE(token.empty());
  CHECK(fx.call("GET", "/compute/v2.1/servers/detail", "", auth(token)).status == 200);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  const Reply expired = fx.call("GET", "/compute/v2.1/servers/detail", "", auth(token));
  CHECK(expired.status == 401);
  CHECK(os::keystone_error_message(expired.body));
  // Version discovery is open, as in Nova.
  CHECK(fx.call("GET", "/compute/v2.1/").status == 200);
}

TEST_CASE("Expiring every token from the control API", "[openstack][cloudapi]") {
  SimFixture fx;
  const std::string token = fx.token();
  CHECK(fx.call("GET", "/compute/v2.1/flavors/detail", "", auth(token)).status == 200);
  CHECK(fx.call("POST", "/_sim/tokens/expire").status == 200);
  CHECK(fx.call("GET", "/compute/v2.1/flavors/detail", "", auth(token)).status == 401);
}

TEST_CASE("Version discovery documents parse", "[openstack][cloudapi]") {
  SimFixture fx;
  for (const char* path : {"/compute/", "/compute/v2.1", "/compute/v2.1/"}) {
    INFO(path);
    const Reply reply = fx.call("GET", path);
    REQUIRE(reply.status == 200);
    const auto versions = os::parse_compute_versions(reply.doc());
    REQUIRE(versions);
    CHECK(versions->max->minor == 96);
    CHECK(versions->min->minor == 1);
  }
  const Reply identity = fx.call("GET", "/identity/v3");
  REQUIRE(identity.status == 200);
  CHECK(identity.doc()["version"]["id"].get<std::string>().rfind("v3", 0) == 0);
}

TEST_CASE("servers/detail pages follow servers_links to every server", "[openstack][cloudapi]") {
  SimFixture fx;
  const std::string token = fx.token();
  std::vector<std::string> ids;
  std::optional<std::string> marker;
  int pages = 0;
  for (;; ++pages) {
    REQUIRE(pages < 20);
    const Reply reply = fx.call(
        "GET", "/compute/v2.1/servers/detail" + (marker ? "?marker=" + *marker : std::string()), "",
        auth(token, "2.47"));
    REQUIRE(reply.status == 200);
    const auto page = os::parse_servers_page(reply.doc());
    CHECK(page.servers.size() <= 2);
    for (const auto& s : page.servers) ids.push_back(s["id"]);
    if (!page.next_marker) break;
    marker = page.next_marker;
  }
  CHECK(pages >= 3);
  const json state = fx.sim().instances();
  std::vector<std::string> expected;
  for (const auto& s : state["instances"]) expected.push_back(s["id"]);
  CHECK(ids == expected);
  CHECK(ids.size() >= 5);
  CHECK(fx.call("GET", "/compute/v2.1/servers/detail?marker=nope", "", auth(token)).status == 400);
}

TEST_CASE("The flavor is embedded with extra specs from microversion 2.47",
          "[openstack][cloudapi]") {
  SimFixture fx;
  const std::string token = fx.token();
  const Reply old = fx.call("GET", "/compute/v2.1/servers/detail", "", auth(token));
  REQUIRE(old.status == 200);
  const json first_old = old.doc()["servers"][0];
  CHECK(first_old["flavor"].contains("id"));
  CHECK_FALSE(first_old["flavor"].contains("extra_specs"));
  const Reply recent = fx.call("GET", "/compute/v2.1/servers/detail", "", auth(token, "2.47"));
  REQUIRE(recent.status == 200);
  CHECK(recent.header("OpenStack-API-Version") == "compute 2.47");
  const json first = recent.doc()["servers"][0];
  REQUIRE(first["flavor"].contains("extra_specs"));
  const auto gpus = os::gpus_from_extra_specs(first["flavor"]["extra_specs"], json::object());
  CHECK(gpus.count == 8);
  // The pre-2.47 path: the flavor by id, then its extra specs.
  const std::string flavor_id = first_old["flavor"]["id"];
  const Reply specs =
      fx.call("GET", "/compute/v2.1/flavors/" + flavor_id + "/os-extra_specs", "", auth(token));
  REQUIRE(specs.status == 200);
  CHECK(os::parse_extra_specs(specs.doc()) == first["flavor"]["extra_specs"]);
  const Reply flavors = fx.call("GET", "/compute/v2.1/flavors/detail", "", auth(token, "2.61"));
  REQUIRE(flavors.status == 200);
  const auto parsed = os::parse_flavors(flavors.doc());
  CHECK(parsed.size() >= 3);
  std::set<std::string> names;
  for (const auto& f : parsed) names.insert(f.name);
  CHECK(names.count("g1.h100x8"));
  CHECK(names.count("g1.a100x8"));
  CHECK(names.count("g1.a10"));
  CHECK(fx.call("GET", "/compute/v2.1/servers/detail", "", auth(token, "2.999")).status == 406);
}

TEST_CASE("Server actions move through Nova's task states", "[openstack][cloudapi]") {
  SimFixture fx(slow_transitions());
  const std::string token = fx.token();
  const json state = fx.sim().instances();
  std::string running, stopped;
  for (const auto& s : state["instances"]) {
    if (s["status"] == "ACTIVE" && running.empty()) running = s["id"];
    if (s["status"] == "SHUTOFF" && stopped.empty()) stopped = s["id"];
  }
  REQUIRE_FALSE(running.empty());
  REQUIRE_FALSE(stopped.empty());
  const std::string action = "/compute/v2.1/servers/" + running + "/action";

  const Reply conflict = fx.call("POST", action, R"({"os-start": null})", auth(token));
  CHECK(conflict.status == 409);
  CHECK(conflict.doc()["conflictingRequest"]["code"] == 409);

  CHECK(fx.call("POST", action, R"({"os-stop": null})", auth(token)).status == 202);
  json server = fx.call("GET", "/compute/v2.1/servers/" + running, "", auth(token)).doc()["server"];
  CHECK(server["OS-EXT-STS:task_state"] == "powering-off");
  // A second action while the task runs is refused.
  CHECK(fx.call("POST", action, R"({"reboot": {"type": "HARD"}})", auth(token)).status == 409);

  const std::string other = "/compute/v2.1/servers/" + stopped + "/action";
  CHECK(fx.call("POST", other, R"({"os-start": null})", auth(token)).status == 202);
  server = fx.call("GET", "/compute/v2.1/servers/" + stopped, "", auth(token)).doc()["server"];
  CHECK(server["OS-EXT-STS:task_state"] == "powering-on");
  CHECK(server["status"] == "SHUTOFF");

  CHECK(fx.call("POST", "/compute/v2.1/servers/nope/action", R"({"os-stop": null})", auth(token))
            .status == 404);
  CHECK(fx.call("POST", other, R"({"dance": null})", auth(token)).status == 400);
}

TEST_CASE("Reboot and rebuild end in their final states", "[openstack][cloudapi]") {
  OpenStackSimulatorOptions options;
  options.transition = std::chrono::milliseconds(0);  // each task ends by the next request
  SimFixture fx(options);
  const std::string token = fx.token();
  std::string running;
  for (const json now_state = fx.sim().instances(); const auto& s : now_state["instances"])
    if (s["status"] == "ACTIVE" && running.empty()) running = s["id"];
  const std::string action = "/compute/v2.1/servers/" + running + "/action";
  CHECK(fx.call("POST", action, R"({"reboot": {"type": "SOFT"}})", auth(token)).status == 202);
  json server = fx.call("GET", "/compute/v2.1/servers/" + running, "", auth(token)).doc()["server"];
  CHECK(server["status"] == "ACTIVE");
  CHECK(server["OS-EXT-STS:task_state"].is_null());

  const Reply rebuilt = fx.call(
      "POST", action, R"({"rebuild": {"imageRef": "img-new", "adminPass": "pw"}})", auth(token));
  CHECK(rebuilt.status == 202);
  CHECK(rebuilt.doc()["server"]["status"] == "REBUILD");
  CHECK(rebuilt.doc()["server"]["adminPass"] == "pw");
  server = fx.call("GET", "/compute/v2.1/servers/" + running, "", auth(token)).doc()["server"];
  CHECK(server["status"] == "ACTIVE");
  CHECK(server["image"]["id"] == "img-new");
  CHECK(fx.call("POST", action, R"({"rebuild": {}})", auth(token)).status == 400);

  CHECK(fx.call("POST", action, R"({"os-stop": null})", auth(token)).status == 202);
  server = fx.call("GET", "/compute/v2.1/servers/" + running, "", auth(token)).doc()["server"];
  CHECK(server["status"] == "SHUTOFF");
  CHECK(server["OS-EXT-STS:power_state"] == 4);
}

TEST_CASE("Injected throttling and errors answer like the cloud", "[openstack][cloudapi]") {
  SimFixture fx;
  const std::string token = fx.token();
  REQUIRE(fx.call("POST", "/_sim/faults", R"({"throttle_next": 1, "error_next": 1})").status ==
          200);
  const Reply throttled = fx.call("GET", "/compute/v2.1/servers/detail", "", auth(token));
  CHECK(throttled.status == 429);
  CHECK(throttled.header("Retry-After") == "1");
  CHECK(throttled.doc().contains("overLimit"));
  const Reply failed = fx.call("GET", "/compute/v2.1/servers/detail", "", auth(token));
  CHECK(failed.status == 500);
  CHECK(failed.doc().contains("computeFault"));
  CHECK(fx.call("GET", "/compute/v2.1/servers/detail", "", auth(token)).status == 200);
  CHECK(fx.call("POST", "/_sim/faults", R"({"bogus": 1})").status == 400);
}

TEST_CASE("A terminated server leaves the listing and shows in changes-since",
          "[openstack][cloudapi]") {
  SimFixture fx;
  const std::string token = fx.token();
  const std::string victim = fx.sim().instances()["instances"][0]["id"];
  CHECK(fx.call("POST", "/_sim/instances/" + victim + "/terminate").status == 200);
  CHECK(fx.call("GET", "/compute/v2.1/servers/" + victim, "", auth(token)).status == 404);
  const Reply deleted =
      fx.call("GET", "/compute/v2.1/servers/detail?changes-since=2000-01-01T00:00:00Z&limit=1", "",
              auth(token));
  REQUIRE(deleted.status == 200);
  bool seen = false;
  for (const json now_state = fx.sim().instances(); const auto& s : now_state["instances"])
    if (s["id"] == victim) seen = s["deleted"].get<bool>();
  CHECK(seen);
  // The whole changes-since listing includes it with status DELETED.
  std::optional<std::string> marker;
  bool listed_deleted = false;
  for (int i = 0; i < 20; ++i) {
    const Reply page = fx.call("GET",
                               "/compute/v2.1/servers/detail?changes-since=2000-01-01T00:00:00Z" +
                                   (marker ? "&marker=" + *marker : std::string()),
                               "", auth(token));
    const auto parsed = os::parse_servers_page(page.doc());
    for (const auto& s : parsed.servers)
      if (s["id"] == victim) listed_deleted = s["status"] == "DELETED";
    if (!parsed.next_marker) break;
    marker = parsed.next_marker;
  }
  CHECK(listed_deleted);
  CHECK(fx.call("POST", "/_sim/instances/nope/terminate").status == 404);
}

}  // namespace simulator_test
