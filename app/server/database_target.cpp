#include "app/server/database_target.hpp"

#include <pwd.h>
#include <unistd.h>

#include "inventory/db/migrator.hpp"
#include "inventory/error.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::app {

std::vector<cli::Option> database_options() {
  return {
      {"database", 0, true, false,
       "PostgreSQL URL; without it the embedded cluster of --data-dir is used",
       "IRONHOLD_DATABASE_URL", "", "URL"},
      {"data-dir", 0, true, false, "data directory (embedded cluster, master key)",
       "IRONHOLD_DATA_DIR", ".ironhold", "DIR"},
      {"master-key-file", 0, true, false, "file holding the 256-bit master key as 64 hex digits",
       "IRONHOLD_MASTER_KEY_FILE", "", "FILE"},
      {"audit-key-file", 0, true, false,
       "file holding the 256-bit key that seals the audit trail (default: audit.key beside the "
       "master key, created when missing)",
       "IRONHOLD_AUDIT_KEY_FILE", "", "FILE"},
      {"log-level", 0, true, false, "debug, info, warn or error", "IRONHOLD_LOG_LEVEL", "info",
       "LEVEL"},
  };
}

DatabaseTarget open_database_target(const cli::Args& args, bool migrate) {
  DatabaseTarget target;
  target.data_dir = args.value_or("data-dir", ".ironhold");
  if (auto url = args.get("database"); url && !url->empty()) {
    target.owner_url = *url;
    target.runtime_url = *url;
  } else {
    std::error_code ec;
    std::filesystem::create_directories(target.data_dir, ec);
    if (ec)
      throw Error(ErrorKind::invalid, "cannot create the data directory " +
                                          target.data_dir.string() + ": " + ec.message());
    std::filesystem::permissions(target.data_dir, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::replace, ec);
    target.cluster = db::EmbeddedCluster::start({target.data_dir});
    target.owner_url = target.cluster->owner_url();
    target.runtime_url = target.cluster->runtime_url();
  }
  if (migrate) {
    db::migrate(target.owner_url);
  }
  return target;
}

crypto::Key load_master_key_for(const cli::Args& args, const DatabaseTarget& target) {
  if (auto file = args.get("master-key-file"); file && !file->empty())
    return crypto::load_master_key(*file, false);
  const auto file = target.data_dir / "master.key";
  if (!target.embedded() && !std::filesystem::exists(file))
    throw Error(ErrorKind::invalid,
                "with --database, pass --master-key-file (or IRONHOLD_MASTER_KEY_FILE): every "
                "instance on one database must share the key that seals BMC credentials");
  return crypto::load_master_key(file, target.embedded());
}

std::filesystem::path master_key_path_for(const cli::Args& args, const DatabaseTarget& target) {
  if (auto file = args.get("master-key-file"); file && !file->empty()) return *file;
  return target.data_dir / "master.key";
}

// Beside the master key, and made there when missing: the database remembers which key sealed
// its chain, so an instance that made a different one refuses to write rather than fork it.
crypto::Key load_audit_key_for(const cli::Args& args, const DatabaseTarget& target) {
  if (auto file = args.get("audit-key-file"); file && !file->empty())
    return crypto::load_key_file(*file, false, "audit key",
                                 "--audit-key-file (or IRONHOLD_AUDIT_KEY_FILE)");
  const auto file = master_key_path_for(args, target).parent_path() / "audit.key";
  return crypto::load_key_file(file, true, "audit key",
                               "--audit-key-file (or IRONHOLD_AUDIT_KEY_FILE)");
}

std::string local_actor() {
  std::string user = "uid" + std::to_string(::getuid());
  if (const passwd* pw = ::getpwuid(::getuid())) user = pw->pw_name;
  return "cli:" + user;
}

}  // namespace ironhold::app
