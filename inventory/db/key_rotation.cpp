#include "inventory/db/key_rotation.hpp"

#include <openssl/crypto.h>

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"
#include "inventory/util/concat.hpp"

namespace ironhold::db {
namespace {

// Where a kind of secret lives: its table, the row's id (the additional authenticated data), and
// its key id and sealed columns.
struct SealedColumn {
  const char* table;
  const char* id;
  const char* key_id;
  const char* sealed;
};

constexpr SealedColumn kNodeCredentials{"node_credentials", "node_id", "key_id", "sealed"};
constexpr SealedColumn kCloudAccounts{"cloud_accounts", "id", "key_id", "sealed"};
constexpr SealedColumn kTaskSecrets{"tasks", "id", "secrets_key_id", "sealed_secrets"};
constexpr SealedColumn kReceiverSecrets{"alert_receivers", "id", "key_id", "sealed"};

constexpr int kBatch = 200;

// A deleted cloud account or receiver keeps its row with the secret wiped to no bytes: nothing is
// left to re-seal there, and counting it would hold every rotation back.
std::string where_stale(const SealedColumn& c) {
  return std::string(" WHERE ") + c.sealed + " IS NOT NULL AND octet_length(" + c.sealed +
         ") > 0 AND " + c.key_id + " IS DISTINCT FROM $1";
}

// One batch; the rows re-sealed, or -1 when none was left to take.
long long reseal_batch(Database& db, const crypto::SecretBox& box, const SealedColumn& c,
                       long long& unreadable, std::vector<std::string>& skip) {
  return transact(db, [&](pqxx::work& tx) -> long long {
    const std::string key_id = box.key_id();
    // Rows that opened under no key are skipped by id, so a pass ends.
    std::string not_skipped;
    for (const auto& id : skip) {
      // tx.quote() is the same "'" + esc + "'", but its `+` makes GCC 12 at -O3 warn falsely
      // (see inventory/util/concat.hpp).
      if (!not_skipped.empty()) not_skipped += ',';
      not_skipped += util::concat("'", tx.esc(id), "'");
    }
    const auto rows = tx.exec_params(
        std::string("SELECT ") + c.id + "::text, encode(" + c.sealed + ", 'hex') FROM " + c.table +
            where_stale(c) +
            (skip.empty() ? ""
                          : std::string(" AND ") + c.id + "::text NOT IN (" + not_skipped + ")") +
            " LIMIT " + std::to_string(kBatch) + " FOR UPDATE SKIP LOCKED",
        key_id);
    if (rows.empty()) return -1;
    long long done = 0;
    for (const auto& r : rows) {
      const std::string id = r[0].as<std::string>();
      std::vector<std::uint8_t> sealed;
      crypto::from_hex(r[1].as<std::string>(), sealed);
      std::string plain;
      try {
        plain = box.open(sealed, id);
      } catch (const Error&) {
        ++unreadable;
        skip.push_back(id);
        continue;
      }
      const auto resealed = box.seal(plain, id);
      OPENSSL_cleanse(plain.data(), plain.size());
      tx.exec_params0(std::string("UPDATE ") + c.table + " SET " + c.key_id + " = $2, " + c.sealed +
                          " = decode($3, 'hex') WHERE " + c.id + "::text = $1",
                      id, key_id, crypto::to_hex(resealed));
      ++done;
    }
    return done;
  });
}

long long reseal_all(Database& db, const crypto::SecretBox& box, const SealedColumn& c,
                     long long& unreadable) {
  long long total = 0;
  std::vector<std::string> skip;
  for (;;) {
    const long long done = reseal_batch(db, box, c, unreadable, skip);
    if (done < 0) break;
    total += done;
  }
  return total;
}

}  // namespace

ResealReport reseal_secrets(Database& db, const crypto::SecretBox& box) {
  ResealReport report;
  report.node_credentials = reseal_all(db, box, kNodeCredentials, report.unreadable);
  report.cloud_accounts = reseal_all(db, box, kCloudAccounts, report.unreadable);
  report.task_secrets = reseal_all(db, box, kTaskSecrets, report.unreadable);
  report.receiver_secrets = reseal_all(db, box, kReceiverSecrets, report.unreadable);
  return report;
}

long long secrets_not_under(Database& db, const std::string& key_id) {
  return transact(db, [&](pqxx::work& tx) {
    long long count = 0;
    for (const SealedColumn& c : {kNodeCredentials, kCloudAccounts, kTaskSecrets, kReceiverSecrets})
      count += tx.exec_params1(std::string("SELECT count(*) FROM ") + c.table + where_stale(c),
                               key_id)[0]
                   .as<long long>();
    return count;
  });
}

nlohmann::json to_json(const ResealReport& r) {
  return {{"node_credentials", r.node_credentials},
          {"cloud_accounts", r.cloud_accounts},
          {"task_secrets", r.task_secrets},
          {"receiver_secrets", r.receiver_secrets},
          {"unreadable", r.unreadable}};
}

}  // namespace ironhold::db
