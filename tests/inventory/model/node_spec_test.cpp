#include "inventory/model/node_spec.hpp"

#include <catch2/catch.hpp>

#include "inventory/error.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace node_spec_test {

using namespace ironhold;
using nlohmann::json;

namespace {

json base() {
  return {{"name", "gpu-a01"}, {"driver", "redfish"}, {"endpoint", "https://10.1.2.3"}};
}

// Runs the parser and returns the error's kind and field.
std::pair<ErrorKind, std::string> failure(const json& body) {
  try {
    parse_node_spec(body);
  } catch (const Error& e) {
    return {e.kind(), e.field()};
  }
  FAIL("accepted: " << body.dump());
  return {};
}

}  // namespace

TEST_CASE("driver auto takes the transport from the scheme", "[model][spec]") {
  auto body = base();
  body["driver"] = "auto";
  CHECK(parse_node_spec(body).driver == "redfish");
  body["endpoint"] = "ipmi://10.1.2.4";
  CHECK(parse_node_spec(body).driver == "ipmi");
  body["endpoint"] = "10.1.2.5";
  CHECK(parse_node_spec(body).driver == "auto");
}

TEST_CASE("wrong types are 400 naming the field, unacceptable values 422", "[model][spec]") {
  auto body = base();
  body["name"] = 7;
  CHECK(failure(body) == std::make_pair(ErrorKind::invalid, std::string("name")));
  body = base();
  body.erase("endpoint");
  CHECK(failure(body) == std::make_pair(ErrorKind::invalid, std::string("endpoint")));
  body = base();
  body["tags"] = {{"team", 3}};
  CHECK(failure(body) == std::make_pair(ErrorKind::invalid, std::string("tags.team")));
  body = base();
  body["driver"] = "ipmi";
  CHECK(failure(body) == std::make_pair(ErrorKind::unprocessable, std::string("endpoint")));
  body = base();
  body["options"] = {{"cipher_suites", {17}}};  // an IPMI option on a Redfish endpoint
  CHECK(failure(body) ==
        std::make_pair(ErrorKind::unprocessable, std::string("options.cipher_suites")));
  body = base();
  body["options"] = {{"tls", "ca"}};
  CHECK(failure(body) ==
        std::make_pair(ErrorKind::unprocessable, std::string("options.ca_bundle")));
  body = base();
  body["options"] = {
      {"tls", "ca"},
      {"ca_bundle", "-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n"}};
  CHECK(failure(body) ==
        std::make_pair(ErrorKind::unprocessable, std::string("options.ca_bundle")));
  body = base();
  body["name"] = "has space";
  CHECK(failure(body) == std::make_pair(ErrorKind::unprocessable, std::string("name")));
  body = base();
  body["surprise"] = true;
  CHECK(failure(body).first == ErrorKind::unprocessable);
}

TEST_CASE("IPMI options are validated and kg kept apart from public options", "[model][spec]") {
  json body = {
      {"name", "ipmi-1"},
      {"driver", "ipmi"},
      {"endpoint", "ipmi://10.0.0.9:623"},
      {"options", {{"cipher_suites", {17, 3}}, {"privilege", "operator"}, {"kg", "00ff"}}}};
  auto spec = parse_node_spec(body);
  CHECK(spec.options == json({{"cipher_suites", {17, 3}}, {"privilege", "operator"}}));
  CHECK(spec.kg == "00ff");
  body["options"]["cipher_suites"] = {17, 1};  // suite 1 (no encryption) is not implemented
  CHECK(failure(body) ==
        std::make_pair(ErrorKind::unprocessable, std::string("options.cipher_suites")));
  body["options"]["cipher_suites"] = {17, 17};
  CHECK(failure(body) ==
        std::make_pair(ErrorKind::unprocessable, std::string("options.cipher_suites")));
  body["options"]["cipher_suites"] = {"17"};
  CHECK(failure(body) == std::make_pair(ErrorKind::invalid, std::string("options.cipher_suites")));
}

TEST_CASE("a patch merges into the current node and keeps a write-only kg", "[model][spec]") {
  Node current;
  current.name = "ipmi-2";
  current.driver = "ipmi";
  current.endpoint = "ipmi://10.0.0.9";
  current.options = {{"privilege", "admin"}};
  current.tags = {{"a", "1"}, {"b", "2"}};
  bool credentials_changed = true;
  auto spec = apply_node_patch(current, std::string("abcd"),
                               {{"tags", {{"a", nullptr}, {"c", "3"}}}}, credentials_changed);
  CHECK_FALSE(credentials_changed);
  CHECK(spec.tags == json({{"b", "2"}, {"c", "3"}}));
  CHECK(spec.kg == "abcd");
  CHECK(spec.options == json({{"privilege", "admin"}}));
  spec = apply_node_patch(current, std::string("abcd"), {{"options", {{"kg", nullptr}}}},
                          credentials_changed);
  CHECK_FALSE(spec.kg);
  spec = apply_node_patch(current, std::nullopt,
                          {{"credentials", {{"username", "u"}, {"password", "p"}}}},
                          credentials_changed);
  CHECK(credentials_changed);
  REQUIRE(spec.credentials);
  CHECK(spec.credentials->password == "p");
}

}  // namespace node_spec_test
