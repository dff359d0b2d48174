// The SigV4 signer against AWS's Signature Version 4 test suite (aws-c-auth layout, in
// cloud-samples/aws/sigv4-test-suite/v4): for every case, the canonical request, the string to
// sign, the signature and the Authorization header of the header-signing variant.
//
// All 38 cases apply and are run. What is not checked: the query-signing variant of each case
// (query-*.txt, presigned URLs with X-Amz-Signature in the query), because the EC2 driver signs
// with the Authorization header only and the signer does not build presigned URLs.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cloudapi/ec2/sigv4.hpp"
#include "inventory/util/time.hpp"
#include "tests/cloudapi/ec2/ec2_test_files.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace sigv4_suite_test {

namespace fs = std::filesystem;
using namespace ironhold::cloudapi::ec2;
using ironhold::test::ec2::aws_samples_dir;
using ironhold::test::ec2::read_text;

namespace {

std::string without_trailing_newlines(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

// request.txt: "METHOD target HTTP/1.1", header lines ("Name:value"; a line starting with
// whitespace continues the previous value), an empty line, the body. The target may hold raw
// spaces and UTF-8, so it is everything between the first and the last space.
SigV4Request parse_request_file(const std::string& text) {
  SigV4Request request;
  std::size_t pos = 0;
  auto next_line = [&](std::string& line) {
    if (pos > text.size()) return false;
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    line = text.substr(pos, end - pos);
    pos = end + 1;
    return true;
  };
  std::string line;
  REQUIRE(next_line(line));
  const std::size_t first_space = line.find(' ');
  const std::size_t last_space = line.rfind(' ');
  REQUIRE(first_space != std::string::npos);
  REQUIRE(last_space > first_space);
  request.method = line.substr(0, first_space);
  request.target = line.substr(first_space + 1, last_space - first_space - 1);
  while (next_line(line) && !line.empty()) {
    if (line.front() == ' ' || line.front() == '\t') {
      REQUIRE(!request.headers.empty());
      request.headers.back().second += "\n" + line;
      continue;
    }
    const std::size_t colon = line.find(':');
    REQUIRE(colon != std::string::npos);
    request.headers.emplace_back(line.substr(0, colon), line.substr(colon + 1));
  }
  if (pos < text.size()) request.body = text.substr(pos);
  return request;
}

// The Authorization line of header-signed-request.txt.
std::string authorization_of(const std::string& signed_request) {
  const std::string prefix = "Authorization:";
  const std::size_t at = signed_request.find("\n" + prefix);
  REQUIRE(at != std::string::npos);
  const std::size_t start = at + 1 + prefix.size();
  const std::size_t end = std::min(signed_request.find('\n', start), signed_request.size());
  return signed_request.substr(start, end - start);
}

}  // namespace

TEST_CASE("SigV4 signer passes every case of the AWS signature v4 test suite", "[ec2][cloudapi]") {
  const fs::path suite = aws_samples_dir() / "sigv4-test-suite" / "v4";
  if (!fs::is_directory(suite)) {
    WARN("no SigV4 test suite at " << suite.string() << "; skipped");
    return;
  }
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(suite))
    if (entry.is_directory()) cases.push_back(entry.path());
  std::sort(cases.begin(), cases.end());
  CHECK(cases.size() == 38);

  for (const auto& dir : cases) {
    INFO("case " << dir.filename().string());
    const auto context = nlohmann::json::parse(read_text(dir / "context.json"));
    const auto when = ironhold::parse_rfc3339(context.at("timestamp").get<std::string>());
    REQUIRE(when);
    AwsCredentials credentials;
    credentials.access_key_id = context["credentials"]["access_key_id"];
    credentials.secret_access_key = context["credentials"]["secret_access_key"];
    if (context["credentials"].contains("token"))
      credentials.session_token = context["credentials"]["token"].get<std::string>();
    SigV4Options options;
    options.region = context.at("region");
    options.service = context.at("service");
    options.normalize_path = context.value("normalize", true);
    options.add_content_sha256 = context.value("sign_body", false);
    options.sign_session_token = !context.value("omit_session_token", false);

    const SigV4Request request = parse_request_file(read_text(dir / "request.txt"));
    const SigV4Result result = sign_v4(request, credentials, options, *when);

    CHECK(result.canonical_request ==
          without_trailing_newlines(read_text(dir / "header-canonical-request.txt")));
    CHECK(result.string_to_sign ==
          without_trailing_newlines(read_text(dir / "header-string-to-sign.txt")));
    CHECK(result.signature == without_trailing_newlines(read_text(dir / "header-signature.txt")));
    CHECK(result.authorization == authorization_of(read_text(dir / "header-signed-request.txt")));
  }
}

TEST_CASE("SigV4 Authorization headers parse back into their parts", "[ec2][cloudapi]") {
  const auto parsed = parse_authorization(
      "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/ec2/aws4_request, "
      "SignedHeaders=content-type;host;x-amz-date, Signature=abc123");
  REQUIRE(parsed);
  CHECK(parsed->access_key_id == "AKIDEXAMPLE");
  CHECK(parsed->date == "20150830");
  CHECK(parsed->region == "us-east-1");
  CHECK(parsed->service == "ec2");
  CHECK(parsed->signed_headers == std::vector<std::string>{"content-type", "host", "x-amz-date"});
  CHECK(parsed->signature == "abc123");

  CHECK_FALSE(
      parse_authorization("AWS4-HMAC-SHA256 Credential=AK/2015/us-east-1/ec2/aws4_request"));
  CHECK_FALSE(parse_authorization("Bearer xyz"));
  CHECK_FALSE(
      parse_authorization("AWS4-HMAC-SHA256 Credential=AK/20150830/r/s/x, "
                          "SignedHeaders=host, Signature=ab"));
}

TEST_CASE("SigV4 dates are written and read in the x-amz-date form", "[ec2][cloudapi]") {
  const auto when = ironhold::parse_rfc3339("2015-08-30T12:36:00Z");
  REQUIRE(when);
  CHECK(amz_date(*when) == "20150830T123600Z");
  CHECK(parse_amz_date("20150830T123600Z") == *when);
  CHECK_FALSE(parse_amz_date("2015-08-30T12:36:00Z"));
  CHECK_FALSE(parse_amz_date("20151330T123600Z"));
}

}  // namespace sigv4_suite_test
