// Signing in against a real OpenLDAP server (tests/support/slapd_server) holding
// tests/data/ldap/directory.ldif, over LDAPS and StartTLS. What each user should get is read from
// that LDIF file here, not from the code under test. Skipped with a warning when slapd, ldap-utils
// or openssl are not installed.
#include "web/auth/ldap_directory.hpp"

#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "inventory/error.hpp"
#include "tests/support/server/slapd_server.hpp"
#include "web/auth/ldap_connection.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace ldap_directory_test {

namespace fs = std::filesystem;
using namespace ironhold::web::auth;
using ironhold::Error;
using ironhold::ErrorKind;
using ironhold::test::SlapdServer;
using nlohmann::json;

const fs::path kLdif = fs::path(__FILE__).parent_path().parent_path().parent_path() / "data" /
                       "ldap" / "directory.ldif";
const std::string kPeople = std::string("ou=people,") + SlapdServer::suffix;
const std::string kGroups = std::string("ou=groups,") + SlapdServer::suffix;
const std::string kService = std::string("cn=ironhold-search,ou=services,") + SlapdServer::suffix;

struct LdifEntry {
  std::string dn;
  std::multimap<std::string, std::string> attributes;  // lower-case names

  std::vector<std::string> values(const std::string& name) const {
    std::vector<std::string> out;
    for (auto [it, end] = attributes.equal_range(name); it != end; ++it) out.push_back(it->second);
    return out;
  }
  std::string value(const std::string& name) const {
    const auto v = values(name);
    return v.empty() ? std::string() : v.front();
  }
};

// The entries of an LDIF file written as ours is: "name: value" lines, blank lines between
// entries, no folded lines or base64 values (a test fails on those rather than misread them).
std::vector<LdifEntry> read_ldif(const fs::path& path) {
  std::ifstream in(path);
  REQUIRE(in);
  std::vector<LdifEntry> entries;
  LdifEntry current;
  const auto finish = [&] {
    if (!current.dn.empty()) entries.push_back(std::move(current));
    current = {};
  };
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) {
      finish();
      continue;
    }
    if (line.front() == '#') continue;
    REQUIRE(line.front() != ' ');
    const auto colon = line.find(": ");
    REQUIRE(colon != std::string::npos);
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), ::tolower);
    const std::string value = line.substr(colon + 2);
    if (name == "dn")
      current.dn = value;
    else
      current.attributes.emplace(name, value);
  }
  finish();
  return entries;
}

const std::vector<LdifEntry>& directory() {
  static const std::vector<LdifEntry> entries = read_ldif(kLdif);
  return entries;
}

const LdifEntry& entry(const std::string& dn) {
  const auto& all = directory();
  const auto it = std::find_if(all.begin(), all.end(), [&](const auto& e) { return e.dn == dn; });
  REQUIRE(it != all.end());
  return *it;
}

std::string user_dn(const std::string& uid) {
  return "uid=" + uid + "," + kPeople;
}
std::string password_of(const std::string& dn) {
  return entry(dn).value("userpassword");
}

// The groups the LDIF puts `uid` in: groupOfNames naming its DN as a member, and, when
// `with_member_uid` (a group search with the default filter), posixGroups naming its uid.
std::vector<std::string> groups_in_ldif(const std::string& uid, bool with_member_uid) {
  std::vector<std::string> groups;
  for (const auto& e : directory()) {
    const auto members = e.values("member");
    const auto uids = e.values("memberuid");
    if (std::find(members.begin(), members.end(), user_dn(uid)) != members.end() ||
        (with_member_uid && std::find(uids.begin(), uids.end(), uid) != uids.end()))
      groups.push_back(e.dn);
  }
  std::sort(groups.begin(), groups.end());
  return groups;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

bool have_slapd() {
  if (const std::string missing = SlapdServer::missing_tools(); !missing.empty()) {
    WARN("skipped: not installed: " << missing);
    return false;
  }
  return true;
}

// A configuration for `server` read through the parser, as the service would; `changes` are
// merged over it (null removes a key).
LdapConfig config_for(const SlapdServer& server, const std::string& url,
                      const json& changes = json::object()) {
  json config = {{"url", url},           {"ca_file", server.ca_file().string()},
                 {"bind_dn", kService},  {"bind_password", password_of(kService)},
                 {"user_base", kPeople}, {"group_base", kGroups},
                 {"timeout_s", 5}};
  if (url.starts_with("ldap://")) config["start_tls"] = true;
  config.merge_patch(changes);
  return parse_ldap_config(config);
}

std::optional<DirectoryUser> sign_in(const LdapConfig& config, const std::string& username,
                                     const std::string& password) {
  LdapDirectory directory(config);
  return directory.authenticate(username, password);
}

// The Error(unavailable) a sign-in throws; fails the test when it throws nothing.
std::string unavailable_message(const LdapConfig& config, const std::string& username,
                                const std::string& password) {
  try {
    (void)sign_in(config, username, password);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::unavailable);
    CHECK_THAT(e.what(), !Catch::Contains(password));
    return e.what();
  }
  FAIL("no error");
  return {};
}

// What slapd logged after the first `from` bytes (the setup's ldapadd comes first).
std::string log_after(const SlapdServer& server, std::size_t from) {
  return server.log().substr(from);
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// A loopback port with nobody listening on it.
unsigned short closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0);
  ::close(fd);
  return ntohs(address.sin_port);
}

// A server that completes the TCP handshake (the kernel does, from the listen backlog) and then
// never says a word: a hung directory.
class SilentServer {
 public:
  SilentServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    REQUIRE(::listen(fd_, 8) == 0);
    REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) == 0);
    port_ = ntohs(address.sin_port);
  }
  ~SilentServer() { ::close(fd_); }
  SilentServer(const SilentServer&) = delete;
  SilentServer& operator=(const SilentServer&) = delete;
  unsigned short port() const { return port_; }

 private:
  int fd_ = -1;
  unsigned short port_ = 0;
};

void check_alice(const std::optional<DirectoryUser>& alice, bool with_member_uid) {
  REQUIRE(alice);
  const LdifEntry& expected = entry(user_dn("alice"));
  CHECK(alice->dn == expected.dn);
  CHECK(alice->username == expected.value("uid"));
  CHECK(alice->display_name == expected.value("cn"));
  CHECK(alice->email == expected.value("mail"));
  CHECK(sorted(alice->groups) == groups_in_ldif("alice", with_member_uid));
  CHECK(alice->groups.size() == 2);
}

TEST_CASE("a user signs in over LDAPS with the groups the directory gives them", "[ldap]") {
  if (!have_slapd()) return;
  SlapdServer server(kLdif);
  const std::size_t setup = server.log().size();
  const LdapConfig config = config_for(server, server.ldaps_url());
  check_alice(sign_in(config, "alice", password_of(user_dn("alice"))), true);

  // bob's groups: a groupOfNames by DN and a posixGroup by memberUid.
  const auto bob = sign_in(config, "bob", password_of(user_dn("bob")));
  REQUIRE(bob);
  CHECK(sorted(bob->groups) == groups_in_ldif("bob", true));
  CHECK(bob->groups.size() == 2);

  // carol is in no group, and has no mail.
  const auto carol = sign_in(config, "carol", password_of(user_dn("carol")));
  REQUIRE(carol);
  CHECK(carol->groups.empty());
  CHECK(carol->email.empty());
  CHECK(carol->display_name == entry(user_dn("carol")).value("cn"));

  // Every connection was TLS from its first byte: one per sign-in.
  const std::string log = log_after(server, setup);
  CHECK(count(log, " ACCEPT ") == 3);
  CHECK(count(log, "TLS established") == 3);
}

TEST_CASE("sign-ins on several threads at once each get their own answer", "[ldap]") {
  if (!have_slapd()) return;
  SlapdServer server(kLdif);
  const LdapConfig config = config_for(server, server.ldaps_url());
  LdapDirectory directory(config);  // one directory, shared as the service's thread pool does
  const std::vector<std::string> users = {"alice", "bob", "carol", "d*ve(x)"};
  // Looked up before the threads start: Catch's checks (in password_of) are not for threads.
  std::map<std::string, std::pair<std::string, std::string>> accounts;  // uid: DN, password
  for (const auto& uid : users) accounts[uid] = {user_dn(uid), password_of(user_dn(uid))};
  std::vector<std::vector<std::string>> groups(8);
  std::vector<int> failures(8, 0);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < 8; ++t)
    threads.emplace_back([&directory, &users, &accounts, &groups, &failures, t] {
      const std::string& uid = users[t % users.size()];
      const auto& [dn, password] = accounts.at(uid);
      for (int round = 0; round < 3; ++round) {
        const auto user = directory.authenticate(uid, password);
        if (!user || user->dn != dn) ++failures[t];
        if (user) groups[t] = sorted(user->groups);
        if (directory.authenticate(uid, "wrong")) ++failures[t];
      }
    });
  for (auto& thread : threads) thread.join();
  for (std::size_t t = 0; t < 8; ++t) {
    INFO(users[t % users.size()]);
    CHECK(failures[t] == 0);
    CHECK(groups[t] == groups_in_ldif(users[t % users.size()], true));
  }
}

TEST_CASE("a user signs in over StartTLS on ldap://", "[ldap]") {
  if (!have_slapd()) return;
  SlapdServer server(kLdif);
  const std::size_t setup = server.log().size();
  check_alice(
      sign_in(config_for(server, server.ldap_url()), "alice", password_of(user_dn("alice"))), true);
  // StartTLS (RFC 4511's extended operation 1.3.6.1.4.1.1466.20037) before the first bind.
  const std::string log = log_after(server, setup);
  const auto start_tls = log.find("EXT oid=1.3.6.1.4.1.1466.20037");
  REQUIRE(start_tls != std::string::npos);
  CHECK(start_tls < log.find(" BIND "));
}

TEST_CASE("a wrong password does not sign in", "[ldap]") {
  if (!have_slapd()) return;
  SlapdServer server(kLdif);
  const LdapConfig config = config_for(server, server.ldaps_url());
  CHECK_FALSE(sign_in(config, "alice", "not-alice-password"));
  CHECK_FALSE(sign_in(config, "alice", password_of(user_dn("bob"))));  // another user's
  CHECK_FALSE(sign_in(config, "alice", password_of(kService)));
  // The directory was asked: a bind as alice, refused.
  CHECK_THAT(server.log(), Catch::Contains("BIND dn=\"" + user_dn("alice") + "\""));
  CHECK_THAT(server.log(), Catch::Contains("err=49"));
}

TEST_CASE("an empty password is refused without asking the directory", "[ldap]") {
  if (!have_slapd()) return;
  SlapdServer server(kLdif);
  const LdapConfig config = config_for(server, server.ldaps_url());
  {
    // The hole: this directory, like many, takes a DN with an empty password as a successful
    // (anonymous) bind.
    LdapConnection connection(config, server.ldaps_url());
    REQUIRE(connection.open() == 0);
    CHECK(connection.bind(user_dn("alice"), "") == 0);
  }
  const std::size_t connections = count(server.log(), " ACCEPT ");
  CHECK_FALSE(sign_in(config, "alice", ""));
  CHECK(count(server.log(), " ACCEPT ") == connections);  // not even a connection
}

TEST_CASE("unknown, ambiguous and malformed names do not sign in", "[ldap]") {
  if (!have_slapd()) return;
  SlapdServer server(kLdif);
  const LdapConfig config = config_for(server, server.ldaps_url());
  CHECK_FALSE(sign_in(config, "mallory", "anything"));
  // Two entries have uid=twin: even with the right password, which one is meant is unknown.
  CHECK_FALSE(sign_in(config, "twin", password_of(user_dn("twin"))));
  CHECK_THAT(server.log(), !Catch::Contains("BIND dn=\"" + user_dn("twin") + "\""));
  CHECK_FALSE(sign_in(config, "alice\n", password_of(user_dn("alice"))));
  CHECK_FALSE(sign_in(config, std::string(300, 'a'), "x"));
}

TEST_CASE("a name matches as the directory compares it and comes back as it spells it", "[ldap]") {
  if (!have_slapd()) return;
  SlapdServer server(kLdif);
  const auto alice =
      sign_in(config_for(server, server.ldaps_url()), "ALICE", password_of(user_dn("alice")));
  REQUIRE(alice);
  CHECK(alice->username == "alice");
  CHECK(alice->dn == user_dn("alice"));
}

TEST_CASE("filter metacharacters in a name match only an entry with that very name", "[ldap]") {
  if (!have_slapd()) return;
  SlapdServer server(kLdif);
  const LdapConfig config = config_for(server, server.ldaps_url());
  const std::string dave = "d*ve(x)";
  const std::string dave_password = password_of(user_dn(dave));

  // Unescaped, each of these would match alice (or everyone) and bind with her password.
  for (const std::string name : {"*", "a*", "*e", "alice)(uid=*", "*)(uid=alice", "al\\2aice"}) {
    INFO(name);
    CHECK_FALSE(sign_in(config, name, password_of(user_dn("alice"))));
  }
  // "d*" would match d*ve(x) as a wildcard.
  CHECK_FALSE(sign_in(config, "d*", dave_password));
  CHECK_FALSE(sign_in(config, "*", dave_password));

  const auto signed_in = sign_in(config, dave, dave_password);
  REQUIRE(signed_in);
  CHECK(signed_in->username == dave);
  CHECK(signed_in->dn == user_dn(dave));
  // Its groups were found with its DN escaped in the group filter too.
  CHECK(sorted(signed_in->groups) == groups_in_ldif(dave, true));
  CHECK(signed_in->groups.size() == 1);
  // The filter slapd received held the name as literal text.
  CHECK_THAT(server.log(), Catch::Contains("filter=\"(uid=d\\2Ave\\28x\\29)\""));
}

TEST_CASE("groups can come from the user's memberOf instead of a group search", "[ldap]") {
  if (!have_slapd()) return;
  SlapdServer server(kLdif);
  // memberOf is kept by slapd's memberof overlay (as AD keeps its own); posixGroups, which name
  // members by uid, are not in it.
  const LdapConfig config = config_for(
      server, server.ldaps_url(), {{"group_base", nullptr}, {"member_of_attribute", "memberOf"}});
  check_alice(sign_in(config, "alice", password_of(user_dn("alice"))), false);
  const auto bob = sign_in(config, "bob", password_of(user_dn("bob")));
  REQUIRE(bob);
  CHECK(sorted(bob->groups) == groups_in_ldif("bob", false));
  CHECK(bob->groups.size() == 1);
  // No group search was made: one search per sign-in.
  CHECK(count(server.log(), " SRCH base=") == 2);
  // What slapd holds, seen through ldapsearch, agrees.
  CHECK_THAT(server.search(user_dn("bob"), "(objectClass=*)", {"memberOf"}),
             Catch::Contains("memberOf: cn=fleet-admins," + kGroups));
}

TEST_CASE("an anonymous search finds the user when no service account is set", "[ldap]") {
  if (!have_slapd()) return;
  SlapdServer server(kLdif);
  const LdapConfig config =
      config_for(server, server.ldaps_url(), {{"bind_dn", nullptr}, {"bind_password", nullptr}});
  check_alice(sign_in(config, "alice", password_of(user_dn("alice"))), true);
  CHECK_FALSE(sign_in(config, "alice", "wrong"));
}

TEST_CASE("a server certificate from another CA is unavailable, naming TLS", "[ldap]") {
  if (!have_slapd()) return;
  SlapdServer server(kLdif);
  const auto stranger = ironhold::test::make_test_ca(server.dir(), "stranger");
  const json other_ca = {{"ca_file", stranger.certificate.string()}};
  for (const std::string& url : {server.ldaps_url(), server.ldap_url()}) {
    INFO(url);
    const std::string message = unavailable_message(config_for(server, url, other_ca), "alice",
                                                    password_of(user_dn("alice")));
    CHECK_THAT(message, Catch::Contains(url + ": the TLS handshake failed (is the server's "
                                              "certificate issued by the configured CA"));
  }
  // No bind reached the server: the password never left.
  CHECK_THAT(server.log(), !Catch::Contains("BIND dn=\"" + user_dn("alice") + "\""));
}

TEST_CASE("a certificate for another host name is unavailable", "[ldap]") {
  if (!have_slapd()) return;
  SlapdServer server(kLdif);
  // The certificate names IP:127.0.0.1; "localhost" reaches the same server under another name.
  std::string url = server.ldaps_url();
  url.replace(url.find("127.0.0.1"), 9, "localhost");
  const std::string message =
      unavailable_message(config_for(server, url), "alice", password_of(user_dn("alice")));
  CHECK_THAT(message, Catch::Contains(url + ": the TLS handshake failed"));
}

TEST_CASE("without ca_file the system's trust store decides, and it does not know the test CA",
          "[ldap]") {
  if (!have_slapd()) return;
  SlapdServer server(kLdif);
  const std::string message =
      unavailable_message(config_for(server, server.ldaps_url(), {{"ca_file", nullptr}}), "alice",
                          password_of(user_dn("alice")));
  CHECK_THAT(message, Catch::Contains(server.ldaps_url() + ": the TLS handshake failed"));
}

TEST_CASE("a stopped server is unavailable naming its URL, and serves again when restarted",
          "[ldap]") {
  if (!have_slapd()) return;
  SlapdServer server(kLdif);
  const LdapConfig config = config_for(server, server.ldaps_url());
  const std::string password = password_of(user_dn("alice"));
  server.stop();
  const std::string message = unavailable_message(config, "alice", password);
  CHECK_THAT(message, Catch::StartsWith("the LDAP directory cannot be reached: "));
  CHECK_THAT(message, Catch::Contains(server.ldaps_url() + ": Can't contact LDAP server"));
  server.start();
  check_alice(sign_in(config, "alice", password), true);
}

TEST_CASE("the next URL is tried when one cannot be reached", "[ldap]") {
  if (!have_slapd()) return;
  SlapdServer server(kLdif);
  const std::string dead = "ldaps://127.0.0.1:" + std::to_string(closed_port());
  const std::string password = password_of(user_dn("alice"));
  check_alice(sign_in(config_for(server, dead + " " + server.ldaps_url()), "alice", password),
              true);
  // All down: each URL is named with what failed.
  server.stop();
  const std::string message =
      unavailable_message(config_for(server, dead + " " + server.ldaps_url()), "alice", password);
  CHECK_THAT(message, Catch::Contains(dead + ": Can't contact LDAP server"));
  CHECK_THAT(message, Catch::Contains(server.ldaps_url() + ": Can't contact LDAP server"));
}

TEST_CASE("a wrong service-account password is unavailable, not a failed sign-in", "[ldap]") {
  if (!have_slapd()) return;
  SlapdServer server(kLdif);
  const LdapConfig config =
      config_for(server, server.ldaps_url(), {{"bind_password", "not-the-service-password"}});
  const std::string message = unavailable_message(config, "alice", password_of(user_dn("alice")));
  CHECK(message == "the LDAP directory refused the service account " + kService + ": " +
                       server.ldaps_url() + ": Invalid credentials");
  CHECK_THAT(message, !Catch::Contains("not-the-service-password"));
}

// CPU time this process has used, all threads.
std::chrono::microseconds cpu_time() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const auto micros = [](const timeval& t) {
    return std::chrono::seconds(t.tv_sec) + std::chrono::microseconds(t.tv_usec);
  };
  return micros(usage.ru_utime) + micros(usage.ru_stime);
}

TEST_CASE("a server that never answers is unavailable after the timeout", "[ldap]") {
  SilentServer silent;
  const std::string port = std::to_string(silent.port());
  // ldaps: silent through the TLS handshake; ldap:// with StartTLS: silent about the StartTLS
  // request.
  for (const std::string& url : {"ldaps://127.0.0.1:" + port, "ldap://127.0.0.1:" + port}) {
    INFO(url);
    LdapConfig config;
    config.urls = {url};
    config.start_tls = true;
    config.user_base = kPeople;
    config.timeout = std::chrono::seconds(1);
    const auto start = std::chrono::steady_clock::now();
    const auto cpu_before = cpu_time();
    try {
      (void)sign_in(config, "alice", "password");
      FAIL("signed in through a silent server");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::unavailable);
      CHECK_THAT(e.what(), Catch::Contains(url + ": "));
    }
    const auto elapsed = std::chrono::steady_clock::now() - start;
    CHECK(elapsed >= std::chrono::milliseconds(900));
    CHECK(elapsed < std::chrono::seconds(3));
    // Waited, not spun (libldap's own handshake loop spins a core: see ldap_connection.cpp).
    CHECK(cpu_time() - cpu_before < std::chrono::milliseconds(300));
  }
}

}  // namespace ldap_directory_test
