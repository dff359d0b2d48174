// The rebuild adminPass encryption checked against OpenSSL's own command line, run as a separate
// process: it must decrypt what we produce with the first 16 bytes of the secret key as an
// AES-128-ECB key, and produce the same bytes from the password.
#include "cloudapi/bcc/admin_password.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "inventory/error.hpp"
#include "inventory/util/process.hpp"

namespace ironhold::cloudapi::bcc {
namespace admin_password_test {
namespace {

namespace fs = std::filesystem;
const fs::path kOpenssl = "/usr/bin/openssl";

std::string hex_of(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 0x0f]);
  }
  return out;
}

std::string bytes_of(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

struct TempFile {
  explicit TempFile(std::string_view content) {
    path = fs::temp_directory_path() /
           ("ironhold-bcc-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::ofstream(path, std::ios::binary) << content;
  }
  ~TempFile() {
    std::error_code ignored;
    fs::remove(path, ignored);
  }
  fs::path path;
  static inline int counter = 0;
};

// `openssl enc` with key = the first 16 bytes of the secret key, PKCS#7 padding (its default).
util::ProcessResult openssl_enc(bool decrypt, const std::string& secret_key,
                                const std::string& input) {
  TempFile in(input);
  return util::run_process(kOpenssl, {"enc", decrypt ? "-d" : "-e", "-aes-128-ecb", "-K",
                                      hex_of(secret_key.substr(0, 16)), "-in", in.path.string()});
}

}  // namespace

TEST_CASE("adminPass is AES-128-ECB under the secret key's first 16 bytes, as openssl reads it",
          "[bcc][cloudapi]") {
  if (!fs::exists(kOpenssl)) {
    WARN("skipped: no " << kOpenssl.string());
    return;
  }
  const std::string secret_key = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
  for (const std::string password : {"Passw0rd!", "exactly16bytes!!", "a", "长密码 with spaces"}) {
    INFO("password " << password);
    const std::string hex = encrypt_admin_password(secret_key, password);
    // Lower-case hex, whole blocks; PKCS#7 always pads, so 16 bytes take two blocks.
    CHECK(hex.find_first_not_of("0123456789abcdef") == std::string::npos);
    CHECK(hex.size() == ((password.size() / 16) + 1) * 32);

    const auto decrypted = openssl_enc(true, secret_key, bytes_of(hex));
    REQUIRE(decrypted.ok());
    CHECK(decrypted.out == password);

    const auto encrypted = openssl_enc(false, secret_key, password);
    REQUIRE(encrypted.ok());
    CHECK(hex_of(encrypted.out) == hex);

    CHECK(decrypt_admin_password(secret_key, hex) == std::optional<std::string>(password));
  }
}

TEST_CASE("adminPass decryption rejects what the key did not encrypt", "[bcc][cloudapi]") {
  const std::string key = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
  CHECK_FALSE(decrypt_admin_password(key, "not hex at all, not hex at all!!"));
  CHECK_FALSE(decrypt_admin_password(key, "abcd"));
  CHECK_FALSE(decrypt_admin_password(key, ""));
  // Another key almost never yields valid padding; this pair was checked not to.
  const std::string other = encrypt_admin_password("cccccccccccccccccccccccccccccccc", "secret");
  const auto wrong = decrypt_admin_password(key, other);
  CHECK(wrong != std::optional<std::string>("secret"));
  CHECK_THROWS_AS(encrypt_admin_password("short", "x"), Error);
}

}  // namespace admin_password_test
}  // namespace ironhold::cloudapi::bcc
