// `ironhold keys rotate`: a new master key for every BMC and cloud credential, while the service
// runs. The key file first holds the new key and the old one (the running instances read it
// within a second, or as soon as a value opens under none of their keys: they seal with the new
// key and still open the old), then every sealed value is re-sealed under the new key, and once
// none is left under the old one, the file holds the new key alone. Each step is audited.
#include <iostream>
#include <thread>

#include "app/cli/args.hpp"
#include "app/cli/client_options.hpp"
#include "app/server/commands.hpp"
#include "app/server/database_target.hpp"
#include "inventory/crypto/primitives.hpp"
#include "inventory/crypto/secret_box.hpp"
#include "inventory/db/audit_store.hpp"
#include "inventory/db/key_rotation.hpp"

namespace ironhold::app {
namespace {

using namespace std::chrono_literals;

// Long enough for every instance on this key file to have read it (they look every second).
constexpr auto kSettle = 3s;

void audit(db::Database& database, const std::string& outcome, const std::string& new_id,
           nlohmann::json details) {
  db::AuditEntry entry;
  entry.actor = local_actor();
  entry.action = "keys.rotate";
  entry.target_type = "master_key";
  entry.target_id = new_id;
  entry.outcome = outcome;
  entry.details = std::move(details);
  db::AuditStore(database).record(entry);
}

int rotate(std::span<const std::string> argv) {
  auto options = database_options();
  options.push_back({"keep-old", 0, false, false,
                     "keep the old key in the key file after the rotation (for copying the file to "
                     "other hosts first; run `keys rotate --finish` afterwards)"});
  options.push_back({"finish", 0, false, false,
                     "only re-seal what is left under older keys and drop them from the key file"});
  cli::Args args("ironhold keys rotate", "",
                 "Re-encrypt every BMC and cloud credential under a new master key, without "
                 "stopping the service",
                 options);
  args.parse(argv);
  if (args.help_requested()) return std::cout << args.help_text(), 0;
  DatabaseTarget target = open_database_target(args, true);
  const auto key_file = master_key_path_for(args, target);
  crypto::Keyring ring = crypto::load_master_keyring(key_file, false);
  db::Database database(db::DatabaseOptions{
      .url = target.runtime_url, .pool_size = 2, .audit_key = load_audit_key_for(args, target)});

  if (!args.flag("finish")) {
    crypto::Key fresh{};
    crypto::random_bytes(fresh);
    crypto::Keyring next{fresh, {ring.current}};
    for (const auto& older : ring.previous) next.previous.push_back(older);
    crypto::write_master_keyring(key_file, next);
    ring = std::move(next);
    audit(database, "started", crypto::key_id_of(ring.current),
          {{"previous_key_id", crypto::key_id_of(ring.previous.front())},
           {"key_file", key_file.string()}});
    std::cerr << "new master key " << crypto::key_id_of(ring.current) << " written to " << key_file
              << " (the old one stays readable until every secret is re-sealed)\n";
    std::this_thread::sleep_for(kSettle);
  }
  const crypto::SecretBox box(ring);
  const std::string current = box.key_id();
  db::ResealReport total;
  // Instances that had not read the new key yet may still seal a value under the old one: pass
  // again until a pass finds nothing.
  for (int pass = 0; pass < 10; ++pass) {
    const db::ResealReport report = db::reseal_secrets(database, box);
    total.node_credentials += report.node_credentials;
    total.cloud_accounts += report.cloud_accounts;
    total.task_secrets += report.task_secrets;
    total.receiver_secrets += report.receiver_secrets;
    total.unreadable = report.unreadable;
    if (db::secrets_not_under(database, current) == total.unreadable) break;
    std::this_thread::sleep_for(1s);
  }
  const long long left = db::secrets_not_under(database, current);
  if (left > 0) {
    audit(database, "error", current, {{"resealed", db::to_json(total)}, {"left", left}});
    std::cerr << left << " secrets are still under an older key (" << total.unreadable
              << " open under none of the keys in " << key_file
              << "); the older keys stay in the file. Fix or re-enter those credentials and run "
                 "`ironhold keys rotate --finish`.\n";
    return 1;
  }
  if (!args.flag("keep-old") && !ring.previous.empty()) {
    crypto::write_master_keyring(key_file, crypto::Keyring{ring.current, {}});
    std::this_thread::sleep_for(kSettle);
  }
  audit(database, "ok", current,
        {{"resealed", db::to_json(total)}, {"old_keys_kept", args.flag("keep-old")}});
  std::cerr << "re-sealed " << total.node_credentials << " BMC credentials, "
            << total.cloud_accounts << " cloud credentials, " << total.task_secrets
            << " task secrets and " << total.receiver_secrets
            << " alert receiver secrets under master key " << current
            << (args.flag("keep-old") ? "; the old key stays in the file" : "") << "\n";
  return 0;
}

}  // namespace

int run_keys_command(std::span<const std::string> argv) {
  return cli::run_guarded("keys", [&] {
    const std::string usage =
        "usage: ironhold keys rotate [--keep-old | --finish] [options]\n"
        "  rotate   re-encrypt every BMC and cloud credential under a new master key\n"
        "Run ironhold keys rotate --help for its options.\n";
    if (argv.empty() || argv[0] == "--help" || argv[0] == "-h") {
      std::cout << usage;
      return argv.empty() ? 2 : 0;
    }
    if (argv[0] == "rotate") return rotate(argv.subspan(1));
    throw cli::UsageError("unknown keys subcommand \"" + argv[0] + "\"\n" + usage);
  });
}

}  // namespace ironhold::app
