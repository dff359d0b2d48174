// JOSE verification for OpenID Connect: RFC 7520's signature examples, tokens that the openssl
// command-line tool signs while the test runs (so what should verify is decided by OpenSSL's own
// signer, not by the code under test), key sets, claims, and hostile input.
#include <catch2/catch.hpp>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "inventory/crypto/jose/jwk.hpp"
#include "inventory/crypto/jose/jws.hpp"
#include "inventory/crypto/jose/jwt.hpp"
#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"
#include "inventory/util/process.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace jose_test {

using namespace ironhold;
using namespace ironhold::crypto::jose;
using namespace std::chrono_literals;
using Catch::Matchers::Contains;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json rfc7520() {
  const auto file = fs::path(__FILE__).parent_path().parent_path().parent_path() / "data" / "jose" /
                    "rfc7520.json";
  std::ifstream in(file);
  REQUIRE(in);
  return json::parse(in);
}

std::string b64(std::string_view text) {
  return crypto::base64url(
      std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

// The message of the ironhold::Error that `attempt` throws, which must be of `kind`.
template <typename F>
std::string refusal(F&& attempt, ErrorKind kind = ErrorKind::unauthenticated) {
  try {
    attempt();
  } catch (const Error& e) {
    CHECK(e.kind() == kind);
    return e.what();
  }
  FAIL_CHECK("accepted, though it should have been refused");
  return "(accepted)";
}

// `token` with the character at `index` replaced by another of the base64url alphabet.
std::string with_changed_char(std::string token, std::size_t index) {
  token[index] = token[index] == 'A' ? 'B' : 'A';
  return token;
}

// ---- Tokens signed by the openssl command-line tool ----

const fs::path openssl_tool = "/usr/bin/openssl";

std::string openssl(const std::vector<std::string>& args) {
  INFO("the openssl command-line tool (Debian package openssl) is needed at " << openssl_tool);
  REQUIRE(fs::exists(openssl_tool));
  util::ProcessOptions options;
  options.timeout = 120s;
  const auto run = util::run_process(openssl_tool, args, options);
  std::string command = "openssl";
  for (const auto& a : args) command += " " + a;
  INFO(command << ": " << run.status_text() << "\n" << run.err);
  REQUIRE(run.ok());
  return run.out;
}

std::string slurp(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The hex bytes that `openssl pkey -text` prints in the indented lines under `label`.
std::vector<std::uint8_t> hex_block(const std::string& text, const std::string& label) {
  std::istringstream in(text);
  std::string line, hex;
  bool inside = false;
  while (std::getline(in, line)) {
    if (inside) {
      if (line.empty() || line[0] != ' ') break;
      for (char c : line)
        if (std::isxdigit(static_cast<unsigned char>(c))) hex += c;
    } else if (line.starts_with(label)) {
      inside = true;
    }
  }
  std::vector<std::uint8_t> bytes;
  REQUIRE(crypto::from_hex(hex, bytes));
  REQUIRE_FALSE(bytes.empty());
  return bytes;
}

std::string b64(const std::vector<std::uint8_t>& bytes) {
  return crypto::base64url(bytes);
}

struct Signer {
  fs::path private_key;
  std::string alg;
  json jwk;                         // the public key as openssl printed it, as a JWK
  std::size_t coordinate_size = 0;  // ECDSA only
};

struct Workdir {
  fs::path path;
  Workdir() {
    std::string templ = (fs::temp_directory_path() / "ironhold-jose-XXXXXX").string();
    REQUIRE(::mkdtemp(templ.data()) != nullptr);
    path = templ;
  }
  ~Workdir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

Workdir& workdir() {
  static Workdir dir;
  return dir;
}

Signer ec_signer(const std::string& kid, const std::string& curve, const std::string& alg,
                 std::size_t size) {
  Signer s{workdir().path / (kid + ".pem"), alg, {}, size};
  openssl({"genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:" + curve, "-out",
           s.private_key.string()});
  const auto text = openssl({"pkey", "-in", s.private_key.string(), "-text_pub", "-noout"});
  const auto point = hex_block(text, "pub:");  // 0x04 || x || y
  REQUIRE(point.size() == 1 + 2 * size);
  REQUIRE(point[0] == 0x04);
  s.jwk = {{"kty", "EC"},
           {"kid", kid},
           {"crv", curve},
           {"x", b64(std::vector(point.begin() + 1, point.begin() + 1 + size))},
           {"y", b64(std::vector(point.begin() + 1 + size, point.end()))}};
  return s;
}

Signer rsa_signer(const std::string& kid, const std::string& alg) {
  Signer s{workdir().path / (kid + ".pem"), alg, {}, 0};
  openssl({"genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out",
           s.private_key.string()});
  const auto public_pem = (workdir().path / (kid + ".pub.pem")).string();
  openssl({"pkey", "-in", s.private_key.string(), "-pubout", "-out", public_pem});
  const auto text = openssl({"pkey", "-pubin", "-in", public_pem, "-text", "-noout"});
  auto modulus = hex_block(text, "Modulus:");
  while (modulus.size() > 1 && modulus[0] == 0) modulus.erase(modulus.begin());
  const auto at = text.find("Exponent: ");
  REQUIRE(at != std::string::npos);
  std::uint64_t e = 0;
  std::from_chars(text.data() + at + 10, text.data() + text.size(), e);
  REQUIRE(e >= 3);
  std::vector<std::uint8_t> exponent;
  for (; e; e >>= 8) exponent.insert(exponent.begin(), static_cast<std::uint8_t>(e & 0xff));
  s.jwk = {{"kty", "RSA"}, {"kid", kid}, {"n", b64(modulus)}, {"e", b64(exponent)}};
  return s;
}

// R || S from the DER signature, as openssl's asn1parse reads it out.
std::vector<std::uint8_t> raw_ecdsa(const fs::path& der, std::size_t size) {
  const auto listing = openssl({"asn1parse", "-inform", "DER", "-in", der.string()});
  std::vector<std::uint8_t> raw;
  std::istringstream in(listing);
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find("INTEGER");
    if (at == std::string::npos) continue;
    std::string hex = line.substr(line.find(':', at) + 1);
    while (!hex.empty() && std::isspace(static_cast<unsigned char>(hex.back()))) hex.pop_back();
    if (hex.size() % 2) hex.insert(hex.begin(), '0');
    std::vector<std::uint8_t> n;
    REQUIRE(crypto::from_hex(hex, n));
    while (n.size() > size && n[0] == 0) n.erase(n.begin());
    REQUIRE(n.size() <= size);
    raw.insert(raw.end(), size - n.size(), 0);
    raw.insert(raw.end(), n.begin(), n.end());
  }
  REQUIRE(raw.size() == 2 * size);
  return raw;
}

// The compact JWS of `header`.`payload`, signed by openssl with `signer`'s private key.
std::string sign(const Signer& signer, const json& header, const std::string& payload,
                 bool der_signature = false) {
  const std::string input = b64(header.dump()) + "." + b64(payload);
  static int serial = 0;
  const auto input_file = workdir().path / ("input-" + std::to_string(++serial));
  const auto signature_file = workdir().path / ("signature-" + std::to_string(serial));
  std::ofstream(input_file, std::ios::binary) << input;
  std::vector<std::string> args{"dgst", "-sha" + signer.alg.substr(2), "-sign",
                                signer.private_key.string()};
  if (signer.alg.starts_with("PS"))
    for (const char* opt : {"rsa_padding_mode:pss", "rsa_pss_saltlen:digest"})
      args.insert(args.end(), {"-sigopt", opt});
  args.insert(args.end(), {"-out", signature_file.string(), input_file.string()});
  openssl(args);
  const std::string der = slurp(signature_file);
  if (signer.alg.starts_with("ES") && !der_signature)
    return input + "." + b64(raw_ecdsa(signature_file, signer.coordinate_size));
  return input + "." + b64(der);
}

std::string sign(const Signer& signer, const json& header, const json& claims) {
  return sign(signer, header, claims.dump());
}

// Made once for the whole run: RSA key generation takes a while.
struct Signers {
  Signer ec1 = ec_signer("ec-1", "P-256", "ES256", 32);
  Signer ec2 = ec_signer("ec-2", "P-256", "ES256", 32);
  Signer ec384 = ec_signer("ec-384", "P-384", "ES384", 48);
  Signer rsa = rsa_signer("rsa-1", "RS256");
};

const Signers& signers() {
  static const Signers all;
  return all;
}

const JwsOptions es_and_rs{.allowed_algs = {"ES256", "ES384", "ES512", "RS256", "PS256"}};

// ---- Claims ----

const auto now = std::chrono::system_clock::time_point(1'700'000'000s);
constexpr std::int64_t now_s = 1'700'000'000;

json good_claims() {
  return {{"iss", "https://idp.example"}, {"aud", "ironhold"}, {"sub", "alice"},
          {"exp", now_s + 300},           {"iat", now_s - 10}, {"nbf", now_s - 10},
          {"nonce", "n-0S6_WzA2Mj"}};
}

ClaimsExpectations expectations() {
  return {.issuer = "https://idp.example", .audience = "ironhold", .nonce = "n-0S6_WzA2Mj"};
}

}  // namespace

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

  Signer pss = s.rsa;
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
