// Tokens that the openssl command-line tool signs while the test runs, so that what should
// verify is decided by OpenSSL's own signer, not by the code under test; and key sets.
#include "tests/inventory/crypto/jose_test_helpers.hpp"

namespace jose_test {

TEST_CASE("ES256 and ES384 tokens signed by the openssl tool verify, and tampering is caught",
          "[crypto][jose][openssl]") {
  const auto& s = signers();
  const Jwk p256 = parse_jwk(s.ec1.jwk);
  const Jwk p384 = parse_jwk(s.ec384.jwk);
  CHECK(p256.bits == 256);
  CHECK(p384.bits == 384);

  const std::string payload = R"({"hello":"world"})";
  const std::string es256 = sign(s.ec1, {{"alg", "ES256"}, {"typ", "JWT"}}, payload);
  const VerifiedJws jws = verify_compact(es256, p256, es_and_rs);
  CHECK(jws.payload == payload);
  CHECK(jws.header["typ"] == "JWT");
  const std::string es384 = sign(s.ec384, {{"alg", "ES384"}}, payload);
  CHECK(verify_compact(es384, p384, es_and_rs).payload == payload);

  CHECK_THAT(refusal([&] { verify_compact(es256, parse_jwk(s.ec2.jwk), es_and_rs); }),
             Contains("does not verify"));
  const auto dot = es256.find('.');
  CHECK_THAT(refusal([&] { verify_compact(with_changed_char(es256, dot + 3), p256, es_and_rs); }),
             Contains("does not verify"));
  CHECK_THAT(
      refusal([&] { verify_compact(with_changed_char(es256, es256.size() - 5), p256, es_and_rs); }),
      Contains("does not verify"));
  // openssl's DER signature as it comes, not converted to R || S, is not a JWS signature.
  const std::string der = sign(s.ec1, {{"alg", "ES256"}}, payload, /*der_signature=*/true);
  CHECK_THAT(refusal([&] { verify_compact(der, p256, es_and_rs); }),
             Contains("it must be 64 (R and S of 32 bytes each)"));
}

TEST_CASE("RS256 and PS256 tokens signed by the openssl tool verify, and tampering is caught",
          "[crypto][jose][openssl]") {
  const auto& s = signers();
  const Jwk rsa = parse_jwk(s.rsa.jwk);
  CHECK(rsa.bits == 2048);
  const std::string payload = R"({"sub":"bob"})";
  const std::string rs256 = sign(s.rsa, {{"alg", "RS256"}, {"kid", "rsa-1"}}, payload);
  CHECK(verify_compact(rs256, rsa, es_and_rs).payload == payload);

  OpensslSigner pss = s.rsa;
  pss.alg = "PS256";
  const std::string ps256 = sign(pss, {{"alg", "PS256"}}, payload);
  CHECK(verify_compact(ps256, rsa, es_and_rs).payload == payload);

  // The same signature bytes under the other padding's name must not verify.
  const auto dot = rs256.rfind('.');
  const std::string relabelled = b64(json{{"alg", "PS256"}}.dump()) + rs256.substr(rs256.find('.'));
  CHECK_THROWS_AS(verify_compact(relabelled, rsa, es_and_rs), Error);
  CHECK_THAT(refusal([&] { verify_compact(with_changed_char(rs256, dot - 3), rsa, es_and_rs); }),
             Contains("does not verify"));
  std::vector<std::uint8_t> signature;
  REQUIRE(crypto::from_base64url(rs256.substr(dot + 1), signature));
  signature.resize(253);
  CHECK_THAT(
      refusal([&] { verify_compact(rs256.substr(0, dot + 1) + b64(signature), rsa, es_and_rs); }),
      Contains("the RS256 signature is 253 bytes"));
}

TEST_CASE("a key set chooses the key by kid, and a kid-less token only when one key fits",
          "[crypto][jose][openssl]") {
  const auto& s = signers();
  json enc = s.ec1.jwk;
  enc["kid"] = "for-encryption";
  enc["use"] = "enc";
  const json oct = {{"kty", "oct"}, {"kid", "shared"}, {"k", "c2VjcmV0"}};
  const JwkSet set = JwkSet::parse(
      {{"keys", {s.ec1.jwk, s.ec2.jwk, s.rsa.jwk, enc, oct, {{"kty", "OKP"}, {"kid", "ed"}}, 7}}});
  CHECK(set.keys().size() == 3);
  REQUIRE(set.skipped().size() == 4);
  CHECK(set.skipped()[0].index == 3);
  CHECK_THAT(set.skipped()[0].reason, Contains("\"use\": 'enc', not for signatures"));
  CHECK_THAT(set.skipped()[1].reason, Contains("symmetric"));
  CHECK_THAT(set.skipped()[2].reason, Contains("kty 'OKP'"));
  CHECK_THAT(set.skipped()[3].reason, Contains("must be a JSON object"));

  const std::string payload = R"({"n":1})";
  CHECK(verify_compact(sign(s.ec2, {{"alg", "ES256"}, {"kid", "ec-2"}}, payload), set, es_and_rs)
            .payload == payload);
  CHECK(verify_compact(sign(s.ec1, {{"alg", "ES256"}, {"kid", "ec-1"}}, payload), set, es_and_rs)
            .payload == payload);
  CHECK_THAT(
      refusal([&] {
        verify_compact(sign(s.ec2, {{"alg", "ES256"}, {"kid", "ec-1"}}, payload), set, es_and_rs);
      }),
      Contains("does not verify with the EC P-256 key 'ec-1'"));
  // Without a kid: two P-256 keys could verify ES256, so neither is tried.
  CHECK_THAT(refusal([&] {
               verify_compact(sign(s.ec1, {{"alg", "ES256"}}, payload), set, es_and_rs);
             }),
             Contains("names no kid and 2 keys"));
  // ... but only one key verifies RS256.
  CHECK(verify_compact(sign(s.rsa, {{"alg", "RS256"}}, payload), set, es_and_rs).payload ==
        payload);
  CHECK_THAT(
      refusal([&] {
        verify_compact(sign(s.ec1, {{"alg", "ES256"}, {"kid", "ec-9"}}, payload), set, es_and_rs);
      }),
      Contains("no key with kid 'ec-9'"));
  CHECK_THAT(refusal([&] {
               verify_compact(sign(s.ec1, {{"alg", "ES256"}, {"kid", "for-encryption"}}, payload),
                              set, es_and_rs);
             }),
             Contains("was skipped"));
  // A P-256 key is not for ES384, whatever the token's kid says.
  CHECK_THAT(
      refusal([&] {
        verify_compact(sign(s.ec384, {{"alg", "ES384"}, {"kid", "ec-1"}}, payload), set, es_and_rs);
      }),
      Contains("is the EC P-256 key 'ec-1', which does not verify a token signed with 'ES384'"));
  CHECK_THAT(refusal([&] { set.find(std::nullopt, "ES384"); }), Contains("no key"));
  // The same kid twice for one alg is ambiguous.
  json twin = s.ec2.jwk;
  twin["kid"] = "ec-1";
  const JwkSet twins = JwkSet::parse({{"keys", {s.ec1.jwk, twin}}});
  CHECK_THAT(refusal([&] { twins.find("ec-1", "ES256"); }), Contains("refusing to guess"));
  // A key the header carries is never used.
  const std::string own_key = sign(s.ec384, {{"alg", "ES384"}, {"jwk", s.ec384.jwk}}, payload);
  CHECK_THAT(refusal([&] { verify_compact(own_key, set, es_and_rs); }), Contains("no key"));

  CHECK_THAT(refusal([&] { JwkSet::parse(json::array()); }, ErrorKind::invalid),
             Contains("\"keys\" array"));
  CHECK_THAT(refusal(
                 [&] {
                   JwkSet::parse({{"keys", "none"}});
                 },
                 ErrorKind::invalid),
             Contains("\"keys\" array"));
}

TEST_CASE("a JWT signed by the openssl tool passes verify_jwt, and a replayed one does not",
          "[crypto][jose][jwt][openssl]") {
  const auto& s = signers();
  const JwkSet set = JwkSet::parse({{"keys", {s.ec1.jwk, s.rsa.jwk}}});
  const std::string token = sign(s.ec1, {{"alg", "ES256"}, {"kid", "ec-1"}}, good_claims());
  const Claims claims = verify_jwt(token, set, es_and_rs, expectations(), now);
  CHECK(claims.subject == "alice");
  CHECK(claims.all == good_claims());
  CHECK_THAT(refusal([&] { verify_jwt(token, set, es_and_rs, expectations(), now + 1h); }),
             Contains("expired"));
  auto other_login = expectations();
  other_login.nonce = "another";
  CHECK_THAT(refusal([&] { verify_jwt(token, set, es_and_rs, other_login, now); }),
             Contains("nonce"));

  const std::string prose = sign(s.rsa, {{"alg", "RS256"}}, std::string("not a claim set"));
  CHECK_THAT(refusal([&] { verify_jwt(prose, set, es_and_rs, expectations(), now); }),
             Contains("the JWT payload is not JSON"));
  const std::string twice =
      sign(s.rsa, {{"alg", "RS256"}}, std::string(R"({"sub":"alice","sub":"admin"})"));
  CHECK_THAT(refusal([&] { verify_jwt(twice, set, es_and_rs, expectations(), now); }),
             Contains("names 'sub' twice"));
}

}  // namespace jose_test
