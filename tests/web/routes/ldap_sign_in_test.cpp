// Signing in to the console through a real OpenLDAP directory (Debian's slapd, started by the
// test with tests/data/ldap/directory.ldif): the directory checks the password, its groups become
// roles here by the configured mapping, and a person in no mapped group signs in with no project.
// Local users stay for break-glass (their name never goes to the directory), a directory that is
// down is a 503 naming it while local users still sign in, and every attempt is audited with how
// it went. The expected groups are read from the LDIF by ldapsearch, not from the code.
#include <catch2/catch.hpp>

#include "tests/support/server/http_client.hpp"
#include "tests/support/server/slapd_server.hpp"
#include "tests/support/server/test_server.hpp"
#include "web/auth/ldap_directory.hpp"

namespace ldap_sign_in_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;

namespace {

std::filesystem::path ldif() {
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "data" /
         "ldap" / "directory.ldif";
}

HttpResult sign_in(TestServer& server, const std::string& user, const std::string& password) {
  HttpRequest r;
  r.method = "POST";
  r.target = "/api/v1/session";
  r.body = json{{"username", user}, {"password", password}}.dump();
  return http_request(server.port(), r);
}

HttpResult get_with_cookie(TestServer& server, const std::string& target,
                           const HttpResult& signed_in) {
  const std::string set = signed_in.header("set-cookie");
  HttpRequest r;
  r.target = target;
  r.headers["Cookie"] = set.substr(0, set.find(';'));
  return http_request(server.port(), r);
}

const std::string kGpuOps = "cn=gpu-ops,ou=groups,dc=ironhold,dc=test";
const std::string kAuditors = "cn=auditors,ou=groups,dc=ironhold,dc=test";
const std::string kFleetAdmins = "cn=fleet-admins,ou=groups,dc=ironhold,dc=test";

struct Directory {
  SlapdServer slapd{ldif()};
  TestServer server;
  std::string admin = server.token("admin");

  Directory() {
    REQUIRE(http_send(server.port(), "POST", "/api/v1/projects", {{"name", "research"}}, admin)
                .status == 201);
    web::auth::LdapConfig config = web::auth::parse_ldap_config(
        {{"url", slapd.ldaps_url()},
         {"ca_file", slapd.ca_file().string()},
         {"bind_dn", "cn=ironhold-search,ou=services,dc=ironhold,dc=test"},
         {"bind_password", "search-secret"},
         {"user_base", "ou=people,dc=ironhold,dc=test"},
         {"group_base", "ou=groups,dc=ironhold,dc=test"}});
    // Mapped as an admin would write it, spacing and case of the DNs their own.
    const auto groups = parse_role_mappings(
        json::array({{{"group", "CN=GPU-Ops, OU=Groups, DC=ironhold, DC=test"},
                      {"project", "research"},
                      {"role", "operator"}},
                     {{"group", kAuditors}, {"project", "research"}, {"role", "auditor"}},
                     {{"group", kFleetAdmins}, {"project", nullptr}, {"role", "admin"}}}),
        "ldap.groups", "group");
    server.host().use_directory(std::make_unique<web::auth::LdapDirectory>(config), groups);
  }

  // The groups `uid` is a member of, as ldapsearch finds them.
  std::vector<std::string> groups_of(const std::string& uid) {
    const std::string text =
        slapd.search("ou=groups,dc=ironhold,dc=test",
                     "(member=uid=" + uid + ",ou=people,dc=ironhold,dc=test)", {"dn"});
    std::vector<std::string> out;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("dn: ", 0) == 0) out.push_back(line.substr(4));
    return out;
  }

  json audit_of_sign_ins() {
    return http_get(server.port(), "/api/v1/audit?action=session.create", admin).json()["items"];
  }
};

}  // namespace

TEST_CASE("people sign in with their directory account and get the roles of their groups",
          "[web][ldap]") {
  if (const auto missing = SlapdServer::missing_tools(); !missing.empty()) {
    WARN("skipped: " << missing << " not installed");
    return;
  }
  Directory d;
  const auto alice_groups = d.groups_of("alice");
  REQUIRE(std::count(alice_groups.begin(), alice_groups.end(), kGpuOps) == 1);
  REQUIRE(std::count(alice_groups.begin(), alice_groups.end(), kAuditors) == 1);

  const auto alice = sign_in(d.server, "alice", "alice-password");
  INFO(alice.body);
  REQUIRE(alice.status == 201);
  const json session = alice.json();
  CHECK(session["name"] == "alice");
  CHECK(session["role"] == "operator");
  REQUIRE(session["grants"].size() == 1);
  CHECK(session["grants"][0]["project"] == "research");
  const json caps = session["grants"][0]["capabilities"];
  CHECK(std::find(caps.begin(), caps.end(), "act") != caps.end());
  CHECK(std::find(caps.begin(), caps.end(), "audit") != caps.end());
  CHECK(get_with_cookie(d.server, "/api/v1/nodes", alice).status == 200);

  // The user is made at the first sign-in, marked as the directory's.
  const json users = http_get(d.server.port(), "/api/v1/users", d.admin).json()["items"];
  const auto made =
      std::find_if(users.begin(), users.end(), [](const json& u) { return u["name"] == "alice"; });
  REQUIRE(made != users.end());
  CHECK((*made)["source"] == "ldap");
  CHECK((*made)["external_id"] == "uid=alice,ou=people,dc=ironhold,dc=test");
  // Their password is the directory's: it cannot be set here.
  CHECK(http_send(d.server.port(), "PUT", "/api/v1/users/alice/password",
                  {{"password", "a new local password"}}, d.admin)
            .status == 409);

  // bob is a fleet admin everywhere.
  const auto bob = sign_in(d.server, "bob", "bob-password");
  REQUIRE(bob.status == 201);
  CHECK(bob.json()["role"] == "admin");
  CHECK(bob.json()["can"]["manage_everything"] == true);

  // carol is in no mapped group: signed in, and no project.
  REQUIRE(d.groups_of("carol").empty());
  const auto carol = sign_in(d.server, "carol", "carol-password");
  INFO(carol.body);
  REQUIRE(carol.status == 201);
  CHECK(carol.json()["grants"].empty());
  CHECK(carol.json()["role"] == "none");
  CHECK(carol.json()["can"]["read"] == false);

  // Wrong passwords and unknown people are the same 401.
  CHECK(sign_in(d.server, "alice", "not-her-password").status == 401);
  CHECK(sign_in(d.server, "nobody", "whatever-password").status == 401);
  CHECK(sign_in(d.server, "alice", "").status == 401);
  CHECK(sign_in(d.server, "*", "alice-password").status == 401);

  // A directory name that cannot be a user name here is refused, saying why.
  const auto dave = sign_in(d.server, "d*ve(x)", "dave-password");
  CHECK(dave.status == 403);
  CHECK(dave.body.find("not a user name here") != std::string::npos);

  // Every attempt is in the audit trail, with how it went.
  int directory_sign_ins = 0, refused = 0;
  for (const auto& e : d.audit_of_sign_ins()) {
    if (e["details"].value("via", "") != "ldap") continue;
    if (e["outcome"] == "201") {
      ++directory_sign_ins;
      CHECK(e["details"]["directory"]["dn"].get<std::string>().find("ou=people") !=
            std::string::npos);
    } else {
      ++refused;
    }
  }
  CHECK(directory_sign_ins == 3);
  CHECK(refused == 5);
}

TEST_CASE("local users stay for break-glass, also when the directory is down", "[web][ldap]") {
  if (const auto missing = SlapdServer::missing_tools(); !missing.empty()) {
    WARN("skipped: " << missing << " not installed");
    return;
  }
  Directory d;
  // A local "bob": the directory's bob cannot sign in as him, nor does his name go to the
  // directory.
  REQUIRE(http_send(d.server.port(), "POST", "/api/v1/users",
                    {{"name", "bob"},
                     {"password", "local bob's password"},
                     {"roles", json::array({{{"project", "research"}, {"role", "viewer"}}})}},
                    d.admin)
              .status == 201);
  CHECK(sign_in(d.server, "bob", "bob-password").status == 401);
  const auto local = sign_in(d.server, "bob", "local bob's password");
  REQUIRE(local.status == 201);
  CHECK(local.json()["role"] == "viewer");
  CHECK(d.slapd.log().find("filter=\"(uid=bob)\"") == std::string::npos);  // never searched

  d.slapd.stop();
  const auto down = sign_in(d.server, "alice", "alice-password");
  INFO(down.body);
  CHECK(down.status == 503);
  CHECK(down.body.find(d.slapd.ldaps_url()) != std::string::npos);
  CHECK(sign_in(d.server, "bob", "local bob's password").status == 201);
  d.slapd.start();
  CHECK(sign_in(d.server, "alice", "alice-password").status == 201);
  // The log does show the directory's own people searched for.
  CHECK(d.slapd.log().find("filter=\"(uid=alice)\"") != std::string::npos);
}

}  // namespace ldap_sign_in_test
