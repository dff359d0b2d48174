#include "inventory/db/cloud_rows.hpp"

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/row_values.hpp"
#include "inventory/error.hpp"

namespace ironhold::db {
namespace {

nlohmann::json open_credentials(const crypto::SecretBox& box, const std::string& account_id,
                                const pqxx::row& row) {
  std::vector<std::uint8_t> sealed;
  if (!crypto::from_hex(row["sealed_hex"].c_str(), sealed) || sealed.empty())
    throw Error(ErrorKind::internal,
                "the stored credentials of cloud account " + account_id + " are unreadable");
  try {
    std::string plain = box.open(sealed, account_id);
    auto doc = nlohmann::json::parse(plain, nullptr, false);
    if (!doc.is_object()) throw std::runtime_error("not an object");
    return doc;
  } catch (const std::exception&) {
    throw Error(ErrorKind::internal, "the stored credentials of cloud account " + account_id +
                                         " do not open with the master key (was the key changed?)");
  }
}

}  // namespace

CloudAccount account_from_row(const crypto::SecretBox& box, const pqxx::row& r,
                              bool keep_credentials) {
  CloudAccount a;
  a.id = r[0].as<std::string>();
  a.spec.name = r[1].as<std::string>();
  a.spec.provider = r[2].as<std::string>();
  a.spec.endpoint = optional_text(r[3]);
  a.spec.region = r[4].as<std::string>();
  a.spec.options = nlohmann::json::parse(r[5].c_str(), nullptr, false);
  a.spec.sync_interval_s = r[6].as<int>();
  a.last_sync_at = optional_text(r[7]);
  a.last_sync_started = optional_text(r[8]);
  a.next_sync = optional_text(r[9]);
  a.last_error = optional_text(r[10]);
  a.last_error_message = optional_text(r[11]);
  a.created_at = optional_text(r[12]);
  a.updated_at = optional_text(r[13]);
  if (!r[14].is_null()) a.last_sync_duration_ms = r[14].as<double>();
  a.sync_failures = r[15].as<int>();
  a.syncing = r[16].as<bool>();
  a.node_count = r[17].as<int>();
  a.spec.project = r["project"].as<std::string>();
  nlohmann::json credentials = open_credentials(box, a.id, r);
  a.credential_kind = credential_kind(a.spec.provider, credentials);
  a.credential_identity = credential_identity(a.spec.provider, credentials);
  a.spec.credentials = keep_credentials ? std::move(credentials) : nlohmann::json::object();
  return a;
}

CloudAccountTarget target_of(const CloudAccount& account) {
  CloudAccountTarget t;
  t.account_id = account.id;
  t.account_name = account.spec.name;
  t.provider = account.spec.provider;
  t.endpoint = account.spec.endpoint;
  t.region = account.spec.region;
  t.options = account.spec.options;
  t.credentials = account.spec.credentials;
  return t;
}

}  // namespace ironhold::db
