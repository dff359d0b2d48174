// Password hashes: scrypt in a PHC string that carries its parameters, checked against RFC 7914,
// and a stored string that is malformed or asks for too much is a plain "no", never an exception.
#include "inventory/crypto/password_hash.hpp"

#include <catch2/catch.hpp>
#include <regex>

#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace password_hash_test {

using namespace ironhold::crypto;

namespace {

// Standard base64 without padding, as PHC strings carry it.
std::string phc_base64_of_hex(std::string_view hex) {
  std::vector<std::uint8_t> bytes;
  REQUIRE(from_hex(hex, bytes));
  std::string text = base64url(bytes);
  for (char& c : text) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  return text;
}

// The cheapest accepted parameters, for tests that are about the string rather than the cost.
constexpr PasswordHashParams cheap{.log2_n = 10, .r = 8, .p = 1};

}  // namespace

TEST_CASE("a hashed password verifies, a wrong one does not", "[crypto][password]") {
  const std::string stored = hash_password("correct horse battery staple");
  CHECK(std::regex_match(
      stored, std::regex(R"(\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43})")));
  CHECK(verify_password("correct horse battery staple", stored));
  CHECK_FALSE(verify_password("correct horse battery stapler", stored));
  CHECK_FALSE(verify_password("", stored));
}

TEST_CASE("two hashes of one password differ by their salt, and both verify",
          "[crypto][password]") {
  const std::string a = hash_password("hunter2", cheap);
  const std::string b = hash_password("hunter2", cheap);
  CHECK(a != b);
  CHECK(verify_password("hunter2", a));
  CHECK(verify_password("hunter2", b));
}

TEST_CASE("a stored string built from RFC 7914's test vector verifies", "[crypto][password]") {
  // RFC 7914 section 12: scrypt("password", "NaCl", N = 1024, r = 8, p = 16, dkLen = 64). The
  // 64-byte hash and p = 16 are both past what hash_password makes, so this also checks that the
  // parser takes the hash length and parameters from the string.
  const std::string stored =
      "$scrypt$ln=10,r=8,p=16$" + phc_base64_of_hex("4e61436c") + "$" +
      phc_base64_of_hex(
          "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff10927"
          "9d9830dac727afb94a83ee6d8360cbdfa2cc0640");
  CHECK(verify_password("password", stored));
  CHECK_FALSE(verify_password("Password", stored));

  // This hash has both '+' and '/'; the URL-safe alphabet is another encoding, not a spelling.
  std::string url_safe = stored;
  for (char& c : url_safe) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  REQUIRE(url_safe != stored);
  CHECK_FALSE(verify_password("password", url_safe));
}

TEST_CASE("a malformed or over-demanding stored string is false without throwing",
          "[crypto][password]") {
  const std::string good = hash_password("pw", cheap);
  REQUIRE(verify_password("pw", good));
  const auto dollar = good.rfind('$');
  const std::string salt = good.substr(good.find('$', 8) + 1, dollar - good.find('$', 8) - 1);
  const std::string hash = good.substr(dollar + 1);
  const auto with_params = [&](std::string_view params) {
    return "$scrypt$" + std::string(params) + "$" + salt + "$" + hash;
  };
  REQUIRE(with_params("ln=10,r=8,p=1") == good);

  const std::vector<std::string> malformed = {
      "",
      "pw",
      "$argon2id$v=19$m=65536,t=3,p=4$" + salt + "$" + hash,
      "$scrypt$",
      with_params("ln=9,r=8,p=1"),
      with_params("ln=21,r=8,p=1"),
      with_params("ln=99999999999,r=8,p=1"),
      with_params("ln=20,r=8,p=1"),  // 1 GiB for one lane
      with_params("ln=16,r=1,p=1"),  // RFC 7914 needs N < 2^(16·r)
      with_params("ln=10,r=33,p=1"),
      with_params("ln=10,r=8,p=17"),
      with_params("ln=10,r=0,p=1"),
      with_params("ln=10,r=-8,p=1"),
      with_params("ln=+10,r=8,p=1"),
      with_params("ln=10,r=8,p=1,x=1"),
      with_params("r=8,ln=10,p=1"),
      with_params("ln=10,r=8"),
      with_params("ln=10,,r=8,p=1"),
      with_params("ln=10,r=8,p="),
      with_params(""),
      "$scrypt$ln=10,r=8,p=1$" + salt,                     // no hash
      "$scrypt$ln=10,r=8,p=1$" + salt + "$",               // empty hash
      "$scrypt$ln=10,r=8,p=1$$" + hash,                    // empty salt
      "$scrypt$ln=10,r=8,p=1$" + salt + "$" + hash + "$",  // an extra field
      "$scrypt$ln=10,r=8,p=1$" + salt + "$" + hash + "=",  // padding
      "$scrypt$ln=10,r=8,p=1$" + salt + "$!" + hash.substr(1),
      "$scrypt$ln=10,r=8,p=1$" + salt + "$" + hash.substr(0, 20),  // 15 bytes
      "$scrypt$ln=10,r=8,p=1$" + salt + "$" + phc_base64_of_hex(std::string(130, 'a')),
  };
  for (const auto& stored : malformed) {
    INFO(stored);
    bool verified = true;
    CHECK_NOTHROW(verified = verify_password("pw", stored));
    CHECK_FALSE(verified);
    CHECK(needs_rehash(stored, cheap));
  }
}

TEST_CASE("a hash made with weaker parameters than the current ones needs re-hashing",
          "[crypto][password]") {
  const PasswordHashParams current{};
  const std::string weaker = hash_password("pw", {.log2_n = 14, .r = 8, .p = 1});
  CHECK(verify_password("pw", weaker));
  CHECK(needs_rehash(weaker, current));
  CHECK_FALSE(needs_rehash(weaker, {.log2_n = 14, .r = 8, .p = 1}));
  CHECK(needs_rehash(hash_password("pw", {.log2_n = 14, .r = 16, .p = 1}), current));
  CHECK(needs_rehash(hash_password("pw", cheap), {.log2_n = 10, .r = 8, .p = 2}));

  const std::string same = hash_password("pw", current);
  CHECK_FALSE(needs_rehash(same, current));
  CHECK_FALSE(needs_rehash(same, cheap));  // stronger than asked is left alone

  CHECK(needs_rehash("not a hash", current));
}

TEST_CASE("hash_password refuses parameters that verification would refuse", "[crypto][password]") {
  for (const PasswordHashParams params : {PasswordHashParams{.log2_n = 9, .r = 8, .p = 1},
                                          PasswordHashParams{.log2_n = 21, .r = 1, .p = 1},
                                          PasswordHashParams{.log2_n = 15, .r = 0, .p = 1},
                                          PasswordHashParams{.log2_n = 15, .r = 8, .p = 0},
                                          PasswordHashParams{.log2_n = 20, .r = 32, .p = 16}}) {
    try {
      (void)hash_password("pw", params);
      FAIL("accepted ln=" << params.log2_n << " r=" << params.r << " p=" << params.p);
    } catch (const ironhold::Error& e) {
      CHECK(e.kind() == ironhold::ErrorKind::invalid);
    }
  }
}

TEST_CASE("a 1000-character password hashes and verifies", "[crypto][password]") {
  std::string password(1000, 'x');
  for (std::size_t i = 0; i < password.size(); ++i) password[i] = static_cast<char>('!' + i % 90);
  const std::string stored = hash_password(password);
  CHECK(verify_password(password, stored));
  CHECK_FALSE(verify_password(password.substr(0, 999), stored));
  password.back() = ' ';
  CHECK_FALSE(verify_password(password, stored));
}

}  // namespace password_hash_test
