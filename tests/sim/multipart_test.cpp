// The multipart/form-data parser the simulated BMCs read pushed images with: bodies written out by
// hand as RFC 2046 and RFC 7578 lay them out (CRLF line ends, a preamble and an epilogue, binary
// content that holds CR LF and "--"), and bodies broken in the ways a client breaks them.
#include "sim/redfish/multipart.hpp"

#include <catch2/catch.hpp>
#include <string>

// This file's names, apart from those of the other test files compiled with it.
namespace multipart_test {

using ironhold::sim::redfish::form_boundary;
using ironhold::sim::redfish::FormPart;
using ironhold::sim::redfish::is_form_data;
using ironhold::sim::redfish::max_form_parts;
using ironhold::sim::redfish::parse_form_data;
using namespace std::string_literals;

namespace {

const std::string kBoundary = "----IronholdBoundary7MA4YWxk";

std::vector<FormPart> parts_of(const std::string& body, const std::string& boundary = kBoundary) {
  auto parsed = parse_form_data(body, boundary);
  if (const auto* error = std::get_if<std::string>(&parsed)) FAIL("refused: " << *error);
  return std::get<std::vector<FormPart>>(parsed);
}

std::string error_of(const std::string& body, const std::string& boundary = kBoundary) {
  auto parsed = parse_form_data(body, boundary);
  if (std::holds_alternative<std::vector<FormPart>>(parsed)) FAIL("accepted a malformed body");
  return std::get<std::string>(parsed);
}

}  // namespace

TEST_CASE("form_boundary reads the boundary of multipart/form-data only", "[sim][multipart]") {
  CHECK(form_boundary("multipart/form-data; boundary=abc123") == "abc123");
  CHECK(form_boundary("multipart/form-data; boundary=\"a b:c\"") == "a b:c");
  CHECK(form_boundary("Multipart/Form-Data;BOUNDARY=xyz") == "xyz");
  CHECK(form_boundary("multipart/form-data; charset=utf-8; Boundary=\"q;r\"; x=y") == "q;r");
  CHECK(form_boundary("multipart/form-data ; boundary = spaced ") == "spaced");
  CHECK_FALSE(form_boundary("multipart/mixed; boundary=abc"));
  CHECK_FALSE(form_boundary("application/octet-stream"));
  CHECK_FALSE(form_boundary("multipart/form-data"));
  CHECK_FALSE(form_boundary("multipart/form-data; boundary="));
  CHECK_FALSE(form_boundary("multipart/form-data; boundary=\"unterminated"));
  CHECK_FALSE(form_boundary("multipart/form-data; boundary=" + std::string(71, 'b')));
  CHECK(form_boundary("multipart/form-data; boundary=" + std::string(70, 'b')));
  CHECK(is_form_data("multipart/form-data"));
  CHECK(is_form_data(" MULTIPART/FORM-DATA ; boundary=x"));
  CHECK_FALSE(is_form_data("application/json"));
  CHECK_FALSE(is_form_data(""));
}

TEST_CASE("a form's parts come back with names, filenames, types and exact bodies",
          "[sim][multipart]") {
  const std::string body =
      "This preamble is for mail readers that do not know MIME.\r\n"
      "--" +
      kBoundary +
      "\r\n"
      "Content-Disposition: form-data; name=\"UpdateParameters\"\r\n"
      "Content-Type: application/json\r\n"
      "\r\n"
      "{\"Targets\": []}\r\n"
      "--" +
      kBoundary +
      "\r\n"
      "content-disposition: Form-Data; filename=\"fw \\\"v2\\\".bin\"; name=UpdateFile\r\n"
      "Content-Type: application/octet-stream\r\n"
      "\r\n"
      "IMAGE\r\n"
      "--" +
      kBoundary +
      "\r\n"
      "Content-Disposition: form-data; name=\"note\"\r\n"
      "\r\n"
      "\r\n"
      "--" +
      kBoundary +
      "--\r\n"
      "An epilogue, ignored too.\r\n";
  const auto parts = parts_of(body);
  REQUIRE(parts.size() == 3);
  CHECK(parts[0].name == "UpdateParameters");
  CHECK(parts[0].filename.empty());
  CHECK(parts[0].content_type == "application/json");
  CHECK(parts[0].body == "{\"Targets\": []}");
  CHECK(parts[1].name == "UpdateFile");
  CHECK(parts[1].filename == "fw \"v2\".bin");
  CHECK(parts[1].content_type == "application/octet-stream");
  CHECK(parts[1].body == "IMAGE");
  CHECK(parts[2].name == "note");
  CHECK(parts[2].content_type == "text/plain");  // RFC 7578's default
  CHECK(parts[2].body.empty());
}

TEST_CASE("binary content keeps every byte, CR LF and dashes included", "[sim][multipart]") {
  // Everything a delimiter is made of, but never a whole delimiter line: a CRLF before "--" and
  // the boundary followed by more of a word, a boundary without its CRLF, NUL bytes, a bare CR.
  const std::string content = "IRONHOLD-FIRMWARE component=BMC version=2\n"s +
                              "\r\n--\r\n\0\x01\xff"s + "--" + kBoundary + "\r\n" + "\r\n--" +
                              kBoundary + "X tail\r\n" + "\r\r\n-\r\n--" + kBoundary.substr(0, 10) +
                              "\r\n\0"s;
  const std::string body = "--" + kBoundary + "\r\n" +
                           "Content-Disposition: form-data; name=\"UpdateFile\"; "
                           "filename=\"image.bin\"\r\n"
                           "Content-Type: application/octet-stream\r\n\r\n" +
                           content + "\r\n--" + kBoundary + "--";
  const auto parts = parts_of(body);
  REQUIRE(parts.size() == 1);
  CHECK(parts[0].body.size() == content.size());
  CHECK(std::string(parts[0].body) == content);
}

TEST_CASE("delimiters may carry white space, and a form may hold no part", "[sim][multipart]") {
  const std::string padded =
      "--" + kBoundary + " \t\r\n" + "Content-Disposition: form-data; name=a\r\n\r\n1\r\n--" +
      kBoundary + "  \r\nContent-Disposition: form-data; name=b\r\n\r\n2\r\n--" + kBoundary + "--";
  const auto parts = parts_of(padded);
  REQUIRE(parts.size() == 2);
  CHECK(parts[0].body == "1");
  CHECK(parts[1].body == "2");
  CHECK(parts_of("--" + kBoundary + "--\r\n").empty());
}

TEST_CASE("malformed forms are refused with what is wrong", "[sim][multipart]") {
  const std::string open = "--" + kBoundary + "\r\n";
  const std::string part = "Content-Disposition: form-data; name=\"UpdateFile\"\r\n\r\nbytes";
  const std::string close = "\r\n--" + kBoundary + "--\r\n";

  SECTION("no opening delimiter") {
    CHECK(error_of("just some bytes\r\n").find("opens the body") != std::string::npos);
    CHECK(error_of(open + part + close, "otherBoundary").find("opens") != std::string::npos);
  }
  SECTION("no closing delimiter: the body was cut short") {
    CHECK(error_of(open + part).find("closing delimiter") != std::string::npos);
    CHECK(error_of(open + part + "\r\n--" + kBoundary).find("closing") != std::string::npos);
    CHECK(error_of(open + part + "\r\n--" + kBoundary + "\r\n").find("closing") !=
          std::string::npos);
  }
  SECTION("a part without a name") {
    CHECK(error_of(open + "Content-Disposition: form-data; filename=\"x.bin\"\r\n\r\nx" + close)
              .find("no name") != std::string::npos);
    CHECK(error_of(open + "Content-Disposition: form-data; name=\"\"\r\n\r\nx" + close)
              .find("no name") != std::string::npos);
  }
  SECTION("a part without Content-Disposition, or one that is not form-data") {
    CHECK(error_of(open + "Content-Type: text/plain\r\n\r\nx" + close)
              .find("no Content-Disposition") != std::string::npos);
    CHECK(error_of(open + "Content-Disposition: attachment; name=\"a\"\r\n\r\nx" + close)
              .find("not form-data") != std::string::npos);
  }
  SECTION("broken header lines") {
    CHECK(error_of(open + "Content-Disposition form-data\r\n\r\nx" + close).find("colon") !=
          std::string::npos);
    CHECK(error_of(open + "Content-Disposition: form-data; name=\"open\r\n\r\nx" + close)
              .find("unterminated") != std::string::npos);
    CHECK(error_of(open + "X-Padding: " + std::string(9000, 'p') + "\r\n" + part + close)
              .find("headers pass") != std::string::npos);
  }
  SECTION("more parts than a push could need") {
    std::string many;
    for (std::size_t i = 0; i <= max_form_parts; ++i)
      many += "--" + kBoundary + "\r\nContent-Disposition: form-data; name=p\r\n\r\nx\r\n";
    CHECK(error_of(many + "--" + kBoundary + "--").find("more than") != std::string::npos);
  }
  SECTION("a boundary no sender may use") {
    CHECK_FALSE(error_of(open + part + close, "").empty());
    CHECK_FALSE(error_of(open + part + close, std::string(71, 'b')).empty());
  }
}

}  // namespace multipart_test
