// Reading the "ldap" configuration: defaults, and every mistake refused with a message naming the
// field, above all an ldap:// URL that would carry passwords in clear.
#include "web/auth/ldap_config.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "inventory/error.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace ldap_config_test {

namespace fs = std::filesystem;
using namespace ironhold::web::auth;
using ironhold::Error;
using ironhold::ErrorKind;
using nlohmann::json;

json minimal() {
  return {{"url", "ldaps://dc1.example.com:636"}, {"user_base", "ou=people,dc=example,dc=com"}};
}

json with(json config, const std::string& key, json value) {
  config[key] = std::move(value);
  return config;
}

// The message of the Error that parsing `config` throws (after checking its kind and field).
std::string refusal(const json& config, const std::string& field) {
  try {
    (void)parse_ldap_config(config);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::invalid);
    CHECK(e.field() == field);
    return e.what();
  }
  FAIL("accepted: " << config.dump());
  return {};
}

// Files for the settings that name one, removed at the end of the test.
struct Files {
  fs::path dir = fs::temp_directory_path() / ("ih-ldap-config-test-" + std::to_string(::getpid()));
  Files() { fs::create_directories(dir); }
  ~Files() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
  std::string write(const std::string& name, const std::string& content) const {
    std::ofstream(dir / name) << content;
    return (dir / name).string();
  }
};

TEST_CASE("a minimal LDAP configuration gets the documented defaults", "[ldap]") {
  const LdapConfig c = parse_ldap_config(minimal());
  CHECK(c.urls == std::vector<std::string>{"ldaps://dc1.example.com:636"});
  CHECK_FALSE(c.start_tls);
  CHECK(c.ca_file.empty());
  CHECK(c.bind_dn.empty());
  CHECK(c.bind_password.empty());
  CHECK(c.user_base == "ou=people,dc=example,dc=com");
  CHECK(c.user_filter == "(uid={username})");
  CHECK(c.group_base.empty());
  CHECK(c.group_filter == "(|(member={dn})(uniqueMember={dn})(memberUid={username}))");
  CHECK(c.member_of_attribute.empty());
  CHECK(c.username_attribute == "uid");
  CHECK(c.display_name_attribute == "cn");
  CHECK(c.email_attribute == "mail");
  CHECK(c.timeout == std::chrono::seconds(5));
}

TEST_CASE("an Active Directory configuration is read whole", "[ldap]") {
  Files files;
  const json ad = {
      {"url", "ldaps://dc1.corp.example:636  ldaps://dc2.corp.example:636 ldaps://[fd00::5]:636/"},
      {"ca_file", files.write("ca.pem", "-----BEGIN CERTIFICATE-----\nMII...\n")},
      {"bind_dn", "CN=svc-ironhold,OU=Service Accounts,DC=corp,DC=example"},
      {"bind_password_file", files.write("password", "s3cret pass\n")},
      {"user_base", "OU=Staff,DC=corp,DC=example"},
      {"user_filter", "(&(objectClass=user)(sAMAccountName={username}))"},
      {"member_of_attribute", "memberOf"},
      {"username_attribute", "sAMAccountName"},
      {"display_name_attribute", "displayName"},
      {"timeout_s", 10}};
  const LdapConfig c = parse_ldap_config(ad);
  CHECK(c.urls.size() == 3);
  CHECK(c.urls[2] == "ldaps://[fd00::5]:636/");
  CHECK(c.bind_password == "s3cret pass");  // the file's newline is not part of it
  CHECK(c.bind_password_file == (files.dir / "password").string());
  CHECK(c.member_of_attribute == "memberOf");
  CHECK(c.timeout == std::chrono::seconds(10));
}

TEST_CASE("ldap:// without StartTLS is refused unless plaintext is allowed explicitly", "[ldap]") {
  const json plain = with(minimal(), "url", "ldap://dc1.example.com:389");
  const std::string message = refusal(plain, "ldap.start_tls");
  CHECK_THAT(message, Catch::Contains("\"ldap.start_tls\" must be true for ldap:// URLs"));
  CHECK_THAT(message, Catch::Contains("in clear"));
  // One ldap:// among ldaps:// ones is enough to refuse.
  refusal(with(minimal(), "url", "ldaps://a:636 LDAP://b:389"), "ldap.start_tls");
  refusal(with(plain, "start_tls", false), "ldap.start_tls");
  refusal(with(plain, "allow_plaintext", false), "ldap.start_tls");

  CHECK(parse_ldap_config(with(plain, "start_tls", true)).start_tls);
  const LdapConfig clear = parse_ldap_config(with(plain, "allow_plaintext", true));
  CHECK_FALSE(clear.start_tls);
  CHECK_THAT(describe(clear), Catch::Contains("NO TLS"));
}

TEST_CASE("unknown keys and wrong types are refused naming the field", "[ldap]") {
  CHECK_THAT(refusal(with(minimal(), "usr_filter", "(uid={username})"), "ldap.usr_filter"),
             Catch::Contains("unknown field \"ldap.usr_filter\""));
  CHECK(refusal(with(minimal(), "url", 636), "ldap.url") ==
        "\"ldap.url\" must be a string, not a number");
  CHECK(refusal(with(minimal(), "start_tls", "yes"), "ldap.start_tls") ==
        "\"ldap.start_tls\" must be true or false, not a string");
  CHECK(refusal(with(minimal(), "timeout_s", 2.5), "ldap.timeout_s") ==
        "\"ldap.timeout_s\" must be a whole number, not a number");
  CHECK(refusal(with(minimal(), "timeout_s", "5"), "ldap.timeout_s") ==
        "\"ldap.timeout_s\" must be a whole number, not a string");
  CHECK_THAT(refusal(with(minimal(), "timeout_s", 0), "ldap.timeout_s"),
             Catch::Contains("from 1 to 60 seconds, not 0"));
  refusal(with(minimal(), "timeout_s", 61), "ldap.timeout_s");
  CHECK(parse_ldap_config(with(minimal(), "timeout_s", 60)).timeout == std::chrono::seconds(60));
  CHECK(refusal(with(minimal(), "user_base", ""), "ldap.user_base") ==
        "\"ldap.user_base\" must not be empty (leave it out instead)");
  refusal(with(minimal(), "user_base", "ou=people\n,dc=example"), "ldap.user_base");
  CHECK(refusal(json::array(), "ldap") == "\"ldap\" must be an object, not an array");

  json no_url = minimal();
  no_url.erase("url");
  CHECK(refusal(no_url, "ldap.url") == "\"ldap.url\" is required");
  json no_base = minimal();
  no_base.erase("user_base");
  CHECK(refusal(no_base, "ldap.user_base") == "\"ldap.user_base\" is required");
}

TEST_CASE("URLs must be ldap[s]://host[:port]", "[ldap]") {
  for (const char* bad :
       {"https://dc1:636", "ldaps://", "ldaps://dc1:0", "ldaps://dc1:65536", "ldaps://dc1:63x",
        "ldaps://dc1/dc=example,dc=com", "ldaps://user@dc1:636", "ldapi:///run/slapd.sock",
        "dc1.example.com", "ldaps://[fd00::5:636"}) {
    INFO(bad);
    CHECK_THAT(refusal(with(minimal(), "url", bad), "ldap.url"),
               Catch::Contains("is not ldaps://host:port or ldap://host:port"));
  }
  CHECK(parse_ldap_config(with(minimal(), "url", "ldaps://dc1")).urls.size() == 1);
  CHECK(parse_ldap_config(with(minimal(), "url", " ldaps://10.0.0.5:636/ ")).urls ==
        std::vector<std::string>{"ldaps://10.0.0.5:636/"});
  refusal(with(minimal(), "url", "   "), "ldap.url");
}

TEST_CASE("filters must hold the user and only known placeholders", "[ldap]") {
  CHECK(refusal(with(minimal(), "user_filter", "(objectClass=person)"), "ldap.user_filter") ==
        "\"ldap.user_filter\" must contain {username}");
  CHECK(refusal(with(minimal(), "user_filter", "(uid={user})"), "ldap.user_filter") ==
        "\"ldap.user_filter\" has an unknown placeholder {user} (known: {username})");
  // {dn} is the user's DN, known only after the user search: not for the user filter.
  refusal(with(minimal(), "user_filter", "(|(uid={username})(member={dn}))"), "ldap.user_filter");
  refusal(with(minimal(), "user_filter", "(uid={username}"), "ldap.user_filter");

  const json groups = with(minimal(), "group_base", "ou=groups,dc=example,dc=com");
  CHECK(parse_ldap_config(groups).group_base == "ou=groups,dc=example,dc=com");
  // Without the user, every group the filter matches would be everyone's.
  CHECK(refusal(with(groups, "group_filter", "(objectClass=groupOfNames)"), "ldap.group_filter") ==
        "\"ldap.group_filter\" must contain {dn} or {username}");
  CHECK(parse_ldap_config(with(groups, "group_filter", "(memberUid={username})")).group_filter ==
        "(memberUid={username})");
  CHECK_THAT(refusal(with(minimal(), "group_filter", "(member={dn})"), "ldap.group_filter"),
             Catch::Contains("is set without \"ldap.group_base\""));
}

TEST_CASE("DNs and attribute names are checked", "[ldap]") {
  CHECK(refusal(with(minimal(), "user_base", "people"), "ldap.user_base") ==
        "\"ldap.user_base\" is not a DN (like ou=people,dc=example,dc=com)");
  refusal(with(minimal(), "user_base", "ou=people,,dc=example"), "ldap.user_base");
  refusal(with(minimal(), "group_base", "groups"), "ldap.group_base");
  CHECK(parse_ldap_config(with(minimal(), "user_base", "CN=Doe\\, Jane,OU=Staff,DC=corp"))
            .user_base == "CN=Doe\\, Jane,OU=Staff,DC=corp");
  CHECK_THAT(
      refusal(with(minimal(), "member_of_attribute", "member Of"), "ldap.member_of_attribute"),
      Catch::Contains("is not an attribute name"));
  refusal(with(minimal(), "username_attribute", "uid)(x"), "ldap.username_attribute");
  refusal(with(minimal(), "email_attribute", "-mail"), "ldap.email_attribute");
  CHECK(parse_ldap_config(with(minimal(), "email_attribute", "0.9.2342.19200300.100.1.3"))
            .email_attribute == "0.9.2342.19200300.100.1.3");
  const json both = with(with(minimal(), "group_base", "ou=groups,dc=example,dc=com"),
                         "member_of_attribute", "memberOf");
  CHECK_THAT(refusal(both, "ldap.group_base"), Catch::Contains("not both"));
}

TEST_CASE("the service account needs a DN and a non-empty password from one place", "[ldap]") {
  Files files;
  const json account = with(minimal(), "bind_dn", "cn=ironhold,dc=example,dc=com");
  CHECK(refusal(account, "ldap.bind_dn") ==
        "\"ldap.bind_dn\" needs \"ldap.bind_password\" or \"ldap.bind_password_file\"");
  CHECK(parse_ldap_config(with(account, "bind_password", "pw")).bind_password == "pw");
  // An empty password would be an unauthenticated bind: anonymous, on many servers.
  refusal(with(account, "bind_password", ""), "ldap.bind_password");
  CHECK_THAT(refusal(with(minimal(), "bind_password", "pw"), "ldap.bind_password"),
             Catch::Contains("without \"ldap.bind_dn\""));
  const std::string file = files.write("password", "from-file\r\n");
  CHECK(parse_ldap_config(with(account, "bind_password_file", file)).bind_password == "from-file");
  CHECK_THAT(refusal(with(with(account, "bind_password", "pw"), "bind_password_file", file),
                     "ldap.bind_password"),
             Catch::Contains("both set"));
  CHECK_THAT(refusal(with(account, "bind_password_file", files.write("empty", "\n")),
                     "ldap.bind_password_file"),
             Catch::Contains("which is empty"));
  const std::string missing = (files.dir / "missing").string();
  CHECK(refusal(with(account, "bind_password_file", missing), "ldap.bind_password_file") ==
        "\"ldap.bind_password_file\" names " + missing +
            ", which cannot be read: No such file or directory");
  refusal(with(account, "bind_password_file", files.write("big", std::string(5000, 'x'))),
          "ldap.bind_password_file");
}

TEST_CASE("the CA file must be a readable PEM certificate", "[ldap]") {
  Files files;
  const std::string missing = (files.dir / "ca.pem").string();
  CHECK_THAT(refusal(with(minimal(), "ca_file", missing), "ldap.ca_file"),
             Catch::Contains("names " + missing + ", which cannot be read"));
  CHECK_THAT(refusal(with(minimal(), "ca_file", files.write("key.pem", "-----BEGIN PRIVATE KEY")),
                     "ldap.ca_file"),
             Catch::Contains("holds no PEM certificate"));
}

TEST_CASE("the description of a configuration never holds the password", "[ldap]") {
  Files files;
  json config = with(minimal(), "bind_dn", "cn=ironhold,dc=example,dc=com");
  config["bind_password"] = "hunter2-secret";
  config["group_base"] = "ou=groups,dc=example,dc=com";
  const std::string text = describe(parse_ldap_config(config));
  CHECK_THAT(text, !Catch::Contains("hunter2"));
  CHECK_THAT(text, Catch::Contains("ldaps://dc1.example.com:636"));
  CHECK_THAT(text, Catch::Contains("cn=ironhold,dc=example,dc=com"));
  CHECK_THAT(text, Catch::Contains("the system's trust store"));
  CHECK_THAT(text, Catch::Contains("groups under ou=groups,dc=example,dc=com"));
  config.erase("bind_password");
  config["bind_password_file"] = files.write("password", "hunter2-secret");
  const std::string from_file = describe(parse_ldap_config(config));
  CHECK_THAT(from_file, !Catch::Contains("hunter2"));
  CHECK_THAT(from_file, Catch::Contains("password from " + (files.dir / "password").string()));
}

}  // namespace ldap_config_test
