#include "inventory/tasks/firmware_spool.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "inventory/crypto/primitives.hpp"
#include "inventory/crypto/sha256_stream.hpp"
#include "inventory/util/on_pool.hpp"

namespace ironhold::tasks {

namespace {

// Closes the descriptor and, unless kept, removes the half-written file.
class SpoolFile {
 public:
  SpoolFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~SpoolFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!kept_) ::unlink(path_.c_str());
  }
  SpoolFile(const SpoolFile&) = delete;
  SpoolFile& operator=(const SpoolFile&) = delete;

  bool write_all(std::string_view data) {
    while (!data.empty()) {
      const ssize_t n = ::write(fd_, data.data(), data.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  bool close() {
    const int fd = std::exchange(fd_, -1);
    return ::close(fd) == 0;
  }
  const std::string& path() const { return path_; }
  void keep() { kept_ = true; }

 private:
  int fd_;
  std::string path_;
  bool kept_ = false;
};

std::string system_error_text() {
  return std::strerror(errno);
}

}  // namespace

FirmwareSpool::FirmwareSpool(db::FirmwareImageStore& images, boost::asio::thread_pool& pool,
                             std::filesystem::path dir)
    : images_(images), pool_(pool), dir_(std::move(dir)) {}

std::filesystem::path FirmwareSpool::default_dir() {
  std::error_code ec;
  auto tmp = std::filesystem::temp_directory_path(ec);
  if (ec) tmp = "/tmp";
  return tmp / "ironhold-firmware-spool";
}

boost::asio::awaitable<SpoolCopy> FirmwareSpool::copy(std::string image_id) const {
  auto work = [this, id = std::move(image_id)] { return copy_now(id); };
  SpoolCopy result = co_await on_pool(pool_, std::move(work));
  co_return result;
}

SpoolCopy FirmwareSpool::copy_now(const std::string& image_id) const {
  // Private to this user: an image may be licensed, and nobody else should swap it underneath.
  if (::mkdir(dir_.c_str(), 0700) != 0 && errno != EEXIST)
    return "cannot make the spool directory " + dir_.string() + ": " + system_error_text();
  // In a shared /tmp, someone else could have made it first, or a link in its place.
  struct stat info {};
  if (::lstat(dir_.c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != ::geteuid())
    return "the spool directory " + dir_.string() +
           " is not a directory of this user: remove it or choose another";
  FirmwareImage image;
  try {
    image = images_.get(image_id);
  } catch (const std::exception& e) {
    return std::string("cannot read the image: ") + e.what();
  }
  std::string pattern = (dir_ / (image_id + "-XXXXXX")).string();
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) return "cannot create a file in " + dir_.string() + ": " + system_error_text();
  SpoolFile file(fd, pattern);

  crypto::Sha256Stream digest;
  std::int64_t size = 0;
  try {
    for (int seq = 0;; ++seq) {
      const std::string chunk = images_.read_chunk(image_id, seq);
      if (chunk.empty()) break;
      digest.update(chunk);
      size += static_cast<std::int64_t>(chunk.size());
      if (!file.write_all(chunk)) return "cannot write " + file.path() + ": " + system_error_text();
    }
  } catch (const std::exception& e) {
    return std::string("cannot read the image: ") + e.what();
  }
  if (!file.close()) return "cannot write " + file.path() + ": " + system_error_text();
  const auto sum = digest.finish();
  const std::string sha256 = crypto::to_hex(sum);
  if (size != image.size || sha256 != image.sha256)
    return "the stored image does not match its checksum (" + std::to_string(size) +
           " bytes, SHA-256 " + sha256 + "; uploaded as " + std::to_string(image.size) +
           " bytes, " + image.sha256 + "): upload it again";
  file.keep();
  return std::make_shared<const SpooledImage>(file.path(), size);
}

}  // namespace ironhold::tasks
