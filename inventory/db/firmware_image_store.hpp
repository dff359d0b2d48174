#pragma once
// Firmware images in PostgreSQL (migration 0007): written chunk by chunk while the upload streams
// in, so no instance ever holds a whole image in memory, and read back chunk by chunk by whichever
// instance a BMC downloads from.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/db/database.hpp"
#include "inventory/error.hpp"
#include "inventory/model/firmware_image.hpp"

namespace ironhold::db {

class FirmwareImageStore {
 public:
  // Each stored chunk is this big (the last one smaller): what an upload buffers and what a
  // download reads at a time.
  static constexpr std::size_t kChunkSize = 1 << 20;

  // `kind` "firmware" (BMC, BIOS, GPU images) or "boot" (ISOs for virtual media): each store
  // sees only images of its kind.
  explicit FirmwareImageStore(Database& db, std::string kind = "firmware")
      : db_(db), kind_(std::move(kind)) {}
  const std::string& kind() const { return kind_; }

  // A new image in state `uploading`; returns its id.
  std::string begin(const FirmwareImageSpec& spec, const std::string& uploaded_by);
  void append(const std::string& id, int seq, std::string_view data);
  // Marks it ready with what the upload measured; throws unprocessable (and removes it) when it
  // is empty, or when `expected_sha256` was given and differs.
  FirmwareImage finish(const std::string& id, std::int64_t size, const std::string& sha256,
                       const std::optional<std::string>& expected_sha256);
  // Removes an upload that broke off (any state).
  void discard(const std::string& id);

  std::vector<FirmwareImage> list();
  FirmwareImage get(const std::string& id);  // ready images only; not_found otherwise
  // Deletes a ready image and its bytes; not_found when there is none.
  FirmwareImage remove(const std::string& id);
  // Chunk `seq` of a ready image; empty past the last one.
  std::string read_chunk(const std::string& id, int seq);

 private:
  Error no_image(const std::string& id) const;

  Database& db_;
  std::string kind_;
};

}  // namespace ironhold::db
