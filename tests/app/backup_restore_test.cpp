// `ironhold backup` and `ironhold restore` as an operator runs them: the real binary, on an
// embedded data directory and on test databases (--database). A backup restored into a fresh
// installation that has the old one's key files brings back its nodes (with credentials that
// open), users, projects, tokens and an audit chain that still verifies, with the runtime role's
// privileges as they were; what would be lost or cannot work is refused before anything changes.
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <pqxx/pqxx>
#include <sstream>

#include "app/server/backup_archive.hpp"
#include "app/server/pg_tools.hpp"
#include "inventory/crypto/primitives.hpp"
#include "inventory/crypto/secret_box.hpp"
#include "inventory/db/audit_store.hpp"
#include "inventory/db/database.hpp"
#include "inventory/db/embedded_cluster.hpp"
#include "inventory/db/migrator.hpp"
#include "inventory/db/node_store.hpp"
#include "inventory/db/project_store.hpp"
#include "inventory/db/token_store.hpp"
#include "inventory/db/user_store.hpp"
#include "inventory/model/node_spec.hpp"
#include "tests/app/cli_run.hpp"
#include "tests/support/test_cluster.hpp"
#include "tests/support/test_database.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace backup_restore_test {

using namespace ironhold;
using namespace ironhold::test;
using nlohmann::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

std::string read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void write_bytes(const fs::path& file, const std::string& bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::string latest_migration() {
  std::string latest;
  for (const auto& m : db::bundled_migrations()) latest = std::max(latest, m.name);
  return latest;
}

crypto::Key key_in(const fs::path& file) {
  return crypto::load_key_file(file, false, "audit key", "the test");
}

// A data directory whose embedded cluster this test starts, stopped and removed afterwards with
// whatever it put outside (a cluster relocated for the database user, a socket directory).
class DataDir {
 public:
  explicit DataDir(const std::string& name) : path_(home_.path() / name) {
    fs::create_directories(path_);
  }
  ~DataDir() {
    cluster_.reset();
    try {
      db::stop_embedded_cluster(path_);
    } catch (const std::exception& e) {
      WARN("stopping a test cluster failed: " << e.what());
    }
    std::error_code ignored;
    for (const auto& p : outside_) fs::remove_all(p, ignored);
  }
  DataDir(const DataDir&) = delete;
  DataDir& operator=(const DataDir&) = delete;

  const fs::path& path() const { return path_; }
  db::EmbeddedCluster& cluster() {
    if (!cluster_) {
      cluster_ = db::EmbeddedCluster::start({.data_dir = path_, .start_timeout = 60s});
      for (const fs::path& p : {cluster_->cluster_dir().parent_path(), cluster_->socket_dir()})
        if (p.string().rfind(home_.path().string(), 0) != 0) outside_.push_back(p);
    }
    return *cluster_;
  }
  Run ironhold(std::vector<std::string> args, const std::string& input = {}) const {
    args.insert(args.end(), {"--data-dir", path_.string()});
    return run_cli(std::move(args), {}, input);
  }

 private:
  TempDir home_{"ih-backup"};
  fs::path path_;
  std::unique_ptr<db::EmbeddedCluster> cluster_;
  std::vector<fs::path> outside_;
};

// What the runtime role may do to a table, as the owner sees it.
std::string runtime_privileges(const std::string& owner_url, const std::string& table) {
  pqxx::connection c(owner_url);
  pqxx::read_transaction tx(c);
  std::string text;
  for (const char* p : {"SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE"})
    if (tx.exec_params1("SELECT has_table_privilege($1, $2, $3)", db::runtime_role, table, p)[0]
            .as<bool>())
      text += std::string(text.empty() ? "" : ",") + p;
  return text;
}

bool has_table(const std::string& owner_url, const std::string& table) {
  pqxx::connection c(owner_url);
  pqxx::read_transaction tx(c);
  return !tx.exec_params1("SELECT to_regclass($1)", "public." + table)[0].is_null();
}

struct Restored {
  bool user_signs_in = false;
  bool project_there = false;
  std::optional<std::string> token_name;
  std::optional<std::string> node_password;
  db::ChainReport chain;
  size_t restore_entries = 0;
};

Restored look_into(db::EmbeddedCluster& cluster, const fs::path& data_dir,
                   const std::string& password, const std::string& token) {
  Restored r;
  db::Database database(
      {.url = cluster.runtime_url(), .pool_size = 1, .audit_key = key_in(data_dir / "audit.key")});
  r.user_signs_in = db::UserStore(database).check_password("alice", password).has_value();
  for (const auto& p : db::ProjectStore(database).list()) r.project_there |= p.name == "lab";
  if (auto t = db::TokenStore(database).authenticate(token)) r.token_name = t->name;
  const crypto::SecretBox box(crypto::load_master_key(data_dir / "master.key", false));
  db::NodeStore nodes(database, box);
  if (auto secrets = nodes.secrets(nodes.get("gpu-1").id); secrets.credentials)
    r.node_password = secrets.credentials->password;
  r.chain = db::verify_audit_chain(database, nullptr);
  r.restore_entries = db::AuditStore(database).list({.action = "backup.restore"}, 10).size();
  return r;
}

}  // namespace

#ifdef IRONHOLD_BINARY

TEST_CASE("a backup of a data directory restores into a fresh one that has the same key files",
          "[backup]") {
  const std::string password = "alice-Pass-phrase-5e1d";
  DataDir source("source");
  db::EmbeddedCluster& a = source.cluster();
  REQUIRE(source.ironhold({"project", "add", "lab"}).status == 0);
  REQUIRE(source
              .ironhold({"user", "add", "alice", "--role", "operator", "--project", "lab",
                         "--password-stdin"},
                        password + "\n")
              .status == 0);
  const Run made = source.ironhold({"token", "create", "--role", "admin", "--name", "ops"});
  REQUIRE(made.status == 0);
  const std::string token = made.out.substr(0, made.out.find('\n'));
  {
    db::Database database({.url = a.runtime_url(), .pool_size = 1});
    // As `ironhold serve` makes it on first start.
    const crypto::SecretBox box(crypto::load_master_key(source.path() / "master.key", true));
    db::NodeStore(database, box)
        .create(
            parse_node_spec({{"name", "gpu-1"},
                             {"driver", "redfish"},
                             {"endpoint", "https://192.0.2.10"},
                             {"credentials", {{"username", "root"}, {"password", "bmc-pw-1"}}}}));
  }

  const fs::path file = source.path().parent_path() / "ironhold.backup";
  const Run backed_up = source.ironhold({"backup", "--output", file.string()});
  INFO(backed_up.err);
  REQUIRE(backed_up.status == 0);
  CHECK(contains(backed_up.err, latest_migration()));
  CHECK(contains(backed_up.err, (source.path() / "master.key").string()));
  CHECK(contains(backed_up.err, (source.path() / "audit.key").string()));
  REQUIRE(fs::exists(file));
  CHECK_FALSE(fs::exists(file.string() + ".partial"));
  CHECK((fs::status(file).permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write));
  const std::string bytes = read_bytes(file);
  {
    db::Database database({.url = a.runtime_url(), .pool_size = 1});
    const auto entries = db::AuditStore(database).list({.action = "backup.create"}, 10);
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].entry.details["sha256"] == crypto::sha256_hex(bytes));
    CHECK(entries[0].entry.details["bytes"] == bytes.size());
    CHECK(entries[0].entry.details["file"] == fs::absolute(file).string());
    CHECK(entries[0].entry.details["schema_version"] == latest_migration());
  }
  const std::string source_audit_privileges = runtime_privileges(a.owner_url(), "audit_log");
  const std::string source_node_privileges = runtime_privileges(a.owner_url(), "nodes");
  CHECK(source_audit_privileges == "SELECT,INSERT");

  DataDir target("target");
  db::EmbeddedCluster& b = target.cluster();
  // Without the source's keys nothing is restored, and no key is made up.
  const Run keyless = target.ironhold({"restore", file.string()});
  CHECK(keyless.status == 1);
  CHECK(contains(keyless.err, "master key file"));
  CHECK_FALSE(fs::exists(target.path() / "master.key"));
  fs::copy_file(source.path() / "master.key", target.path() / "master.key");
  crypto::load_key_file(target.path() / "audit.key", true, "audit key", "the test");  // another
  const Run wrong_key = target.ironhold({"restore", file.string()});
  CHECK(wrong_key.status == 1);
  CHECK(contains(wrong_key.err, "another audit key"));
  CHECK_FALSE(has_table(b.owner_url(), "nodes"));  // nothing was restored

  fs::copy_file(source.path() / "audit.key", target.path() / "audit.key",
                fs::copy_options::overwrite_existing);
  const Run restored = target.ironhold({"restore", file.string()});
  INFO(restored.err);
  REQUIRE(restored.status == 0);
  CHECK(contains(restored.err, "restored"));

  Restored r = look_into(b, target.path(), password, token);
  CHECK(r.user_signs_in);
  CHECK(r.project_there);
  CHECK(r.token_name == "ops");
  CHECK(r.node_password == "bmc-pw-1");
  INFO(db::to_json(r.chain).dump());
  CHECK(r.chain.ok());
  CHECK(r.chain.entries >= 4);  // project, user, grant, token ... and the restore itself
  CHECK(r.restore_entries == 1);
  // The backup's grants, not the target's defaults: the audit trail stays append-only.
  CHECK(runtime_privileges(b.owner_url(), "audit_log") == source_audit_privileges);
  CHECK(runtime_privileges(b.owner_url(), "nodes") == source_node_privileges);

  // Restoring again would replace what is there now: refused while anyone is connected, and
  // without --force.
  {
    db::Database connected({.url = b.runtime_url(), .pool_size = 1});
    const Run busy = target.ironhold({"restore", file.string(), "--force"});
    CHECK(busy.status == 1);
    CHECK(contains(busy.err, "connected"));
    CHECK(contains(busy.err, std::string("(") + db::runtime_role));
  }
  const Run again = target.ironhold({"restore", file.string()});
  CHECK(again.status == 1);
  CHECK(contains(again.err, "already holds Ironhold data"));
  CHECK(contains(again.err, "--force"));
  const Run forced = target.ironhold({"restore", file.string(), "--force"});
  INFO(forced.err);
  REQUIRE(forced.status == 0);
  r = look_into(b, target.path(), password, token);
  CHECK(r.user_signs_in);
  CHECK(r.node_password == "bmc-pw-1");
  CHECK(r.chain.ok());
  CHECK(r.restore_entries == 1);  // the first restore's entry went with the data it replaced
}

TEST_CASE("backup and restore refuse what would lose data, and a bad file changes nothing",
          "[backup]") {
  TestDatabase source;
  TempDir dir("ih-backup-files");
  crypto::load_master_key(dir.path() / "master.key", true);
  const auto ironhold = [&](const TestDatabase& database, std::vector<std::string> args) {
    args.insert(args.end(),
                {"--database", database.owner_url(), "--data-dir", dir.path().string()});
    return run_cli(std::move(args));
  };
  REQUIRE(ironhold(source, {"project", "add", "lab"}).status == 0);
  // An object the backup recreates: restoring over a database that has it fails half way.
  source.execute("CREATE SCHEMA extra");
  const fs::path file = dir.path() / "db.backup";
  REQUIRE(ironhold(source, {"backup", "--output", file.string()}).status == 0);
  const std::string bytes = read_bytes(file);

  const Run exists = ironhold(source, {"backup", "--output", file.string()});
  CHECK(exists.status == 1);
  CHECK(contains(exists.err, "--force"));
  CHECK(read_bytes(file) == bytes);
  CHECK(ironhold(source, {"backup", "--output", file.string(), "--force"}).status == 0);

  const fs::path cut = dir.path() / "cut.backup";
  write_bytes(cut, bytes.substr(0, bytes.size() / 2));
  const fs::path tail_cut = dir.path() / "tail-cut.backup";  // its table of contents is whole
  write_bytes(tail_cut, bytes.substr(0, bytes.size() - 16));
  const fs::path garbage = dir.path() / "garbage.backup";
  write_bytes(garbage, "this is not a backup\n");
  const auto tables_in = [](const TestDatabase& database) {
    return database.execute(
        "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'public' AND c.relkind = 'r'");
  };

  TestDatabase empty(TestDatabase::Kind::empty);
  const Run truncated = ironhold(empty, {"restore", cut.string()});
  CHECK(truncated.status == 1);
  CHECK(contains(truncated.err, "cut short"));
  CHECK(contains(truncated.err, "no database was changed"));
  const Run tail_truncated = ironhold(empty, {"restore", tail_cut.string()});
  CHECK(tail_truncated.status == 1);
  CHECK(contains(tail_truncated.err, "incomplete or damaged"));
  CHECK(contains(tail_truncated.err, "no database was changed"));
  const Run not_backup = ironhold(empty, {"restore", garbage.string()});
  CHECK(not_backup.status == 1);
  CHECK(contains(not_backup.err, "not a backup"));
  CHECK(tables_in(empty) == "0");

  TestDatabase holding;
  REQUIRE(ironhold(holding, {"project", "add", "keep"}).status == 0);
  const std::string before = tables_in(holding);
  CHECK(ironhold(holding, {"restore", cut.string(), "--force"}).status == 1);
  holding.execute("CREATE SCHEMA extra");
  const Run collided = ironhold(holding, {"restore", file.string(), "--force"});
  CHECK(collided.status == 1);
  CHECK(contains(collided.err, "extra"));
  CHECK(contains(collided.err, "the database is as it was"));
  CHECK(tables_in(holding) == before);
  CHECK(holding.execute("SELECT count(*) FROM projects WHERE name = 'keep'") == "1");
  CHECK(holding.execute("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'ironhold%'") == "0");

  const Run good = ironhold(empty, {"restore", file.string()});
  INFO(good.err);
  CHECK(good.status == 0);
  CHECK(empty.execute("SELECT count(*) FROM projects WHERE name = 'lab'") == "1");
  CHECK(empty.execute("SELECT count(*) FROM audit_log WHERE action = 'backup.restore'") == "1");
}

TEST_CASE("backup and restore name a usage error with status 2, a missing file with 1",
          "[backup]") {
  CHECK(run_cli({"backup"}).status == 2);
  CHECK(run_cli({"backup", "--output", "/tmp/x", "extra"}).status == 2);
  CHECK(run_cli({"restore"}).status == 2);
  const Run missing = run_cli({"restore", "/nonexistent/ironhold.backup"});
  CHECK(missing.status == 1);
  CHECK(contains(missing.err, "/nonexistent/ironhold.backup"));
  CHECK(run_cli({"backup", "--help"}).status == 0);
}

#endif

TEST_CASE("a database URL's password is taken out for the password file", "[backup]") {
  using app::without_password;
  auto uri =
      without_password("postgresql://ops:s%3Acr%40t@db.example:5433/ironhold?sslmode=require");
  CHECK(uri.conninfo == "postgresql://ops@db.example:5433/ironhold?sslmode=require");
  CHECK(uri.password == "s:cr@t");
  auto query = without_password("postgres://db/ironhold?password=pw&sslmode=verify-full");
  CHECK(query.conninfo == "postgres://db/ironhold?sslmode=verify-full");
  CHECK(query.password == "pw");
  auto none = without_password("postgresql:///ironhold?host=/run/postgresql");
  CHECK(none.conninfo == "postgresql:///ironhold?host=/run/postgresql");
  CHECK_FALSE(none.password);
  auto pairs = without_password("host=/tmp/s port=5432 password='a \\'b\\' c' dbname = ih");
  CHECK(pairs.password == "a 'b' c");
  CHECK_FALSE(contains(pairs.conninfo, "password"));
  CHECK(contains(pairs.conninfo, "host='/tmp/s'"));
  CHECK(contains(pairs.conninfo, "dbname='ih'"));
  CHECK_THROWS(without_password("host=/tmp/s password='open"));
  auto quoted = without_password("user=a password='p w\\'q'");
  CHECK(quoted.password == "p w'q");
}

TEST_CASE("a restore script's COPY blocks and privilege statements are read back", "[backup]") {
  const std::string sql =
      "SET x = 1;\n"
      "COPY public.audit_chain (singleton, key_check, head_seq) FROM stdin;\n"
      "t\t\\\\x0a1b\t3\n"
      "\\.\n"
      "COPY public.\"odd name\" (\"a b\", c) FROM stdin;\n"
      "x\\ty\t\\N\n"
      "\\.\n"
      "GRANT SELECT ON TABLE public.nodes TO ironhold;\n"
      "REVOKE ALL ON SCHEMA public FROM PUBLIC;\n"
      "GRANT USAGE ON SCHEMA public TO \"Odd \"\"Role\";\n"
      "ALTER DEFAULT PRIVILEGES FOR ROLE ironhold_owner IN SCHEMA public GRANT ALL ON FUNCTIONS "
      "TO ironhold;\n";
  const auto tables = app::parse_copy_blocks(sql);
  REQUIRE(tables.count("audit_chain") == 1);
  const auto& chain = tables.at("audit_chain");
  REQUIRE(chain.column("key_check") == 1u);
  REQUIRE(chain.rows.size() == 1);
  CHECK(chain.rows[0][1] == "\\x0a1b");
  REQUIRE(tables.count("odd name") == 1);
  CHECK(tables.at("odd name").columns == std::vector<std::string>{"a b", "c"});
  CHECK(tables.at("odd name").rows[0][0] == "x\ty");
  CHECK_FALSE(tables.at("odd name").rows[0][1]);
  CHECK(app::roles_in_acl_sql(sql) ==
        std::vector<std::string>{"ironhold", "Odd \"Role", "ironhold_owner"});
}

}  // namespace backup_restore_test
