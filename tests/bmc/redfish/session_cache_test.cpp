// The session cache's keys and auth backoff, and the transport's pure helpers, without a BMC.
#include "bmc/redfish/session_cache.hpp"

#include <catch2/catch.hpp>

#include "bmc/redfish/redfish_transport.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace session_cache_test {

using namespace ironhold;
using namespace ironhold::bmc::redfish;
using nlohmann::json;
using namespace std::chrono_literals;

TEST_CASE("the session key changes with the password and never holds it", "[redfish][session]") {
  const auto a = session_key("https://10.0.0.1:443", "admin", "secret-one");
  const auto b = session_key("https://10.0.0.1:443", "admin", "secret-two");
  CHECK(a != b);
  CHECK(a == session_key("https://10.0.0.1:443", "admin", "secret-one"));
  CHECK(a.find("secret") == std::string::npos);
  CHECK(a != session_key("https://10.0.0.2:443", "admin", "secret-one"));
}

TEST_CASE("auth backoff doubles up to its cap and clears on success", "[redfish][session]") {
  auto now = SessionCache::Clock::now();
  SessionCache cache({15min, 1h}, [&now] { return now; });
  CHECK_FALSE(cache.barred_for("k"));
  cache.record_rejection("k");
  REQUIRE(cache.barred_for("k"));
  CHECK(*cache.barred_for("k") == std::chrono::duration_cast<SessionCache::Clock::duration>(15min));
  CHECK_FALSE(cache.barred_for("other"));
  now += 15min;
  CHECK_FALSE(cache.barred_for("k"));
  cache.record_rejection("k");
  CHECK(*cache.barred_for("k") == std::chrono::duration_cast<SessionCache::Clock::duration>(30min));
  now += 30min;
  cache.record_rejection("k");
  CHECK(*cache.barred_for("k") == std::chrono::duration_cast<SessionCache::Clock::duration>(1h));
  now += 1h;
  cache.record_rejection("k");  // capped
  CHECK(*cache.barred_for("k") == std::chrono::duration_cast<SessionCache::Clock::duration>(1h));
  cache.record_success("k");
  CHECK_FALSE(cache.barred_for("k"));
}

TEST_CASE("a 401 drops only the session that failed", "[redfish][session]") {
  SessionCache cache;
  CachedSession s;
  s.token = "new";
  CHECK(cache.store("k", s).empty());
  cache.invalidate("k", "old");  // another request already logged in again
  REQUIRE(cache.find("k"));
  cache.invalidate("k", "new");
  CHECK_FALSE(cache.find("k"));
}

TEST_CASE("targets map onto TLS policies", "[redfish][session][tls]") {
  DriverTarget t;
  std::string why;
  t.endpoint = *parse_endpoint("https://10.0.0.1", why);
  t.credentials = Credentials{"admin", "pw"};
  auto pin = std::get<RedfishTarget>(resolve_target(t));
  CHECK(pin.base_url == "https://10.0.0.1:443");
  CHECK(pin.tls.mode == bmc::http::TlsPolicy::Mode::pin);
  CHECK_FALSE(pin.tls.pinned_sha256_hex);
  t.pinned_fingerprint = std::string(64, 'b');
  CHECK(std::get<RedfishTarget>(resolve_target(t)).tls.pinned_sha256_hex == t.pinned_fingerprint);

  t.options = {{"tls", "insecure"}};
  CHECK(std::get<RedfishTarget>(resolve_target(t)).tls.mode ==
        bmc::http::TlsPolicy::Mode::insecure);
  t.options = {{"tls", "ca"}};
  CHECK(std::get<DriverError>(resolve_target(t)).code == DriverErrorCode::unsupported);
  t.options = {{"tls", "ca"}, {"ca_bundle", "-----BEGIN CERTIFICATE-----"}};
  const auto ca = std::get<RedfishTarget>(resolve_target(t));
  CHECK(ca.tls.mode == bmc::http::TlsPolicy::Mode::ca);
  CHECK(ca.tls.ca_bundle_pem == "-----BEGIN CERTIFICATE-----");

  t.endpoint = *parse_endpoint("http://127.0.0.1:8000", why);
  const auto plain = std::get<RedfishTarget>(resolve_target(t));
  CHECK(plain.base_url == "http://127.0.0.1:8000");
  CHECK(plain.tls.mode == bmc::http::TlsPolicy::Mode::none);

  t.endpoint = *parse_endpoint("ipmi://10.0.0.9", why);
  CHECK(std::get<DriverError>(resolve_target(t)).code == DriverErrorCode::unsupported);
}

TEST_CASE("Redfish JSON is parsed with a depth cap and never throws", "[redfish][session]") {
  CHECK(parse_json_capped(R"({"a": [1, {"b": "]]]]"}]})", 3));
  CHECK_FALSE(parse_json_capped(std::string(100, '[') + std::string(100, ']'), 64));
  CHECK_FALSE(parse_json_capped("{\"a\": ", 64));
  CHECK_FALSE(parse_json_capped("<html>", 64));
  CHECK(parse_json_capped(R"("[[[[\"[[[[")", 1));
}

TEST_CASE("HTTP failures map onto driver error codes", "[redfish][session]") {
  using bmc::http::HttpError;
  using bmc::http::HttpErrorKind;
  CHECK(error_from_http(HttpError{HttpErrorKind::connect_failed, "refused", false}, "GET /").code ==
        DriverErrorCode::unreachable);
  CHECK(error_from_http(HttpError{HttpErrorKind::timeout, "slow", false}, "GET /").code ==
        DriverErrorCode::timeout);
  CHECK(error_from_http(HttpError{HttpErrorKind::tls_pin_mismatch, "x", false}, "GET /").code ==
        DriverErrorCode::tls_pin_mismatch);
  CHECK(error_from_http(HttpError{HttpErrorKind::tls_failed, "x", false}, "GET /").code ==
        DriverErrorCode::tls_failed);
  CHECK(error_from_http(HttpError{HttpErrorKind::too_large, "x", false}, "GET /").code ==
        DriverErrorCode::bad_response);
  CHECK(error_from_status(302, json(), "GET /").code == DriverErrorCode::bad_response);
  CHECK(error_from_status(403, json(), "GET /").code == DriverErrorCode::auth_failed);
  const json body = {{"error",
                      {{"code", "Base.1.8.GeneralError"},
                       {"message", "A general error has occurred."},
                       {"@Message.ExtendedInfo",
                        {{{"Message", "The value Bogus for ResetType is not in the list."}}}}}}};
  const DriverError rejected = error_from_status(400, body, "POST /redfish/v1/X");
  CHECK(rejected.code == DriverErrorCode::rejected);
  CHECK(rejected.message.find("HTTP 400") != std::string::npos);
  CHECK(rejected.message.find("Bogus for ResetType") != std::string::npos);
  CHECK(rejected.message.find("general error") != std::string::npos);
}

TEST_CASE("links and Locations become paths", "[redfish][session]") {
  CHECK(path_of("https://10.0.0.1/redfish/v1/SessionService/Sessions/7?x=1") ==
        "/redfish/v1/SessionService/Sessions/7");
  CHECK(path_of("/redfish/v1/Systems/1#/Oem") == "/redfish/v1/Systems/1");
  CHECK(path_of("https://10.0.0.1") == "");
  CHECK(path_of("Systems/1") == "");
}

TEST_CASE("storing a session returns the same BMC and user's sessions under other passwords",
          "[redfish][session]") {
  SessionCache cache;
  const std::string old_key = session_key("https://10.0.0.1:443", "admin", "old");
  const std::string new_key = session_key("https://10.0.0.1:443", "admin", "new");
  const std::string other_user = session_key("https://10.0.0.1:443", "operator", "old");
  const std::string other_bmc = session_key("https://10.0.0.2:443", "admin", "old");
  CachedSession session;
  session.token = "t-old";
  CHECK(cache.store(old_key, session).empty());
  session.token = "t-operator";
  CHECK(cache.store(other_user, session).empty());
  session.token = "t-other-bmc";
  CHECK(cache.store(other_bmc, session).empty());
  session.token = "t-old-again";
  CHECK(cache.store(old_key, session).empty());  // the same key replaces, supersedes nothing

  session.token = "t-new";
  const auto superseded = cache.store(new_key, session);
  REQUIRE(superseded.size() == 1);
  CHECK(superseded[0].token == "t-old-again");
  CHECK_FALSE(cache.find(old_key));
  CHECK(cache.find(other_user));
  CHECK(cache.find(other_bmc));
  CHECK(cache.find(new_key)->token == "t-new");
}

}  // namespace session_cache_test
