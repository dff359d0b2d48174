// `ironhold user ...`, `ironhold project ...` and `ironhold token ...` as an operator runs them on
// the server: the real binary on a test database (--database), checked through the stores and the
// audit trail that the service reads. Passwords come in on stdin; none, nor any token's secret, may
// land in the audit trail.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "inventory/crypto/secret_box.hpp"
#include "inventory/db/audit_store.hpp"
#include "inventory/db/database.hpp"
#include "inventory/db/project_store.hpp"
#include "inventory/db/token_store.hpp"
#include "inventory/db/user_store.hpp"
#include "tests/app/cli_run.hpp"
#include "tests/support/test_cluster.hpp"
#include "tests/support/test_database.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace user_commands_test {

#ifdef IRONHOLD_BINARY
using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;

namespace {

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

// A test database, a data directory for the audit key the commands make, and a reader on both.
struct Setup {
  TestDatabase database;
  TempDir dir{"ih-user-cli"};
  db::Database reader{{.url = database.url(), .pool_size = 1}};

  Run ironhold(std::vector<std::string> args, const std::string& input = {}) {
    args.insert(args.end(),
                {"--database", database.owner_url(), "--data-dir", dir.path().string()});
    return run_cli(std::move(args), {}, input);
  }

  std::optional<db::UserInfo> user(const std::string& name) {
    return db::UserStore(reader).get(name);
  }
  db::UserInfo existing_user(const std::string& name) {
    auto u = user(name);
    REQUIRE(u);
    return *u;
  }
  bool signs_in(const std::string& name, const std::string& password) {
    return db::UserStore(reader).check_password(name, password).has_value();
  }
  std::vector<db::AuditRecord> audit(const std::string& action) {
    return db::AuditStore(reader).list({.action = action}, 100);
  }
  // The audit chain as the service verifies it, under the key the commands made.
  db::ChainReport verify_chain() {
    db::Database verifier({.url = database.url(),
                           .pool_size = 1,
                           .audit_key = crypto::load_key_file(dir.path() / "audit.key", false,
                                                              "audit key", "the test")});
    return db::verify_audit_chain(verifier, nullptr);
  }
  // Every audit row, every column, as PostgreSQL prints it.
  std::string whole_audit_log() {
    return database.execute("SELECT coalesce(string_agg(a::text, E'\\n'), '') FROM audit_log a");
  }
};

bool holds(const db::UserInfo& u, Role role, const std::optional<std::string>& project) {
  for (const auto& g : u.grants)
    if (g.role == role && g.project == project) return true;
  return false;
}

}  // namespace

TEST_CASE("user add and passwd take the password from stdin, and the audit trail never holds it",
          "[user-cli]") {
  Setup s;
  const std::string first = "first-Pass-phrase-7f3c";
  const std::string second = "second-Pass-phrase-91ad";
  REQUIRE(s.ironhold({"project", "add", "lab"}).status == 0);

  // A Windows-style line ending is not part of the password.
  auto added = s.ironhold(
      {"user", "add", "alice", "--role", "operator", "--project", "lab", "--password-stdin"},
      first + "\r\n");
  INFO(added.err);
  REQUIRE(added.status == 0);
  CHECK(contains(added.err, "alice"));
  const auto alice = s.user("alice");
  REQUIRE(alice);
  CHECK(alice->grants.size() == 1);
  CHECK(holds(*alice, Role::operator_, "lab"));
  CHECK(s.signs_in("alice", first));
  CHECK_FALSE(s.signs_in("alice", first + "\r"));

  auto changed = s.ironhold({"user", "passwd", "alice", "--password-stdin"}, second + "\n");
  INFO(changed.err);
  REQUIRE(changed.status == 0);
  CHECK_FALSE(s.signs_in("alice", first));
  CHECK(s.signs_in("alice", second));

  const auto created = s.audit("user.create");
  REQUIRE(created.size() == 1);
  CHECK(created[0].entry.target_type == "user");
  CHECK(created[0].entry.target_id == alice->id);
  CHECK(created[0].entry.target_name == "alice");
  CHECK(created[0].entry.outcome == "ok");
  CHECK(created[0].entry.details["roles"] ==
        json::array({{{"project", "lab"}, {"role", "operator"}}}));
  CHECK(contains(created[0].entry.actor, "cli:"));
  const auto granted = s.audit("user.grant");
  REQUIRE(granted.size() == 1);
  CHECK(granted[0].entry.project == "lab");
  CHECK(granted[0].entry.details == json({{"project", "lab"}, {"role", "operator"}}));
  const auto password_set = s.audit("user.password");
  REQUIRE(password_set.size() == 1);
  CHECK(password_set[0].entry.target_id == alice->id);

  const std::string log = s.whole_audit_log();
  CHECK(contains(log, "user.password"));
  CHECK_FALSE(contains(log, first));
  CHECK_FALSE(contains(log, second));
  CHECK_FALSE(contains(s.database.execute("SELECT string_agg(u::text, '') FROM users u"), second));

  // The entries the commands wrote continue the chain the service verifies.
  const auto report = s.verify_chain();
  INFO(db::to_json(report).dump());
  CHECK(report.ok());
  CHECK(report.entries >= 4);

  const auto listed = s.ironhold({"user", "list", "-o", "json"});
  REQUIRE(listed.status == 0);
  const json users = json::parse(listed.out);
  REQUIRE(users.size() == 1);
  CHECK(users[0]["name"] == "alice");
  CHECK(users[0]["roles"] == json::array({{{"project", "lab"}, {"role", "operator"}}}));
  CHECK_FALSE(contains(listed.out, second));
}

TEST_CASE("a password under 10 characters is refused, naming the rule", "[user-cli]") {
  Setup s;
  auto weak = s.ironhold({"user", "add", "bob", "--password-stdin"}, "five5\n");
  CHECK(weak.status != 0);
  CHECK(contains(weak.err, "10 characters"));
  CHECK_FALSE(s.user("bob"));

  const std::string good = "a-Long-enough-one-42";
  REQUIRE(s.ironhold({"user", "add", "bob", "--password-stdin"}, good + "\n").status == 0);
  auto weak_change = s.ironhold({"user", "passwd", "bob", "--password-stdin"}, "five5\n");
  CHECK(weak_change.status != 0);
  CHECK(contains(weak_change.err, "10 characters"));
  CHECK(s.signs_in("bob", good));
  CHECK(s.audit("user.password").empty());

  // Without --password-stdin and without a terminal there is no one to ask.
  auto piped = s.ironhold({"user", "passwd", "bob"}, good + "\n");
  CHECK(piped.status == 2);
  CHECK(contains(piped.err, "--password-stdin"));
  auto empty = s.ironhold({"user", "add", "carol", "--password-stdin"}, "");
  CHECK(empty.status != 0);
  CHECK_FALSE(s.user("carol"));
}

TEST_CASE("user grant and revoke change a user's roles, per project or in every project",
          "[user-cli]") {
  Setup s;
  REQUIRE(s.ironhold({"project", "add", "lab"}).status == 0);
  REQUIRE(s.ironhold({"user", "add", "dana", "--password-stdin"}, "dana-Pass-phrase-1\n").status ==
          0);
  CHECK(s.existing_user("dana").grants.empty());
  CHECK(s.audit("user.grant").empty());

  REQUIRE(s.ironhold({"user", "grant", "dana", "--role", "admin"}).status == 0);
  REQUIRE(s.ironhold({"user", "grant", "dana", "--role", "auditor", "--project", "lab"}).status ==
          0);
  auto dana = s.existing_user("dana");
  CHECK(dana.grants.size() == 2);
  CHECK(holds(dana, Role::admin, std::nullopt));
  CHECK(holds(dana, Role::auditor, "lab"));
  const auto table = s.ironhold({"user", "list"});
  REQUIRE(table.status == 0);
  CHECK(contains(table.out, "LAST SIGN-IN"));
  CHECK(contains(table.out, "admin@*"));
  CHECK(contains(table.out, "auditor@lab"));

  auto unknown_project =
      s.ironhold({"user", "grant", "dana", "--role", "viewer", "--project", "nowhere"});
  CHECK(unknown_project.status == 1);
  CHECK(contains(unknown_project.err, "nowhere"));
  CHECK(s.ironhold({"user", "grant", "dana", "--role", "superuser"}).status == 2);
  CHECK(s.ironhold({"user", "grant", "nobody", "--role", "viewer"}).status == 1);

  REQUIRE(s.ironhold({"user", "revoke", "dana", "--role", "admin"}).status == 0);
  dana = s.existing_user("dana");
  CHECK(dana.grants.size() == 1);
  CHECK(holds(dana, Role::auditor, "lab"));
  // Not held any more: revoking it again is an error, and so is the role in the wrong project.
  CHECK(s.ironhold({"user", "revoke", "dana", "--role", "admin"}).status == 1);
  CHECK(s.ironhold({"user", "revoke", "dana", "--role", "auditor"}).status == 1);
  CHECK(s.existing_user("dana").grants.size() == 1);

  const auto revoked = s.audit("user.revoke");
  REQUIRE(revoked.size() == 1);
  CHECK(revoked[0].entry.details == json({{"project", nullptr}, {"role", "admin"}}));
  CHECK_FALSE(revoked[0].entry.project);
  const auto granted = s.audit("user.grant");
  REQUIRE(granted.size() == 2);
  CHECK(granted[0].entry.project == "lab");  // newest first
  CHECK(granted[0].entry.details == json({{"project", "lab"}, {"role", "auditor"}}));
  CHECK_FALSE(granted[1].entry.project);
}

TEST_CASE("user rm removes the user, who can no longer sign in", "[user-cli]") {
  Setup s;
  const std::string password = "erin-Pass-phrase-2";
  REQUIRE(
      s.ironhold({"user", "add", "erin", "--role", "viewer", "--password-stdin"}, password + "\n")
          .status == 0);
  const std::string id = s.existing_user("erin").id;
  REQUIRE(s.ironhold({"user", "rm", "erin"}).status == 0);
  CHECK_FALSE(s.user("erin"));
  CHECK_FALSE(s.signs_in("erin", password));
  CHECK(s.ironhold({"user", "rm", "erin"}).status == 1);
  const auto removed = s.audit("user.remove");
  REQUIRE(removed.size() == 1);
  CHECK(removed[0].entry.target_id == id);
  CHECK(removed[0].entry.target_name == "erin");
  CHECK(s.ironhold({"user", "list", "-o", "json"}).out.find("erin") == std::string::npos);
}

TEST_CASE("project add, list and rm", "[user-cli]") {
  Setup s;
  auto added = s.ironhold({"project", "add", "scratch", "--description", "a place to try things"});
  INFO(added.err);
  REQUIRE(added.status == 0);
  const auto project = db::ProjectStore(s.reader).get("scratch");
  REQUIRE(project);
  CHECK(project->description == "a place to try things");
  CHECK(s.ironhold({"project", "add", "scratch"}).status == 1);
  CHECK(s.ironhold({"project", "add", "Not A Name"}).status == 1);

  const auto listed = s.ironhold({"project", "list", "-o", "json"});
  REQUIRE(listed.status == 0);
  bool found = false;
  for (const auto& p : json::parse(listed.out))
    if (p["name"] == "scratch") {
      found = true;
      CHECK(p["description"] == "a place to try things");
      CHECK(p["nodes"] == 0);
    }
  CHECK(found);
  const auto table = s.ironhold({"project", "list"});
  REQUIRE(table.status == 0);
  CHECK(contains(table.out, "NODES"));
  CHECK(contains(table.out, "ACCOUNTS"));
  CHECK(contains(table.out, "a place to try things"));

  const auto created = s.audit("project.create");
  REQUIRE(created.size() == 1);
  CHECK(created[0].entry.project == "scratch");
  CHECK(created[0].entry.target_name == "scratch");

  auto removed = s.ironhold({"project", "rm", "scratch"});
  INFO(removed.err);
  CHECK(removed.status == 0);
  CHECK_FALSE(db::ProjectStore(s.reader).get("scratch"));
  const auto removal = s.audit("project.remove");
  REQUIRE(removal.size() == 1);
  CHECK(removal[0].entry.project == "scratch");
  CHECK(s.ironhold({"project", "rm", "scratch"}).status == 1);
}

TEST_CASE("project rm refuses a project that holds a node", "[user-cli]") {
  Setup s;
  REQUIRE(s.ironhold({"project", "add", "racks"}).status == 0);
  s.database.execute(
      "INSERT INTO nodes (name, source, driver, project) VALUES ('node-1', 'bmc', 'redfish', "
      "'racks')");
  const auto table = s.ironhold({"project", "list", "-o", "json"});
  for (const auto& p : json::parse(table.out))
    if (p["name"] == "racks") CHECK(p["nodes"] == 1);

  auto refused = s.ironhold({"project", "rm", "racks"});
  CHECK(refused.status == 1);
  CHECK(contains(refused.err, "racks"));
  CHECK(db::ProjectStore(s.reader).get("racks"));
  CHECK(s.audit("project.remove").empty());
}
TEST_CASE("token create and revoke are audited with who, what and which token, never the secret",
          "[user-cli][token-cli]") {
  Setup s;
  REQUIRE(s.ironhold({"project", "add", "lab"}).status == 0);
  REQUIRE(s.ironhold({"user", "add", "gil", "--password-stdin"}, "gil-Pass-phrase-3\n").status ==
          0);

  const auto made =
      s.ironhold({"token", "create", "--name", "lab-ci", "--role", "operator", "--project", "lab"});
  INFO(made.err);
  REQUIRE(made.status == 0);
  const std::string secret = made.out.substr(0, made.out.find('\n'));
  const auto token = db::TokenStore(s.reader).authenticate(secret);
  REQUIRE(token);
  const auto for_gil = s.ironhold({"token", "create", "--name", "gil-own", "--user", "gil"});
  INFO(for_gil.err);
  REQUIRE(for_gil.status == 0);
  const std::string gil_secret = for_gil.out.substr(0, for_gil.out.find('\n'));
  const auto gil_token = db::TokenStore(s.reader).authenticate(gil_secret);
  REQUIRE(gil_token);

  const auto created = s.audit("token.create");
  REQUIRE(created.size() == 2);
  const auto& service = created[1].entry;  // newest first
  CHECK_THAT(service.actor, Catch::StartsWith("cli:"));
  CHECK(service.target_type == "token");
  CHECK(service.target_id == token->id);
  CHECK(service.target_name == "lab-ci");
  CHECK(service.outcome == "ok");
  CHECK(service.project == "lab");
  CHECK(service.details == json({{"role", "operator"}, {"project", "lab"}, {"user", nullptr}}));
  const auto& own = created[0].entry;
  CHECK(own.target_id == gil_token->id);
  CHECK(own.target_name == "gil-own");
  CHECK_FALSE(own.project);
  CHECK(own.details == json({{"role", nullptr}, {"project", nullptr}, {"user", "gil"}}));

  // Revoked by name: the entry names the same token, and the secret stops working.
  const auto revoked = s.ironhold({"token", "revoke", "lab-ci"});
  INFO(revoked.err);
  REQUIRE(revoked.status == 0);
  CHECK_FALSE(db::TokenStore(s.reader).authenticate(secret));
  CHECK(db::TokenStore(s.reader).authenticate(gil_secret));
  const auto revocations = s.audit("token.revoke");
  REQUIRE(revocations.size() == 1);
  CHECK(revocations[0].entry.actor == service.actor);
  CHECK(revocations[0].entry.target_type == "token");
  CHECK(revocations[0].entry.target_id == token->id);
  CHECK(revocations[0].entry.target_name == "lab-ci");
  CHECK(revocations[0].entry.outcome == "ok");
  CHECK(revocations[0].entry.project == "lab");
  // A revocation that finds nothing changes nothing and records nothing.
  CHECK(s.ironhold({"token", "revoke", "lab-ci"}).status == 1);
  CHECK(s.audit("token.revoke").size() == 1);

  // Neither secret, nor its stored hash, is anywhere in the trail.
  const std::string log = s.whole_audit_log();
  CHECK(contains(log, "token.revoke"));
  for (const auto& shown : {secret, gil_secret}) {
    CHECK_FALSE(contains(log, shown));
    CHECK_FALSE(contains(log, shown.substr(3)));
  }
  CHECK_FALSE(contains(
      log, s.database.execute("SELECT encode(token_hash, 'hex') FROM api_tokens WHERE name = "
                              "'lab-ci'")));

  // The entries continue the chain the service verifies.
  const auto report = s.verify_chain();
  INFO(db::to_json(report).dump());
  CHECK(report.ok());
}
#endif

}  // namespace user_commands_test
