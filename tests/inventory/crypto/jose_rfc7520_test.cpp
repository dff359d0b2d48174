// JOSE verification against RFC 7520's signature examples (the RS256, ES512 and HS256 ones of
// section 4, with the keys of section 3), and the JWKs that cannot verify a signature safely.
#include "tests/inventory/crypto/jose_test_helpers.hpp"

namespace jose_test {

TEST_CASE("RFC 7520 section 4.1 RS256 example verifies with the public key of section 3.4",
          "[crypto][jose]") {
  const auto vectors = rfc7520();
  const auto& example = vectors["rs256"];
  const Jwk key = parse_jwk(example["key"]);
  CHECK(key.kty == "RSA");
  CHECK(key.bits == 2048);
  CHECK(key.kid == "bilbo.baggins@hobbiton.example");
  const JwsOptions rs256{.allowed_algs = {"RS256"}};
  const std::string token = example["compact"];

  const VerifiedJws jws = verify_compact(token, key, rs256);
  CHECK(jws.payload == vectors["payload"].get<std::string>());
  CHECK(jws.alg == "RS256");
  CHECK(jws.header == json{{"alg", "RS256"}, {"kid", "bilbo.baggins@hobbiton.example"}});

  const auto first = token.find('.'), second = token.rfind('.');
  CHECK_THAT(refusal([&] { verify_compact(with_changed_char(token, first + 20), key, rs256); }),
             Contains("signature does not verify"));
  CHECK_THAT(refusal([&] { verify_compact(with_changed_char(token, second + 20), key, rs256); }),
             Contains("signature does not verify"));
  // Every other spelling of the last character is refused, including those that differ only in
  // the bits past the signature's end (not canonical base64url).
  for (char c :
       std::string_view("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")) {
    std::string changed = token;
    if (changed.back() == c) continue;
    changed.back() = c;
    CHECK_THROWS_AS(verify_compact(changed, key, rs256), Error);
  }
  CHECK_THAT(refusal([&] { verify_compact(token, key, {.allowed_algs = {"ES256"}}); }),
             Contains("not allowed here"));
}

TEST_CASE("RFC 7520 section 4.3 ES512 example verifies with the P-521 key of section 3.2",
          "[crypto][jose]") {
  const auto vectors = rfc7520();
  const auto& example = vectors["es512"];
  const Jwk key = parse_jwk(example["key"]);
  CHECK(key.kty == "EC");
  CHECK(key.crv == "P-521");
  CHECK(key.bits == 521);
  const JwsOptions es512{.allowed_algs = {"ES512", "RS256"}};
  const std::string token = example["compact"];

  CHECK(verify_compact(token, key, es512).payload == vectors["payload"].get<std::string>());
  const auto first = token.find('.'), second = token.rfind('.');
  CHECK_THAT(refusal([&] { verify_compact(with_changed_char(token, first + 5), key, es512); }),
             Contains("signature does not verify"));
  CHECK_THAT(refusal([&] { verify_compact(with_changed_char(token, second + 5), key, es512); }),
             Contains("signature does not verify"));
  CHECK_THAT(
      refusal([&] { verify_compact(with_changed_char(token, token.size() - 10), key, es512); }),
      Contains("signature does not verify"));
}

TEST_CASE("the alg in a token's header must fit the key type", "[crypto][jose]") {
  const auto vectors = rfc7520();
  const Jwk rsa = parse_jwk(vectors["rs256"]["key"]);
  const Jwk p521 = parse_jwk(vectors["es512"]["key"]);
  const JwsOptions both{.allowed_algs = {"RS256", "ES512"}};
  CHECK_THAT(
      refusal([&] { verify_compact(vectors["es512"]["compact"].get<std::string>(), rsa, both); }),
      Contains("ES512, which the RSA 2048-bit key 'bilbo.baggins@hobbiton.example' does not"));
  CHECK_THAT(
      refusal([&] { verify_compact(vectors["rs256"]["compact"].get<std::string>(), p521, both); }),
      Contains("RS256, which the EC P-521 key"));
  CHECK(rsa.fits("PS512"));
  CHECK_FALSE(rsa.fits("ES256"));
  CHECK(p521.fits("ES512"));
  CHECK_FALSE(p521.fits("ES256"));
  CHECK_FALSE(p521.fits("HS256"));

  // A key that names its alg verifies that alg only.
  auto pinned = vectors["rs256"]["key"];
  pinned["alg"] = "PS256";
  CHECK_THAT(
      refusal([&] {
        verify_compact(vectors["rs256"]["compact"].get<std::string>(), parse_jwk(pinned), both);
      }),
      Contains(
          "RSA 2048-bit key 'bilbo.baggins@hobbiton.example' (for PS256 only) does not verify"));
}

TEST_CASE("RFC 7520 section 4.4 HS256 example is refused though its oct key is supplied",
          "[crypto][jose]") {
  const auto vectors = rfc7520();
  const auto& example = vectors["hs256"];
  const std::string token = example["compact"];
  CHECK_THAT(refusal([&] { parse_jwk(example["key"]); }, ErrorKind::invalid),
             Contains("symmetric (\"oct\") key"));

  const JwkSet set = JwkSet::parse({{"keys", {example["key"], vectors["rs256"]["key"]}}});
  REQUIRE(set.keys().size() == 1);
  REQUIRE(set.skipped().size() == 1);
  CHECK(set.skipped()[0].kid == "018c0ae5-4d9b-471b-bfd6-eef314bc7037");
  CHECK_THAT(set.skipped()[0].reason, Contains("never HMAC"));

  // Even a caller that lists HS256 gets no HMAC verification, with the key set or with the RSA
  // public key (the classic confusion: the public key used as the HMAC secret).
  const JwsOptions careless{.allowed_algs = {"HS256", "RS256"}};
  CHECK_THAT(refusal([&] { verify_compact(token, set, careless); }),
             Contains("public-key signatures only"));
  CHECK_THAT(refusal([&] { verify_compact(token, set.keys()[0], careless); }),
             Contains("public-key signatures only"));
  CHECK_FALSE(is_supported_alg("HS256"));
  CHECK_FALSE(is_supported_alg("none"));
  CHECK(is_supported_alg("PS384"));
}

TEST_CASE("a JWK that cannot verify signatures safely is refused, saying why", "[crypto][jose]") {
  const auto vectors = rfc7520();
  const json rsa = vectors["rs256"]["key"];
  const json ec = vectors["es512"]["key"];
  const auto refused = [](json jwk) {
    return refusal([&] { parse_jwk(jwk); }, ErrorKind::invalid);
  };

  json short_rsa = rsa;  // the first 1024 bits of the RFC's modulus
  short_rsa["n"] = rsa["n"].get<std::string>().substr(0, 170) + "A";
  CHECK_THAT(refused(short_rsa), Contains("1024-bit RSA modulus; at least 2048"));
  json even_e = rsa;
  even_e["e"] = "AQAA";
  CHECK_THAT(refused(even_e), Contains("public key check"));
  json no_e = rsa;
  no_e.erase("e");
  CHECK_THAT(refused(no_e), Contains("has no \"e\""));

  json off_curve = ec;
  std::string y = ec["y"];
  y[40] = y[40] == 'A' ? 'B' : 'A';
  off_curve["y"] = y;
  CHECK_THAT(refused(off_curve), Contains("JWK 'bilbo.baggins@hobbiton.example'"));
  json short_x = ec;  // 64 bytes, not 66
  std::vector<std::uint8_t> x;
  REQUIRE(crypto::from_base64url(ec["x"].get<std::string>(), x));
  x.resize(64);
  short_x["x"] = b64(x);
  CHECK_THAT(refused(short_x), Contains("\"x\" of 64 bytes; P-521 coordinates are 66"));
  json secp256k1 = ec;
  secp256k1["crv"] = "secp256k1";
  CHECK_THAT(refused(secp256k1), Contains("P-256, P-384 and P-521 only"));
  json padded = ec;
  padded["x"] = ec["x"].get<std::string>() + "==";
  CHECK_THAT(refused(padded), Contains("not base64url"));

  json private_part = ec;
  private_part["d"] =
      "AAhRON2r9cqXX1hg-RoI6R1tX5p2rUAYdmpHZoC1XNM56KtscrX6zbKipQrCW9CGZH3T4ubpnoTKLDYJ_fF3_rJt";
  CHECK_THAT(refused(private_part), Contains("private member \"d\""));
  json encrypt_only = rsa;
  encrypt_only["key_ops"] = {"encrypt", "wrapKey"};
  CHECK_THAT(refused(encrypt_only), Contains("without \"verify\""));
  json verify_op = rsa;
  verify_op["key_ops"] = {"verify"};
  CHECK(parse_jwk(verify_op).kty == "RSA");
  json oaep = rsa;
  oaep["alg"] = "RSA-OAEP";
  CHECK_THAT(refused(oaep), Contains("alg 'RSA-OAEP', not one Ironhold verifies"));
  json mismatched = ec;
  mismatched["alg"] = "ES256";
  CHECK_THAT(refused(mismatched), Contains("for alg ES256, which its key type (EC P-521)"));
  CHECK_THAT(refused(json::array()), Contains("JSON object"));
  CHECK_THAT(refused({{"kid", 5}, {"kty", "RSA"}}), Contains("has a non-string \"kid\""));
}

}  // namespace jose_test
