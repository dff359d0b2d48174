// bce-auth-v1 against Baidu's own answers: every vector in bce-auth-v1-vectors.json (three
// published by Baidu's JS SDK tests, nine BCC-shaped ones computed by two Baidu SDKs that agree).
#include "cloudapi/bcc/bce_signer.hpp"

#include <catch2/catch.hpp>

#include "cloudapi/common/uri_encode.hpp"
#include "tests/cloudapi/bcc/bcc_samples.hpp"

namespace ironhold::cloudapi::bcc {
namespace bce_signer_test {
namespace {

using nlohmann::json;

std::string as_text(const json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

BceRequestToSign request_from_vector(const json& input) {
  BceRequestToSign r;
  r.method = input.at("method").get<std::string>();
  r.path = input.at("path").get<std::string>();
  for (const auto& [name, value] : input.at("params").items())
    r.params.emplace_back(
        name, value.is_null() ? std::nullopt : std::optional<std::string>(as_text(value)));
  for (const auto& [name, value] : input.at("headers").items())
    r.headers.emplace_back(name, as_text(value));
  r.timestamp = input.at("timestamp").get<std::int64_t>();
  r.expiration_seconds = input.at("expiration").get<int>();
  if (input.contains("headers_to_sign"))
    r.headers_to_sign = input.at("headers_to_sign").get<std::vector<std::string>>();
  return r;
}

}  // namespace

TEST_CASE("bce-auth-v1 reproduces every vector of Baidu's SDKs", "[bcc][cloudapi]") {
  const auto vectors = test::bcc::baidu_sample("bce-auth-v1-vectors.json");
  if (!vectors) return;
  const auto& list = vectors->at("vectors");
  REQUIRE(list.size() >= 12);
  for (const auto& vector : list) {
    const std::string name = vector.at("name").get<std::string>();
    const json& input = vector.at("input");
    const json& expected = vector.at("expected");
    INFO("vector " << name);
    const BceCredentials credentials{input.at("ak").get<std::string>(),
                                     input.at("sk").get<std::string>()};
    const BceSignature s = sign_bce_v1(credentials, request_from_vector(input));
    CHECK(s.auth_string_prefix == expected.at("auth_string_prefix").get<std::string>());
    CHECK(s.signing_key == expected.at("signing_key").get<std::string>());
    CHECK(s.canonical_request == expected.at("canonical_request").get<std::string>());
    CHECK(s.authorization == expected.at("authorization").get<std::string>());
  }
}

TEST_CASE("bce-auth-v1 encodes everything but the unreserved characters", "[bcc][cloudapi]") {
  // The rule in PROVIDERS.md: only A-Z a-z 0-9 - . _ ~ stay; hex is upper-case.
  CHECK(rfc3986_encode("AZaz09-._~") == "AZaz09-._~");
  CHECK(rfc3986_encode("a b+c*d") == "a%20b%2Bc%2Ad");
  CHECK(rfc3986_encode("2024-01-01T00:00:00Z") == "2024-01-01T00%3A00%3A00Z");
  CHECK(rfc3986_encode("/v2/x") == "%2Fv2%2Fx");
  CHECK(bce_canonical_uri("/v2/instance/a b") == "/v2/instance/a%20b");
  CHECK(bce_canonical_uri("") == "/");
}

TEST_CASE("bce-auth-v1 leaves an authorization query parameter out", "[bcc][cloudapi]") {
  const std::vector<BceParam> params{{"maxKeys", "2"}, {"Authorization", "x"}, {"start", {}}};
  CHECK(bce_canonical_query(params) == "maxKeys=2&start=");
}

TEST_CASE("bce-auth-v1 signs trimmed, lower-cased header names and skips empty values",
          "[bcc][cloudapi]") {
  BceRequestToSign r;
  r.method = "GET";
  r.path = "/v2/instance";
  r.timestamp = 1704067200;
  r.headers = {{"  HOST ", " bcc.bj.baidubce.com "},
               {"X-Bce-Date", "2024-01-01T00:00:00Z"},
               {"x-bce-empty", "  "},
               {"Accept", "application/json"}};
  r.headers_to_sign = std::vector<std::string>{"Host"};
  const auto s = sign_bce_v1({"ak", "sk"}, r);
  CHECK(s.signed_headers == "host;x-bce-date");
  CHECK(s.canonical_request ==
        "GET\n/v2/instance\n\nhost:bcc.bj.baidubce.com\nx-bce-date:2024-01-01T00%3A00%3A00Z");
}

TEST_CASE("bce-auth-v1 timestamps and Authorization values read back", "[bcc][cloudapi]") {
  CHECK(bce_timestamp(1402639056) == "2014-06-13T05:57:36Z");
  CHECK(parse_bce_timestamp("2014-06-13T05:57:36Z") == std::optional<std::int64_t>(1402639056));
  CHECK_FALSE(parse_bce_timestamp("2014-06-13 05:57:36Z"));
  CHECK_FALSE(parse_bce_timestamp("2014-13-13T05:57:36Z"));

  const auto parsed = parse_bce_authorization(
      "bce-auth-v1/my_ak/2014-06-13T05:57:36Z/1800/host;x-bce-meta-key1/80c9672a");
  REQUIRE(parsed);
  CHECK(parsed->access_key == "my_ak");
  CHECK(parsed->timestamp == "2014-06-13T05:57:36Z");
  CHECK(parsed->expiration_seconds == 1800);
  CHECK(parsed->signed_headers == std::vector<std::string>{"host", "x-bce-meta-key1"});
  CHECK(parsed->signature == "80c9672a");

  const auto no_headers = parse_bce_authorization("bce-auth-v1/ak/2014-06-13T05:57:36Z/60//abc");
  REQUIRE(no_headers);
  CHECK(no_headers->signed_headers.empty());

  CHECK_FALSE(parse_bce_authorization("AWS4-HMAC-SHA256 Credential=x"));
  CHECK_FALSE(parse_bce_authorization("bce-auth-v1/ak/ts/notanumber/host/abc"));
  CHECK_FALSE(parse_bce_authorization("bce-auth-v1/ak/ts/1800/host"));
}

}  // namespace bce_signer_test
}  // namespace ironhold::cloudapi::bcc
