#pragma once
// Which database a server-side command works on: --database URL (or IRONHOLD_DATABASE_URL), else
// the embedded cluster of --data-dir (default ./.ironhold), started here or already running.
// Also where the master key comes from.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "app/cli/args.hpp"
#include "inventory/crypto/secret_box.hpp"
#include "inventory/db/embedded_cluster.hpp"

namespace ironhold::app {

struct DatabaseTarget {
  std::unique_ptr<db::EmbeddedCluster> cluster;  // null for --database
  std::string owner_url;                         // migrations
  std::string runtime_url;                       // the service
  std::filesystem::path data_dir;
  bool embedded() const { return cluster != nullptr; }
};

// The options every server-side command takes.
std::vector<cli::Option> database_options();

// Opens the target the options name, and migrates it when `migrate` is set.
DatabaseTarget open_database_target(const cli::Args& args, bool migrate);

// --master-key-file / IRONHOLD_MASTER_KEY_FILE, else DATA_DIR/master.key (generated with mode
// 0600 on first start of the embedded default).
crypto::Key load_master_key_for(const cli::Args& args, const DatabaseTarget& target);
// --audit-key-file / IRONHOLD_AUDIT_KEY_FILE, else audit.key beside the master key file
// (generated with mode 0600 when missing).
crypto::Key load_audit_key_for(const cli::Args& args, const DatabaseTarget& target);
// The master key file in use: --master-key-file, else DATA_DIR/master.key.
std::filesystem::path master_key_path_for(const cli::Args& args, const DatabaseTarget& target);

// "cli:<unix user>": who a server-side command acts as, in the audit trail.
std::string local_actor();

}  // namespace ironhold::app
