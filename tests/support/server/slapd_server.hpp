#pragma once
// A real OpenLDAP server for a test: Debian's /usr/sbin/slapd in the foreground, in a temporary
// directory of its own (slapd.conf, an mdb database, a CA and a server certificate made with the
// openssl CLI for 127.0.0.1), listening on ldap:// and ldaps:// on two free loopback ports, with
// the memberof overlay, and an LDIF loaded with ldapadd as the root DN. Killed and its directory
// removed on destruction. Needs the slapd, ldap-utils and openssl packages; a test skips with a
// warning when they are missing (SlapdServer::missing_tools()).
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace ironhold::test {

class ChildProcess;

// A certificate authority for a test, made with the openssl CLI: certificate and key, PEM.
struct TestCertificateAuthority {
  std::filesystem::path certificate;
  std::filesystem::path key;
};

// A new CA named `name` in `dir` (files <name>.pem and <name>.key). Throws std::runtime_error
// with openssl's output when that fails.
TestCertificateAuthority make_test_ca(const std::filesystem::path& dir, const std::string& name);

class SlapdServer {
 public:
  static constexpr const char* suffix = "dc=ironhold,dc=test";
  static constexpr const char* root_dn = "cn=admin,dc=ironhold,dc=test";
  static constexpr const char* root_password = "slapd-root-secret";

  // The programs this needs that are not installed ("slapd, ldapadd"), or empty when all are:
  // slapd, ldapadd, ldapsearch (packages slapd, ldap-utils) and openssl.
  static std::string missing_tools();

  // Starts slapd and loads `ldif` (whose entries are under `suffix`). Throws std::runtime_error
  // with slapd's log when it does not start.
  explicit SlapdServer(const std::filesystem::path& ldif);
  ~SlapdServer();
  SlapdServer(const SlapdServer&) = delete;
  SlapdServer& operator=(const SlapdServer&) = delete;

  std::string ldap_url() const;   // "ldap://127.0.0.1:PORT"
  std::string ldaps_url() const;  // "ldaps://127.0.0.1:PORT"
  // The CA that signed the server's certificate (for 127.0.0.1 only: "localhost" does not match).
  const std::filesystem::path& ca_file() const noexcept { return ca_.certificate; }
  const std::filesystem::path& dir() const noexcept { return dir_; }

  // Stops slapd (SIGTERM, then waits for it): connections are refused until start().
  void stop();
  // Starts it again on the same ports with the same data.
  void start();
  bool running() const noexcept { return process_ != nullptr; }

  // slapd's log since it last started, at the "stats" level: a line per connection, bind
  // (BIND dn="..."), search and result.
  std::string log() const;

  // ldapsearch as the root DN over ldap://: what the directory holds, seen without the code under
  // test. The LDIF text (-LLL: no comments, no version line).
  std::string search(const std::string& base, const std::string& filter,
                     const std::vector<std::string>& attributes = {}) const;

 private:
  void write_config() const;
  // Starts slapd on ldap_port_ and ldaps_port_; false when it exited at once (a port was taken).
  bool try_start();

  std::filesystem::path dir_;
  TestCertificateAuthority ca_;
  unsigned short ldap_port_ = 0;
  unsigned short ldaps_port_ = 0;
  int starts_ = 0;
  std::unique_ptr<ChildProcess> process_;
};

}  // namespace ironhold::test
