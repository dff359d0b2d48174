// `ironhold backup --output FILE` and `ironhold restore FILE`: the Ironhold database as one
// pg_dump archive (custom format), made by the server's own version of pg_dump as the owner role,
// also while the service runs (pg_dump reads one consistent snapshot); and back into an empty
// database, or one whose data it replaces (--force), then migrated to this version. The keys are
// not in the database and so not in the backup: restoring needs the master key file and the audit
// key file of the installation the backup was made on (see docs/operations.md).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>

#include "app/cli/args.hpp"
#include "app/cli/client_options.hpp"
#include "app/server/backup_archive.hpp"
#include "app/server/commands.hpp"
#include "app/server/database_target.hpp"
#include "app/server/pg_tools.hpp"
#include "inventory/audit/seal.hpp"
#include "inventory/crypto/primitives.hpp"
#include "inventory/crypto/sha256_stream.hpp"
#include "inventory/db/audit_store.hpp"
#include "inventory/db/backup_target.hpp"
#include "inventory/db/key_rotation.hpp"
#include "inventory/db/migrator.hpp"
#include "inventory/error.hpp"

namespace ironhold::app {
namespace {

namespace fs = std::filesystem;

struct FileDigest {
  std::uintmax_t bytes = 0;
  std::string sha256;
};

FileDigest digest_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(ErrorKind::invalid, "cannot read " + file.string());
  crypto::Sha256Stream hash;
  FileDigest digest;
  std::string buffer(1 << 20, '\0');
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    hash.update(std::string_view(buffer.data(), got));
    digest.bytes += got;
  }
  if (in.bad()) throw Error(ErrorKind::invalid, "cannot read " + file.string());
  digest.sha256 = crypto::to_hex(hash.finish());
  return digest;
}

std::string schema_version(const std::vector<std::string>& migrations) {
  if (migrations.empty()) return "no migration applied";
  return migrations.back() + " (" + std::to_string(migrations.size()) + " migrations)";
}

// audit.key beside the master key unless --audit-key-file names it: where load_audit_key_for()
// looks.
fs::path audit_key_path_for(const cli::Args& args, const DatabaseTarget& target) {
  if (auto file = args.get("audit-key-file"); file && !file->empty()) return *file;
  return master_key_path_for(args, target).parent_path() / "audit.key";
}

void record(db::Database& database, const std::string& action, const std::string& database_name,
            nlohmann::json details) {
  db::AuditEntry entry;
  entry.actor = local_actor();
  entry.action = action;
  entry.target_type = "database";
  entry.target_id = database_name;
  entry.outcome = "ok";
  entry.details = std::move(details);
  db::AuditStore(database).record(entry);
}

std::string utc_stamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &tm);
  return text;
}

// ---- backup ----

// FILE.partial, empty and readable by us alone, whatever an interrupted run left there.
void create_private_file(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    throw Error(ErrorKind::invalid, "cannot create " + path.string() + ": " + std::strerror(errno));
  const bool private_mode = ::fchmod(fd, 0600) == 0;
  ::close(fd);
  if (!private_mode)
    throw Error(ErrorKind::invalid,
                "cannot make " + path.string() + " private: " + std::strerror(errno));
}

// Moves the finished dump into place; without `replace`, never over a file that appeared
// meanwhile (link fails when the name exists, where rename would replace it).
void publish(const fs::path& partial, const fs::path& file, bool replace) {
  if (!replace) {
    if (::link(partial.c_str(), file.c_str()) == 0) {
      fs::remove(partial);
      return;
    }
    if (errno == EEXIST)
      throw Error(ErrorKind::conflict, file.string() + " exists; pass --force to replace it");
    // A file system without hard links: check, then rename.
    if (fs::exists(fs::symlink_status(file)))
      throw Error(ErrorKind::conflict, file.string() + " exists; pass --force to replace it");
  }
  std::error_code ec;
  fs::rename(partial, file, ec);
  if (ec)
    throw Error(ErrorKind::invalid,
                "cannot rename " + partial.string() + " to " + file.string() + ": " + ec.message());
}

int backup(std::span<const std::string> argv) {
  auto options = database_options();
  options.push_back({"output", 'o', true, false, "the backup file to write", "", "", "FILE"});
  options.push_back({"force", 0, false, false, "replace FILE when it exists"});
  cli::Args args("ironhold backup", "",
                 "Write the database to FILE (pg_dump's custom format), also while the service "
                 "runs. The master key and audit key files are not in it: keep copies of them",
                 options);
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  if (!args.positional().empty())
    throw cli::UsageError("backup takes no arguments; name the file with --output FILE");
  const auto output = args.get("output");
  if (!output || output->empty()) throw cli::UsageError("--output FILE is required");
  const fs::path file = *output;
  const bool force = args.flag("force");
  if (!force && fs::exists(fs::symlink_status(file)))
    throw Error(ErrorKind::conflict, file.string() + " exists; pass --force to replace it");

  DatabaseTarget target = open_database_target(args, false);
  const db::DatabaseFacts facts = db::inspect_database(target.owner_url);
  if (facts.migrations.empty())
    throw Error(ErrorKind::invalid, "database " + facts.database +
                                        " holds no Ironhold data (no migration applied): nothing "
                                        "to back up");
  const fs::path pg_dump = find_pg_tool("pg_dump", facts.server_major);
  const fs::path partial = file.string() + ".partial";
  create_private_file(partial);
  const PgConnection connection(target.owner_url, !target.embedded());
  const auto dumped = connection.run(
      pg_dump, {"--format=custom", "--lock-wait-timeout=120s", "--file=" + partial.string()});
  if (!dumped.ok()) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    throw Error(ErrorKind::unavailable, "pg_dump could not back up database " + facts.database +
                                            " (" + tool_said(dumped) + ")");
  }
  publish(partial, file, force);
  const FileDigest digest = digest_of(file);

  db::Database database(db::DatabaseOptions{
      .url = target.runtime_url, .pool_size = 1, .audit_key = load_audit_key_for(args, target)});
  record(database, "backup.create", facts.database,
         {{"file", fs::absolute(file).string()},
          {"bytes", digest.bytes},
          {"sha256", digest.sha256},
          {"schema_version", facts.migrations.back()}});
  std::cerr << "wrote " << file.string() << ": " << digest.bytes << " bytes of database "
            << facts.database << " at schema " << schema_version(facts.migrations) << ", sha256 "
            << digest.sha256 << "\n";
  std::string keys;
  for (const fs::path& key : {master_key_path_for(args, target), audit_key_path_for(args, target)})
    if (fs::exists(key)) keys += (keys.empty() ? "" : " and ") + key.string();
  if (!keys.empty())
    std::cerr << "the backup holds no key: restoring it needs " << keys
              << "; keep a copy of each, apart from the backup\n";
  return 0;
}

// ---- restore ----

// The backup's migrations must be this version's: a newer one's would not migrate, and an edited
// one would stop the migrator after the restore.
void check_migrations(const fs::path& file, const ArchiveFacts& archive) {
  for (const auto& m : archive.migrations) {
    const auto bundled = db::bundled_migrations();
    const auto ours = std::find_if(bundled.begin(), bundled.end(),
                                   [&](const db::Migration& b) { return b.name == m.name; });
    if (ours == bundled.end())
      throw Error(ErrorKind::invalid,
                  file.string() + " was made by a newer Ironhold: it holds migration " + m.name +
                      ", which this version does not have; restore it with that version or a "
                      "later one. No database was changed");
    if (db::migration_checksum(ours->sql) != m.checksum)
      throw Error(ErrorKind::invalid, "migration " + m.name + " in " + file.string() +
                                          " differs from this version's; restore it with the "
                                          "version that made it. No database was changed");
  }
}

// The keys the backup was sealed under must be here: the database holds credentials sealed under
// the master key and an audit chain sealed under the audit key, never the keys. None is made up.
crypto::Key check_keys(const cli::Args& args, const DatabaseTarget& target, const fs::path& file,
                       const ArchiveFacts& archive) {
  const fs::path master_file = master_key_path_for(args, target);
  const std::string from = " of the installation " + file.string() + " was made on";
  if (!archive.sealed_under.empty()) {
    if (!fs::exists(master_file))
      throw Error(ErrorKind::invalid,
                  "restore needs the master key file" + from + ", at " + master_file.string() +
                      " (or --master-key-file): the backup holds credentials sealed under that "
                      "key, never the key. Copy it there (mode 0600) and run restore again. No "
                      "database was changed");
    const crypto::Keyring ring = crypto::load_master_keyring(master_file, false);
    std::vector<std::string> held{crypto::key_id_of(ring.current)};
    for (const auto& key : ring.previous) held.push_back(crypto::key_id_of(key));
    for (const auto& [key_id, count] : archive.sealed_under)
      if (std::find(held.begin(), held.end(), key_id) == held.end())
        throw Error(ErrorKind::invalid, std::to_string(count) + " credentials in " + file.string() +
                                            " are sealed under master key " + key_id + ", which " +
                                            master_file.string() +
                                            " does not hold: use the master key file" + from +
                                            ". No database was changed");
  }
  const fs::path audit_file = audit_key_path_for(args, target);
  if (archive.audit_key_check_hex && !fs::exists(audit_file))
    throw Error(ErrorKind::invalid,
                "restore needs the audit key file" + from + ", at " + audit_file.string() +
                    " (or --audit-key-file): the backup's audit trail is sealed under it. Copy it "
                    "there (mode 0600) and run restore again. No database was changed");
  // Made here only when the backup's chain has no entry sealed yet.
  const crypto::Key audit_key = load_audit_key_for(args, target);
  if (archive.audit_key_check_hex) {
    std::string theirs = *archive.audit_key_check_hex;
    std::transform(theirs.begin(), theirs.end(), theirs.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (theirs != crypto::to_hex(audit::key_check(audit_key)))
      throw Error(ErrorKind::invalid, "the audit trail in " + file.string() +
                                          " is sealed under another audit key than " +
                                          audit_file.string() + ": put the audit key file" + from +
                                          " there (or pass --audit-key-file). No database was "
                                          "changed");
  }
  return audit_key;
}

// Tasks' write-only secrets were not checked before: say so when some cannot be opened.
void warn_about_other_keys(const cli::Args& args, const DatabaseTarget& target,
                           db::Database& database) {
  const fs::path master_file = master_key_path_for(args, target);
  if (!fs::exists(master_file)) {
    if (const long long sealed = db::secrets_not_under(database, ""); sealed > 0)
      std::cerr << "warning: the database holds " << sealed << " sealed secrets and there is no "
                << "master key file at " << master_file.string()
                << ": put the one of the installation the backup was made on there before "
                   "starting the service\n";
    return;
  }
  const auto ring = crypto::load_master_keyring(master_file, false);
  if (!ring.previous.empty()) return;  // mid-rotation: `keys rotate --finish` reports the rest
  const std::string current = crypto::key_id_of(ring.current);
  if (const long long other = db::secrets_not_under(database, current); other > 0)
    std::cerr << "warning: " << other << " sealed secrets are under another key than master key "
              << current << " of " << master_file.string()
              << ": they cannot be opened unless that key is found\n";
}

std::string describe(const db::DatabaseSession& s) {
  std::string text = "pid " + std::to_string(s.pid) + " (" + s.user;
  if (!s.application.empty()) text += ", \"" + s.application + "\"";
  if (!s.client.empty()) text += ", " + s.client;
  return text + (s.since.empty() ? "" : ", since " + s.since) + ")";
}

// Refuses what restoring would destroy or collide with.
void check_target(const db::DatabaseFacts& facts, bool force) {
  if (facts.set_aside_exists)
    throw Error(ErrorKind::conflict,
                std::string("database ") + facts.database + " still holds schema " +
                    db::set_aside_schema +
                    ": an earlier restore was interrupted, and that schema is what the database "
                    "held before it. Look at both with `ironhold db shell`, then either drop it "
                    "(DROP SCHEMA " +
                    db::set_aside_schema +
                    " CASCADE) to keep schema public, or go back to it (DROP SCHEMA public "
                    "CASCADE; ALTER SCHEMA " +
                    db::set_aside_schema + " RENAME TO public), and run restore again");
  if (!facts.sessions.empty()) {
    std::string list;
    for (const auto& s : facts.sessions) list += (list.empty() ? "" : ", ") + describe(s);
    throw Error(ErrorKind::conflict,
                std::to_string(facts.sessions.size()) + " other session" +
                    (facts.sessions.size() == 1 ? " is" : "s are") + " connected to database " +
                    facts.database + ": " + list +
                    ". Stop `ironhold serve` and everything else using it, then run restore again");
  }
  if (force) return;
  if (!facts.migrations.empty())
    throw Error(ErrorKind::conflict, "database " + facts.database +
                                         " already holds Ironhold data (schema at " +
                                         schema_version(facts.migrations) +
                                         "); pass --force to replace it with the backup");
  if (facts.relations > 0)
    throw Error(ErrorKind::conflict, "database " + facts.database + " is not empty (" +
                                         std::to_string(facts.relations) +
                                         " tables, views or sequences in schema public); pass "
                                         "--force to replace them with the backup");
}

// pg_restore into a fresh schema public, all in one transaction, while the old one waits aside;
// on failure the old one is put back. Returns whether the old schema could be dropped.
bool restore_into(const DatabaseTarget& target, const fs::path& pg_restore, const fs::path& file,
                  bool without_privileges) {
  db::set_public_aside(target.owner_url);
  std::vector<std::string> args{"--no-owner", "--single-transaction", "--exit-on-error"};
  if (without_privileges) args.push_back("--no-acl");
  args.push_back(fs::absolute(file).string());
  const PgConnection connection(target.owner_url, !target.embedded());
  const auto restored = connection.run(pg_restore, args);
  if (!restored.ok()) {
    try {
      db::put_public_back(target.owner_url);
    } catch (const std::exception& e) {
      throw Error(ErrorKind::unavailable,
                  "pg_restore could not restore " + file.string() + " (" + tool_said(restored) +
                      "), and the database could not be put back as it was (" + e.what() +
                      "): what it held is in schema " + db::set_aside_schema);
    }
    throw Error(ErrorKind::unavailable, "pg_restore could not restore " + file.string() + " (" +
                                            tool_said(restored) + "); the database is as it was");
  }
  try {
    db::drop_set_aside(target.owner_url);
    return true;
  } catch (const std::exception& e) {
    std::cerr << "warning: " << e.what() << "; drop it yourself (DROP SCHEMA "
              << db::set_aside_schema << " CASCADE in `ironhold db shell`)\n";
    return false;
  }
}

// The head anchored outside the database is one the restored chain may never reach (a backup is
// older): the anchor file is set aside, so that verifying does not report the restore as
// deletions. Whoever can restore here can edit that file anyway; the move is audited.
std::optional<fs::path> set_anchor_aside(const DatabaseTarget& target) {
  const fs::path anchor = target.data_dir / "audit-anchor";
  if (!fs::exists(anchor)) return std::nullopt;
  const fs::path aside = anchor.string() + ".before-restore-" + utc_stamp();
  fs::rename(anchor, aside);
  return aside;
}

int restore(std::span<const std::string> argv) {
  auto options = database_options();
  options.push_back(
      {"force", 0, false, false, "replace the Ironhold data the database holds with the backup"});
  cli::Args args("ironhold restore", "FILE",
                 "Restore a backup made by `ironhold backup` into the database, then migrate it. "
                 "Needs the master key and audit key files the backup was made with",
                 options);
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  if (args.positional().size() != 1)
    throw cli::UsageError("name the one backup file to restore: ironhold restore FILE");
  const fs::path file = args.positional()[0];
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    throw Error(ErrorKind::not_found, file.string() + " is not a file");
  const FileDigest digest = digest_of(file);
  const bool force = args.flag("force");

  DatabaseTarget target = open_database_target(args, false);
  const db::DatabaseFacts facts = db::inspect_database(target.owner_url);
  const fs::path pg_restore = find_pg_tool("pg_restore", facts.server_major);
  const ArchiveFacts archive = read_archive(pg_restore, file);
  check_migrations(file, archive);
  const crypto::Key audit_key = check_keys(args, target, file, archive);
  check_target(facts, force);
  // The backup's grants name roles of the database it came from; a target without them (another
  // PostgreSQL, one role for everything) gets the tables without those grants.
  const auto missing = db::missing_roles(target.owner_url, archive.acl_roles);
  if (!missing.empty()) {
    std::string names;
    for (const auto& r : missing) names += (names.empty() ? "" : ", ") + r;
    std::cerr << "warning: this database has no role " << names
              << " that the backup grants privileges to; restoring without the backup's "
                 "privileges (everything belongs to "
              << facts.user << ")\n";
  }
  const bool replaced = !facts.migrations.empty() || facts.relations > 0;
  restore_into(target, pg_restore, file, !missing.empty());

  const auto migrated = db::migrate(target.owner_url);
  const auto anchor_aside = set_anchor_aside(target);
  db::Database database(
      db::DatabaseOptions{.url = target.runtime_url, .pool_size = 1, .audit_key = audit_key});
  std::vector<std::string> backup_migrations;
  for (const auto& m : archive.migrations) backup_migrations.push_back(m.name);
  record(database, "backup.restore", facts.database,
         {{"file", fs::absolute(file).string()},
          {"bytes", digest.bytes},
          {"sha256", digest.sha256},
          {"schema_version", backup_migrations.back()},
          {"migrations_applied", migrated.applied},
          {"replaced", replaced},
          {"privileges_skipped_for", missing},
          {"anchor_set_aside", anchor_aside ? nlohmann::json(anchor_aside->string()) : nullptr}});

  std::cerr << "restored " << file.string() << " (" << digest.bytes << " bytes, schema at "
            << schema_version(backup_migrations) << ", sha256 " << digest.sha256
            << ") into database " << facts.database << (replaced ? ", replacing what it held" : "")
            << "\n";
  if (!migrated.applied.empty())
    std::cerr << "migrated it to this version: " << migrated.applied.size()
              << " migrations applied, the latest " << migrated.applied.back() << "\n";
  if (anchor_aside)
    std::cerr << "the audit anchor file was moved to " << anchor_aside->string()
              << " (the restored audit trail ends before the heads it recorded)\n";
  warn_about_other_keys(args, target, database);
  return 0;
}

}  // namespace

int run_backup_command(std::span<const std::string> argv) {
  return cli::run_guarded("ironhold backup", [&] { return backup(argv); });
}

int run_restore_command(std::span<const std::string> argv) {
  return cli::run_guarded("ironhold restore", [&] { return restore(argv); });
}

}  // namespace ironhold::app
