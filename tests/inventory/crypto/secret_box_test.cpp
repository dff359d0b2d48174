#include "inventory/crypto/secret_box.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace secret_box_test {

using namespace ironhold;

TEST_CASE("sealed secrets open with the same key and row, and nothing else", "[crypto]") {
  crypto::Key key{}, other{};
  crypto::random_bytes(key);
  crypto::random_bytes(other);
  crypto::SecretBox box(key), wrong(other);
  const auto sealed = box.seal("hunter2", "node-1");
  CHECK(box.open(sealed, "node-1") == "hunter2");
  CHECK(box.seal("hunter2", "node-1") != sealed);  // a fresh nonce every time
  CHECK_THROWS_AS(box.open(sealed, "node-2"), Error);
  CHECK_THROWS_AS(wrong.open(sealed, "node-1"), Error);
  auto tampered = sealed;
  tampered[14] ^= 1;
  CHECK_THROWS_AS(box.open(tampered, "node-1"), Error);
  CHECK(box.key_id() != wrong.key_id());
  CHECK(box.key_id().size() == 16);
}

TEST_CASE("AES-256-GCM matches a published test vector", "[crypto]") {
  // The sealed form is nonce || ciphertext || tag; check the ciphertext and tag of a known-answer
  // vector (NIST GCM test case 14: zero key, zero IV, one zero block) by opening it.
  crypto::Key key{};
  crypto::SecretBox box(key);
  std::vector<std::uint8_t> sealed(12, 0), ct;
  REQUIRE(crypto::from_hex("cea7403d4d606b6e074ec5d3baf39d18d0d1c8a799996bf0265b98b5d48ab919", ct));
  sealed.insert(sealed.end(), ct.begin(), ct.end());
  CHECK(box.open(sealed, "") == std::string(16, '\0'));
}

TEST_CASE("a master key file is generated 0600 and refused when others may read it", "[crypto]") {
  const auto dir =
      std::filesystem::temp_directory_path() / ("ih-key-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "master.key";
  const auto key = crypto::load_master_key(file, true);
  struct stat st {};
  REQUIRE(::stat(file.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(crypto::load_master_key(file, false) == key);
  ::chmod(file.c_str(), 0644);
  CHECK_THROWS_AS(crypto::load_master_key(file, false), Error);
  ::chmod(file.c_str(), 0600);
  std::ofstream(file) << "not hex";
  CHECK_THROWS_AS(crypto::load_master_key(file, false), Error);
  CHECK_THROWS_AS(crypto::load_master_key(dir / "missing.key", false), Error);
  std::filesystem::remove_all(dir);
}

}  // namespace secret_box_test
