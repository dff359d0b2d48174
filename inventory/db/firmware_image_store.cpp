#include "inventory/db/firmware_image_store.hpp"

#include "inventory/db/row_values.hpp"
#include "inventory/db/transaction.hpp"
#include "inventory/error.hpp"
#include "inventory/model/node.hpp"
#include "inventory/util/concat.hpp"

namespace ironhold::db {
namespace {

constexpr const char* kImageColumns =
    "id, name, version, component, model, size, sha256, uploaded_by, rfc3339(created_at)";

FirmwareImage image_from_row(const pqxx::row& r) {
  FirmwareImage image;
  image.id = r[0].as<std::string>();
  image.spec.name = r[1].as<std::string>();
  image.spec.version = r[2].as<std::string>();
  image.spec.component = r[3].as<std::string>();
  image.spec.model = optional_text(r[4]);
  image.size = r[5].as<std::int64_t>();
  image.sha256 = optional_text(r[6]).value_or("");
  image.uploaded_by = r[7].as<std::string>();
  image.created_at = r[8].as<std::string>();
  return image;
}

}  // namespace

Error FirmwareImageStore::no_image(const std::string& id) const {
  return not_found("no " + kind_ + " image \"" + id + "\"");
}

std::string FirmwareImageStore::begin(const FirmwareImageSpec& spec,
                                      const std::string& uploaded_by) {
  return transact(db_, [&](pqxx::work& tx) {
    return tx
        .exec_params1(
            "INSERT INTO firmware_images (name, version, component, model, uploaded_by, kind) "
            "VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
            spec.name, spec.version, spec.component, nullable(spec.model), uploaded_by, kind_)[0]
        .as<std::string>();
  });
}

void FirmwareImageStore::append(const std::string& id, int seq, std::string_view data) {
  transact(db_, [&](pqxx::work& tx) {
    tx.exec_params(
        "INSERT INTO firmware_image_chunks (image_id, seq, data) VALUES ($1::uuid, $2, $3)", id,
        seq, pqxx::binarystring(data.data(), data.size()));
  });
}

FirmwareImage FirmwareImageStore::finish(const std::string& id, std::int64_t size,
                                         const std::string& sha256,
                                         const std::optional<std::string>& expected_sha256) {
  if (size == 0 || (expected_sha256 && *expected_sha256 != sha256)) {
    discard(id);
    if (size == 0) throw unprocessable("the image is empty: send its bytes as the request body");
    throw unprocessable("the upload's SHA-256 is " + sha256 + ", not " + *expected_sha256 +
                            " as X-Checksum-SHA256 said: the image was not kept",
                        "X-Checksum-SHA256");
  }
  return transact(db_, [&](pqxx::work& tx) {
    const auto rows = tx.exec_params(
        util::concat("UPDATE firmware_images SET state = 'ready', size = $2, sha256 = $3, "
                     "ready_at = now() WHERE id = $1::uuid RETURNING ",
                     kImageColumns),
        id, size, sha256);
    if (rows.empty()) throw no_image(id);
    return image_from_row(rows[0]);
  });
}

void FirmwareImageStore::discard(const std::string& id) {
  transact(db_, [&](pqxx::work& tx) {
    tx.exec_params("DELETE FROM firmware_images WHERE id = $1::uuid", id);
  });
}

std::vector<FirmwareImage> FirmwareImageStore::list() {
  return transact(db_, [&](pqxx::work& tx) {
    std::vector<FirmwareImage> out;
    for (const auto& r :
         tx.exec_params(util::concat("SELECT ", kImageColumns,
                                     " FROM firmware_images WHERE state = 'ready' AND kind = $1 "
                                     "ORDER BY created_at DESC, id DESC"),
                        kind_))
      out.push_back(image_from_row(r));
    return out;
  });
}

FirmwareImage FirmwareImageStore::get(const std::string& id) {
  if (!is_uuid(id)) throw no_image(id);
  return transact(db_, [&](pqxx::work& tx) {
    const auto rows =
        tx.exec_params(util::concat("SELECT ", kImageColumns,
                                    " FROM firmware_images WHERE id = $1::uuid AND state = 'ready' "
                                    "AND kind = $2"),
                       id, kind_);
    if (rows.empty()) throw no_image(id);
    return image_from_row(rows[0]);
  });
}

FirmwareImage FirmwareImageStore::remove(const std::string& id) {
  if (!is_uuid(id)) throw no_image(id);
  return transact(db_, [&](pqxx::work& tx) {
    // A rollout under way hands the image to BMCs yet: it stays until the rollout has ended.
    const auto using_it = tx.exec_params(
        "SELECT id FROM firmware_rollouts WHERE image_id = $1::uuid AND finished_at IS NULL "
        "LIMIT 1",
        id);
    if (!using_it.empty())
      throw conflict("firmware image " + id + " is being rolled out (rollout " +
                     using_it[0][0].as<std::string>() + "); abort or finish the rollout first");
    const auto rows = tx.exec_params(util::concat("DELETE FROM firmware_images WHERE id = "
                                                  "$1::uuid AND state = 'ready' AND kind = $2 "
                                                  "RETURNING ",
                                                  kImageColumns),
                                     id, kind_);
    if (rows.empty()) throw no_image(id);
    return image_from_row(rows[0]);
  });
}

std::string FirmwareImageStore::read_chunk(const std::string& id, int seq) {
  return transact(db_, [&](pqxx::work& tx) {
    const auto rows = tx.exec_params(
        "SELECT data FROM firmware_image_chunks WHERE image_id = $1::uuid AND seq = $2", id, seq);
    if (rows.empty()) return std::string();
    const pqxx::binarystring bytes(rows[0][0]);
    return bytes.str();
  });
}

}  // namespace ironhold::db
