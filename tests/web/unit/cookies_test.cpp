// Reading the session cookie from Cookie headers as browsers write them, and the Set-Cookie
// that gives and clears it.
#include "web/cookies.hpp"

#include <catch2/catch.hpp>

// This file's names, apart from those of the other test files compiled with it.
namespace cookies_test {

using namespace ironhold::web;

TEST_CASE("the session cookie is found among others, quoted or not", "[web][cookies]") {
  CHECK(cookie_value("ironhold_session=ihs_a", kSessionCookie) == "ihs_a");
  CHECK(cookie_value("a=1; ironhold_session=ihs_b; c=3", kSessionCookie) == "ihs_b");
  CHECK(cookie_value("a=1;ironhold_session = \"ihs_c\" ", kSessionCookie) == "ihs_c");
  CHECK(cookie_value("x_ironhold_session=1; ironhold_session=ihs_d", kSessionCookie) == "ihs_d");
  CHECK(cookie_value("ironhold_session=first; ironhold_session=second", kSessionCookie) == "first");
  CHECK_FALSE(cookie_value("", kSessionCookie));
  CHECK_FALSE(cookie_value("ironhold_sessio=1; =2; ironhold_session", kSessionCookie));
  CHECK(cookie_value("ironhold_session=", kSessionCookie) == "");
}

TEST_CASE("the Set-Cookie gives or clears the session with its attributes", "[web][cookies]") {
  const std::string given = session_set_cookie("ihs_x", std::chrono::hours(12), false);
  CHECK(given == "ironhold_session=ihs_x; Path=/; Max-Age=43200; HttpOnly; SameSite=Strict");
  CHECK(session_set_cookie("ihs_x", std::chrono::seconds(60), true).ends_with("; Secure"));
  CHECK(session_set_cookie("", std::chrono::seconds(0), false).find("Max-Age=0;") !=
        std::string::npos);
}

}  // namespace cookies_test
