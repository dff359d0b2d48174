// JWT claims (issuer, audience, time, nonce, authorized party) and hostile tokens.
#include "tests/inventory/crypto/jose_test_helpers.hpp"

namespace jose_test {

TEST_CASE("claims are checked for issuer, audience, time, nonce and authorized party",
          "[crypto][jose][jwt]") {
  const auto expected = expectations();
  const Claims claims = check_claims(good_claims(), expected, now);
  CHECK(claims.subject == "alice");
  CHECK(claims.all["nonce"] == "n-0S6_WzA2Mj");

  const auto refused = [&](json c, const ClaimsExpectations& e = expectations()) {
    return refusal([&] { check_claims(c, e, now); });
  };
  const auto with = [](const char* name, json value) {
    json c = good_claims();
    c[name] = std::move(value);
    return c;
  };
  const auto without = [](const char* name) {
    json c = good_claims();
    c.erase(name);
    return c;
  };

  SECTION("expiry, with the leeway") {
    CHECK_THAT(refused(with("exp", now_s - 61)), Contains("expired at 2023-11-14T22:12:19"));
    CHECK(check_claims(with("exp", now_s - 59), expected, now).subject == "alice");
    auto strict = expected;
    strict.leeway = 0s;
    CHECK_THAT(refused(with("exp", now_s), strict), Contains("expired"));
    CHECK(check_claims(with("exp", now_s + 1), strict, now).subject == "alice");
    CHECK(check_claims(with("exp", now_s + 0.5), strict, now).subject == "alice");
    CHECK_THAT(refused(without("exp")), Contains("no \"exp\""));
    CHECK_THAT(refused(with("exp", std::to_string(now_s + 300))),
               Contains("\"exp\" is not a number"));
    // Absurd times neither overflow nor pass.
    CHECK(check_claims(with("exp", 1e300), expected, now).subject == "alice");
    CHECK_THAT(refused(with("exp", -1e300)), Contains("-1e+300 s after 1970 (an absurd time)"));
  }
  SECTION("not yet valid, with the leeway") {
    CHECK_THAT(refused(with("nbf", now_s + 120)), Contains("not valid before"));
    CHECK(check_claims(with("nbf", now_s + 30), expected, now).subject == "alice");
    CHECK_THAT(refused(with("iat", now_s + 120)),
               Contains("issued at") && Contains("in the future"));
    CHECK(check_claims(with("iat", now_s + 30), expected, now).subject == "alice");
    CHECK(check_claims(without("nbf"), expected, now).subject == "alice");
  }
  SECTION("issuer") {
    CHECK_THAT(
        refused(with("iss", "https://evil.example")),
        Contains("issued by 'https://evil.example', not by the expected 'https://idp.example'"));
    CHECK_THAT(refused(with("iss", "https://idp.example/")), Contains("not by the expected"));
    CHECK_THAT(refused(without("iss")), Contains("no \"iss\""));
  }
  SECTION("audience, and the authorized party of a token for several") {
    CHECK_THAT(refused(with("aud", "someone-else")),
               Contains("for the audience 'someone-else', not for the expected 'ironhold'"));
    CHECK_THAT(refused(with("aud", json::array({"a", "b"}))), Contains("for 2 audiences"));
    CHECK_THAT(refused(with("aud", json::array())), Contains("0 audiences"));
    CHECK_THAT(refused(with("aud", json::array({"ironhold", 5}))), Contains("not a string"));
    CHECK(check_claims(with("aud", json::array({"ironhold"})), expected, now).subject == "alice");

    json several = with("aud", json::array({"ironhold", "other-api"}));
    CHECK_THAT(refused(several), Contains("2 audiences and has no \"azp\""));
    several["azp"] = "ironhold";
    CHECK(check_claims(several, expected, now).subject == "alice");
    several["azp"] = "other-api";
    CHECK_THAT(refused(several), Contains("issued to the party 'other-api', not to 'ironhold'"));
    auto access = expected;  // an access token for the API, issued to the console client
    access.client_id = "console";
    several["azp"] = "console";
    CHECK(check_claims(several, access, now).subject == "alice");
    // A resource server's Bearer check: any client may hold a token for this audience, so its
    // azp is not this service's business; the audience still is.
    auto bearer = expected;
    bearer.check_authorized_party = false;
    several["azp"] = "some-script";
    CHECK_THAT(refused(several), Contains("issued to the party 'some-script'"));
    CHECK(check_claims(several, bearer, now).subject == "alice");
    CHECK_THAT(refusal([&] { check_claims(with("aud", "other-api"), bearer, now); }),
               Contains("not for the expected 'ironhold'"));
  }
  SECTION("nonce") {
    CHECK_THAT(refused(with("nonce", "n-0S6_WzA2Mk")), Contains("\"nonce\" is not the one sent"));
    CHECK_THAT(refused(with("nonce", 5)), Contains("\"nonce\" is not the one sent"));
    CHECK_THAT(refused(without("nonce")), Contains("no \"nonce\""));
    auto access = expected;  // no nonce asked for: none checked
    access.nonce.reset();
    CHECK(check_claims(without("nonce"), access, now).subject == "alice");
  }
  SECTION("subject") {
    CHECK_THAT(refused(without("sub")), Contains("no \"sub\""));
    CHECK_THAT(refused(with("sub", "")), Contains("no \"sub\""));
  }
  CHECK_THAT(refusal([&] { check_claims(good_claims(), {}, now); }, ErrorKind::internal),
             Contains("without an expected issuer"));
}

TEST_CASE("hostile tokens are refused with a reason and without echoing them",
          "[crypto][jose][openssl]") {
  const auto vectors = rfc7520();
  const Jwk p521 = parse_jwk(vectors["es512"]["key"]);
  const std::string good = vectors["es512"]["compact"];
  const JwsOptions options{.allowed_algs = {"ES256", "ES512"}};
  const std::string payload = b64("{}"), sig = b64("signature");
  const auto refused = [&](const std::string& token) {
    return refusal([&] { verify_compact(token, p521, options); });
  };

  CHECK_THAT(refused(""), Contains("empty"));
  CHECK_THAT(refused(".."), Contains("the JWS header is empty"));
  CHECK_THAT(refused("."), Contains("2 parts"));
  CHECK_THAT(refused("a.b.c.d.e"), Contains("encrypted (a JWE)"));
  CHECK_THAT(refused("eyJhbGciOiJFUzUxMiJ9$." + payload + "." + sig),
             Contains("header is not base64url"));
  CHECK_THAT(refused(good.substr(0, good.find('.')) + ".e30=." + sig),
             Contains("payload is not base64url"));
  CHECK_THAT(refused(good + "=="), Contains("signature is not base64url"));
  const std::string huge =
      good.substr(0, good.find('.') + 1) + std::string(17 * 1024, 'A') + "." + sig;
  const std::string message = refused(huge);
  CHECK_THAT(message, Contains("at most 16384 are accepted"));
  CHECK(message.size() < 200);
  CHECK_THAT(refused(b64("not json") + "." + payload + "." + sig), Contains("header is not JSON"));
  CHECK_THAT(refused(b64(R"(["alg","ES512"])") + "." + payload + "." + sig),
             Contains("header is not a JSON object"));
  CHECK_THAT(refused(b64(R"({"alg":"none"})") + "." + payload + "."),
             Contains("unsigned (alg \"none\")"));
  CHECK_THAT(refused(b64(R"({"alg":"none"})") + "." + payload + "." + sig), Contains("unsigned"));
  CHECK_THAT(refused(b64(R"({"typ":"JWT"})") + "." + payload + "." + sig), Contains("no \"alg\""));
  CHECK_THAT(refused(b64(R"({"alg":["ES512"]})") + "." + payload + "." + sig),
             Contains("\"alg\" is not a string"));
  CHECK_THAT(refused(b64(R"({"alg":"ES512","alg":"none"})") + "." + payload + "." + sig),
             Contains("names 'alg' twice"));
  CHECK_THAT(refused(b64(R"({"alg":"EdDSA"})") + "." + payload + "." + sig),
             Contains("'EdDSA' is not one Ironhold verifies"));
  CHECK_THAT(refused(b64(R"({"alg":"ES512","crit":["exp"],"exp":1})") + "." + payload + "." + sig),
             Contains("\"crit\""));
  CHECK_THAT(refused(b64(R"({"alg":"ES512","b64":false})") + "." + payload + "." + sig),
             Contains("unencoded payload"));
  CHECK_THAT(
      refused(b64(R"({"alg":"ES512","x":)" + std::string(20, '[') + std::string(20, ']') + "}") +
              "." + payload + "." + sig),
      Contains("nests deeper than 16 levels"));
  CHECK_THAT(refused(b64(std::string(R"({"alg":"ES512","k":")") + '\xff' + "\"}") + "." + payload +
                     "." + sig),
             Contains("header is not JSON"));
  CHECK_THAT(refused(good.substr(0, good.rfind('.') + 1)), Contains("signature is empty"));
  CHECK_THAT(refused(good.substr(0, good.find('.')) + ".." + good.substr(good.rfind('.') + 1)),
             Contains("payload is empty"));

  // ES256 wants R || S of 32 bytes each: 63 or 65 bytes are not a signature.
  const auto& s = signers();
  const Jwk p256 = parse_jwk(s.ec1.jwk);
  const std::string es256 = sign(s.ec1, {{"alg", "ES256"}}, std::string("{}"));
  std::vector<std::uint8_t> raw;
  REQUIRE(crypto::from_base64url(es256.substr(es256.rfind('.') + 1), raw));
  REQUIRE(raw.size() == 64);
  const std::string input = es256.substr(0, es256.rfind('.') + 1);
  auto shorter = raw, longer = raw;
  shorter.pop_back();
  longer.push_back(0);
  CHECK_THAT(refusal([&] { verify_compact(input + b64(shorter), p256, options); }),
             Contains("ES256 signature is 63 bytes; it must be 64"));
  CHECK_THAT(refusal([&] { verify_compact(input + b64(longer), p256, options); }),
             Contains("ES256 signature is 65 bytes; it must be 64"));
  CHECK(verify_compact(es256, p256, options).payload == "{}");
}

}  // namespace jose_test
