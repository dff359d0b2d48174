#pragma once
// Images for pushes: a BMC that takes firmware only by push (Redfish MultipartHttpPushUri) is
// sent a file, and the image lives in PostgreSQL. The spool copies it out a chunk at a time into a
// private file, checking its SHA-256 on the way, so a damaged copy is never flashed and no image
// is ever held in memory.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <variant>

#include "inventory/db/firmware_image_store.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold::tasks {

// The copy, or why there is none (for a person).
using SpoolCopy = std::variant<std::shared_ptr<const SpooledImage>, std::string>;

class FirmwareSpool {
 public:
  // Files go in `dir` (made 0700 when missing); the caller's pool runs the database reads.
  FirmwareSpool(db::FirmwareImageStore& images, boost::asio::thread_pool& pool,
                std::filesystem::path dir);

  // The default directory: "ironhold-firmware-spool" in the system's temporary directory.
  static std::filesystem::path default_dir();

  boost::asio::awaitable<SpoolCopy> copy(std::string image_id) const;

 private:
  SpoolCopy copy_now(const std::string& image_id) const;

  db::FirmwareImageStore& images_;
  boost::asio::thread_pool& pool_;
  std::filesystem::path dir_;
};

}  // namespace ironhold::tasks
