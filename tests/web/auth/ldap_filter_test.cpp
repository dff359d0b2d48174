// What a username may be, and how it and the configured filter templates become a search filter:
// escaped per RFC 4515, so that no name can widen or rewrite the search.
#include "web/auth/ldap_filter.hpp"

#include <catch2/catch.hpp>
#include <string>

// This file's names, apart from those of the other test files compiled with it.
namespace ldap_filter_test {

using namespace ironhold::web::auth;
using namespace std::string_literals;

TEST_CASE("filter metacharacters in a value are escaped as RFC 4515 writes them", "[ldap]") {
  CHECK(escape_filter_value("alice") == "alice");
  CHECK(escape_filter_value("*") == "\\2a");
  CHECK(escape_filter_value("d*ve(x)") == "d\\2ave\\28x\\29");
  CHECK(escape_filter_value("a\\b") == "a\\5cb");
  CHECK(escape_filter_value("a\0b"s) == "a\\00b");
  CHECK(escape_filter_value("x)(uid=*") == "x\\29\\28uid=\\2a");
  // UTF-8 passes as it is: the server compares it as text.
  CHECK(escape_filter_value("Jos\xc3\xa9") == "Jos\xc3\xa9");
  // A DN as a value: its own escapes ("\,") become literal backslashes.
  CHECK(escape_filter_value("cn=Doe\\, Jane,ou=people") == "cn=Doe\\5c, Jane,ou=people");
}

TEST_CASE("a username is 1 to 256 bytes of UTF-8 without control characters", "[ldap]") {
  CHECK(acceptable_username("alice"));
  CHECK(acceptable_username("d*ve(x)"));  // odd, but a directory may hold it: escaped, not refused
  CHECK(acceptable_username("Jos\xc3\xa9"));
  CHECK(acceptable_username("\xe6\x9d\x8e\xe9\x9b\xb7"));  // two CJK characters
  CHECK(acceptable_username("\xf0\x9f\x98\x80"));          // four bytes
  CHECK(acceptable_username(std::string(kMaxUsernameBytes, 'a')));
  CHECK_FALSE(acceptable_username(std::string(kMaxUsernameBytes + 1, 'a')));
  CHECK_FALSE(acceptable_username(""));
  CHECK_FALSE(acceptable_username("ali\0ce"s));
  CHECK_FALSE(acceptable_username("alice\n"));
  CHECK_FALSE(acceptable_username("ali\tce"));
  CHECK_FALSE(acceptable_username("alice\x7f"));
  CHECK_FALSE(acceptable_username("alice\xc2\x85"));  // NEL, a C1 control
  CHECK_FALSE(acceptable_username("\xc3"));           // cut short
  CHECK_FALSE(acceptable_username("\xc0\xaf"));       // an overlong '/'
  CHECK_FALSE(acceptable_username("\xed\xa0\x80"));   // a surrogate
  CHECK_FALSE(acceptable_username("\xff"));
}

TEST_CASE("a filter template must be one balanced filter with known placeholders", "[ldap]") {
  CHECK(filter_template_problem("(uid={username})", {"username"}).empty());
  CHECK(filter_template_problem("(&(objectClass=person)(|(uid={username})(mail={username})))",
                                {"username"})
            .empty());
  CHECK(filter_template_problem("(cn=a\\2ab)", {}).empty());
  CHECK(filter_template_problem("(|(member={dn})(memberUid={username}))", {"dn", "username"})
            .empty());

  CHECK(filter_template_problem("", {"username"}) == "must not be empty");
  CHECK_THAT(filter_template_problem("uid={username}", {"username"}),
             Catch::Contains("in parentheses"));
  CHECK(filter_template_problem("((uid={username})", {"username"}) == "has unbalanced parentheses");
  CHECK(filter_template_problem("(uid={username}))", {"username"}) == "has unbalanced parentheses");
  CHECK(filter_template_problem("(a=1)(b=2)", {}) == "has unbalanced parentheses");
  CHECK(filter_template_problem("(uid={user})", {"username"}) ==
        "has an unknown placeholder {user} (known: {username})");
  CHECK_THAT(filter_template_problem("(uid={username)", {"username"}),
             Catch::Contains("'{' without its '}'"));
  CHECK_THAT(filter_template_problem("(uid=x})", {"username"}),
             Catch::Contains("'}' without its '{'"));
  CHECK_THAT(filter_template_problem("(cn=a\\b)", {}), Catch::Contains("two hex digits"));
  CHECK_THAT(filter_template_problem("(cn=a\\2)", {}), Catch::Contains("two hex digits"));
}

TEST_CASE("a filled template holds every value escaped", "[ldap]") {
  CHECK(fill_filter_template("(uid={username})", {{"username", "alice"}}) == "(uid=alice)");
  CHECK(fill_filter_template("(uid={username})", {{"username", "*"}}) == "(uid=\\2a)");
  CHECK(fill_filter_template("(|(uid={username})(mail={username}))", {{"username", "a(b"}}) ==
        "(|(uid=a\\28b)(mail=a\\28b))");
  CHECK(fill_filter_template("(|(member={dn})(memberUid={username}))",
                             {{"dn", "uid=d*ve(x),ou=people"}, {"username", "d*ve(x)"}}) ==
        "(|(member=uid=d\\2ave\\28x\\29,ou=people)(memberUid=d\\2ave\\28x\\29))");
  // A value holding a placeholder's spelling is text, not a placeholder.
  CHECK(fill_filter_template("(uid={username})", {{"username", "{username}"}}) ==
        "(uid={username})");
  CHECK(filter_uses("(uid={username})", "username"));
  CHECK_FALSE(filter_uses("(member={dn})", "username"));
}

}  // namespace ldap_filter_test
