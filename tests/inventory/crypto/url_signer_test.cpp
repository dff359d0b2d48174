// Signed URLs: valid for their path until their expiry, under the deployment's key only.
#include "inventory/crypto/url_signer.hpp"

#include <catch2/catch.hpp>

#include "inventory/crypto/primitives.hpp"
#include "inventory/crypto/sha256_stream.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace url_signer_test {

using namespace ironhold::crypto;
using namespace std::chrono_literals;

namespace {

struct Parts {
  std::string expires, signature;
};

Parts parts_of(const std::string& query) {
  const auto e = query.find("expires=") + 8;
  const auto amp = query.find('&', e);
  const auto s = query.find("signature=") + 10;
  return {query.substr(e, amp - e), query.substr(s)};
}

}  // namespace

TEST_CASE("a signed URL is valid for its path until it expires", "[crypto][url]") {
  Key key{};
  random_bytes(key);
  const UrlSigner signer(key);
  const auto now = std::chrono::system_clock::now();
  const std::string path = "/api/v1/firmware/images/abc/content";
  const Parts p = parts_of(signer.query_for(path, now + 600s));
  CHECK(p.signature.size() == 64);
  CHECK(signer.valid(path, p.expires, p.signature, now));
  CHECK(signer.valid(path, p.expires, p.signature, now + 599s));
  CHECK_FALSE(signer.valid(path, p.expires, p.signature, now + 601s));
  CHECK_FALSE(signer.valid("/api/v1/firmware/images/abd/content", p.expires, p.signature, now));
  CHECK_FALSE(signer.valid(path, p.expires + "0", p.signature, now));
  CHECK_FALSE(signer.valid(path, "soon", p.signature, now));
  CHECK_FALSE(signer.valid(path, p.expires, p.signature.substr(1), now));

  Key other{};
  random_bytes(other);
  CHECK_FALSE(UrlSigner(other).valid(path, p.expires, p.signature, now));
}

TEST_CASE("SHA-256 in pieces equals SHA-256 at once, and HMAC matches RFC 4231",
          "[crypto][sha256]") {
  Sha256Stream stream;
  stream.update("The quick brown fox ");
  stream.update("");
  stream.update("jumps over the lazy dog");
  CHECK(to_hex(stream.finish()) == to_hex(sha256("The quick brown fox jumps over the lazy dog")));
  // RFC 4231 test case 2.
  CHECK(to_hex(hmac_sha256("Jefe", "what do ya want for nothing?")) ==
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

}  // namespace url_signer_test
