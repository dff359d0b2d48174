// Copying an image out of PostgreSQL for a push: the copy is byte for byte what was uploaded,
// private to this user, removed once the last holder lets go, and a stored image that no longer
// matches its checksum is refused rather than sent to a BMC.
#include "inventory/tasks/firmware_spool.hpp"

#include <openssl/sha.h>
#include <sys/stat.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "inventory/crypto/primitives.hpp"
#include "tests/inventory/db/store_fixture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace firmware_spool_test {

using namespace ironhold;
namespace fs = std::filesystem;

namespace {

// The SHA-256 by OpenSSL's one-shot function, not by the stream the spool uses.
std::string sha256_of(const std::string& data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  return crypto::to_hex(std::span<const std::uint8_t>(digest, sizeof digest));
}

struct Fixture : test::StoreFixture {
  db::FirmwareImageStore images{db};
  boost::asio::thread_pool pool{1};
  fs::path dir;

  Fixture() {
    char pattern[] = "/tmp/ironhold-spool-test-XXXXXX";
    REQUIRE(::mkdtemp(pattern) != nullptr);
    dir = fs::path(pattern) / "spool";
  }
  ~Fixture() {
    pool.join();
    std::error_code ignored;
    fs::remove_all(dir.parent_path(), ignored);
  }

  // Stores `data` in chunks of the store's size, as the upload route does.
  std::string store(const std::string& data) {
    const std::string id = images.begin({"bmc.bin", "2.0", "BMC", std::nullopt}, "tester");
    int seq = 0;
    for (std::size_t at = 0; at < data.size(); at += db::FirmwareImageStore::kChunkSize)
      images.append(id, seq++,
                    std::string_view(data).substr(at, db::FirmwareImageStore::kChunkSize));
    images.finish(id, static_cast<std::int64_t>(data.size()), sha256_of(data), std::nullopt);
    return id;
  }

  tasks::SpoolCopy copy(const std::string& id) {
    tasks::FirmwareSpool spool(images, pool, dir);
    boost::asio::io_context io;
    auto done = boost::asio::co_spawn(io, spool.copy(id), boost::asio::use_future);
    io.run();
    return done.get();
  }

  std::size_t files() const {
    return static_cast<std::size_t>(
        std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
  }
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("an image is copied out whole, privately, and the copy goes with its last holder",
          "[firmware][spool][db]") {
  Fixture f;
  std::string data;
  for (std::size_t i = 0; i < db::FirmwareImageStore::kChunkSize * 2 + 12345; ++i)
    data += static_cast<char>((i * 7) % 256);
  const std::string id = f.store(data);

  tasks::SpoolCopy copy = f.copy(id);
  REQUIRE(std::holds_alternative<std::shared_ptr<const SpooledImage>>(copy));
  auto image = std::get<std::shared_ptr<const SpooledImage>>(copy);
  CHECK(image->size() == static_cast<std::int64_t>(data.size()));
  CHECK(fs::path(image->path()).parent_path() == f.dir);
  CHECK(read_file(image->path()) == data);
  struct stat info {};
  REQUIRE(::stat(image->path().c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
  REQUIRE(::stat(f.dir.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0700);

  const std::string path = image->path();
  copy = std::string();
  image.reset();
  CHECK_FALSE(fs::exists(path));
  CHECK(f.files() == 0);
}

TEST_CASE("a stored image that no longer matches its checksum is not copied",
          "[firmware][spool][db]") {
  Fixture f;
  const std::string id = f.store(std::string(300'000, 'a'));
  f.database.execute(
      "UPDATE firmware_image_chunks SET data = 'tampered'::bytea WHERE image_id = '" + id + "'");
  const tasks::SpoolCopy copy = f.copy(id);
  REQUIRE(std::holds_alternative<std::string>(copy));
  CHECK(std::get<std::string>(copy).find("does not match its checksum") != std::string::npos);
  CHECK(f.files() == 0);  // the half-made copy is removed

  const tasks::SpoolCopy missing = f.copy("00000000-0000-0000-0000-000000000000");
  REQUIRE(std::holds_alternative<std::string>(missing));
  CHECK(std::get<std::string>(missing).find("no firmware image") != std::string::npos);
}

TEST_CASE("a spool directory that is not this user's own is refused", "[firmware][spool][db]") {
  Fixture f;
  const std::string id = f.store("IRONHOLD-FIRMWARE component=BMC version=2.0\n");
  // Someone put a link where the directory should be.
  fs::create_directories(f.dir.parent_path() / "elsewhere");
  fs::create_directory_symlink(f.dir.parent_path() / "elsewhere", f.dir);
  const tasks::SpoolCopy copy = f.copy(id);
  REQUIRE(std::holds_alternative<std::string>(copy));
  CHECK(std::get<std::string>(copy).find("not a directory of this user") != std::string::npos);
}

}  // namespace firmware_spool_test
