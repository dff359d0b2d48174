#include "tests/support/server/slapd_server.hpp"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "inventory/util/process.hpp"
#include "tests/support/server/child_process.hpp"

namespace ironhold::test {
namespace slapd_server_detail {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// Debian's paths first; /usr/local for a slapd built by hand.
std::string tool_path(const std::string& name) {
  for (const char* dir : {"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"}) {
    const fs::path candidate = fs::path(dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

// Runs a tool to completion; throws with what it printed when it fails.
std::string run_tool(const std::string& name, const std::vector<std::string>& args,
                     std::optional<std::vector<std::string>> environment = std::nullopt) {
  const std::string path = tool_path(name);
  if (path.empty()) throw std::runtime_error(name + " is not installed");
  util::ProcessOptions options;
  options.timeout = 30s;
  options.environment = std::move(environment);
  const auto result = util::run_process(path, args, options);
  if (!result.ok())
    throw std::runtime_error(name + " " + result.status_text() + ": " + result.err + result.out);
  return result.out;
}

// The LDAP clients without /etc/ldap/ldap.conf or a ~/.ldaprc (LDAPNOINIT): what a developer
// configured for their own directory must not change what the test sees.
std::string run_ldap_tool(const std::string& name, const std::vector<std::string>& args) {
  return run_tool(name, args, std::vector<std::string>{"LDAPNOINIT=1"});
}

// A port nobody listens on now: the kernel's pick for port 0. Another process may take it before
// slapd does; the caller retries with new ports when slapd cannot bind.
unsigned short free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ::close(fd);
    throw std::runtime_error(std::string("binding a loopback port: ") + std::strerror(errno));
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

// Whether something accepts TCP connections on the loopback port.
bool accepts(unsigned short port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(port);
  const bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  return connected;
}

fs::path make_temp_dir() {
  std::string pattern = (fs::temp_directory_path() / "ironhold-slapd-XXXXXX").string();
  if (!::mkdtemp(pattern.data()))
    throw std::runtime_error("mkdtemp(" + pattern + "): " + std::strerror(errno));
  return pattern;
}

// A P-256 key and its certificate: quick to make, and accepted by slapd's GnuTLS.
std::vector<std::string> new_certificate_args(const fs::path& key, const fs::path& certificate,
                                              const std::string& subject) {
  std::vector<std::string> args = {"req", "-x509", "-newkey", "ec", "-noenc"};
  args.insert(args.end(), {"-pkeyopt", "ec_paramgen_curve:prime256v1", "-days", "2"});
  args.insert(args.end(), {"-keyout", key.string(), "-out", certificate.string()});
  args.insert(args.end(), {"-subj", "/CN=" + subject});
  return args;
}

// A certificate for 127.0.0.1 signed by `ca`, as <name>.pem and <name>.key in `dir`.
void make_server_certificate(const fs::path& dir, const std::string& name,
                             const TestCertificateAuthority& ca) {
  auto args = new_certificate_args(dir / (name + ".key"), dir / (name + ".pem"), "127.0.0.1");
  args.insert(args.end(),
              {"-CA", ca.certificate.string(), "-CAkey", ca.key.string(), "-addext",
               "subjectAltName=IP:127.0.0.1", "-addext", "basicConstraints=critical,CA:FALSE",
               "-addext", "extendedKeyUsage=serverAuth"});
  run_tool("openssl", args);
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace slapd_server_detail

using namespace slapd_server_detail;

TestCertificateAuthority make_test_ca(const fs::path& dir, const std::string& name) {
  TestCertificateAuthority ca{dir / (name + ".pem"), dir / (name + ".key")};
  auto args = new_certificate_args(ca.key, ca.certificate, "Ironhold test CA " + name);
  args.insert(args.end(), {"-addext", "basicConstraints=critical,CA:TRUE", "-addext",
                           "keyUsage=critical,keyCertSign,cRLSign"});
  run_tool("openssl", args);
  return ca;
}

std::string SlapdServer::missing_tools() {
  std::string missing;
  for (const char* tool : {"slapd", "ldapadd", "ldapsearch", "openssl"})
    if (tool_path(tool).empty()) missing += (missing.empty() ? "" : ", ") + std::string(tool);
  return missing;
}

SlapdServer::SlapdServer(const fs::path& ldif) : dir_(make_temp_dir()) {
  try {
    ca_ = make_test_ca(dir_, "ca");
    make_server_certificate(dir_, "server", ca_);
    fs::create_directory(dir_ / "db");
    write_config();
    // A port taken between free_port() and slapd's bind makes slapd exit: new ports, again.
    for (int attempt = 0; attempt < 5 && !running(); ++attempt) {
      ldap_port_ = free_port();
      do ldaps_port_ = free_port();
      while (ldaps_port_ == ldap_port_);
      try_start();
    }
    if (!running()) throw std::runtime_error("slapd did not start:\n" + log());
    // ldapadd, not slapadd: slapadd writes the database directly, past the memberof overlay,
    // which then never fills the members' memberOf.
    run_ldap_tool("ldapadd", {"-x", "-H", ldap_url(), "-D", root_dn, "-w", root_password, "-f",
                              ldif.string()});
  } catch (...) {
    process_.reset();
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
    throw;
  }
}

SlapdServer::~SlapdServer() {
  process_.reset();  // SIGKILL: the database is thrown away
  std::error_code ignored;
  fs::remove_all(dir_, ignored);
}

std::string SlapdServer::ldap_url() const {
  return "ldap://127.0.0.1:" + std::to_string(ldap_port_);
}

std::string SlapdServer::ldaps_url() const {
  return "ldaps://127.0.0.1:" + std::to_string(ldaps_port_);
}

void SlapdServer::write_config() const {
  const std::string dir = dir_.string();
  std::ofstream conf(dir_ / "slapd.conf");
  // Debian's schemas: inetOrgPerson needs core and cosine; posixGroup and memberUid are in nis.
  conf << "include /etc/ldap/schema/core.schema\n"
          "include /etc/ldap/schema/cosine.schema\n"
          "include /etc/ldap/schema/inetorgperson.schema\n"
          "include /etc/ldap/schema/nis.schema\n"
          "modulepath /usr/lib/ldap\n"
          "moduleload back_mdb\n"
          "moduleload memberof\n";
  conf << "pidfile \"" << dir << "/slapd.pid\"\n"
       << "argsfile \"" << dir << "/slapd.args\"\n"
       << "TLSCACertificateFile \"" << ca_.certificate.string() << "\"\n"
       << "TLSCertificateFile \"" << dir << "/server.pem\"\n"
       << "TLSCertificateKeyFile \"" << dir << "/server.key\"\n";
  // As lax as the laxest directories: a DN with an empty password binds (anonymously), the
  // "unauthenticated bind" of RFC 4513 §5.1.2 that sign-in must never mistake for success.
  conf << "allow bind_anon_dn\n";
  conf << "database mdb\n"
       << "suffix \"" << suffix << "\"\n"
       << "rootdn \"" << root_dn << "\"\n"
       << "rootpw " << root_password << "\n"
       << "directory \"" << dir << "/db\"\n";
  // Keeps memberOf on each member's entry as groupOfNames change, as AD does with its own.
  conf << "overlay memberof\n";
  // Passwords are for binding only; everything else is readable, by the service account and
  // anonymously alike.
  conf << "access to attrs=userPassword by anonymous auth by * none\n"
          "access to * by * read\n";
  if (!conf) throw std::runtime_error("cannot write " + (dir_ / "slapd.conf").string());
}

bool SlapdServer::try_start() {
  const std::string urls = ldap_url() + "/ " + ldaps_url() + "/";
  ++starts_;
  // -d 256: the "stats" log (connections, operations, results) on stderr, and slapd stays in the
  // foreground as our child. As root it keeps running as root: it needs no -u/-g here.
  process_ = std::make_unique<ChildProcess>(
      tool_path("slapd"),
      std::vector<std::string>{"-f", (dir_ / "slapd.conf").string(), "-h", urls, "-d", "256"},
      dir_ / ("slapd-" + std::to_string(starts_) + ".log"));
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < deadline) {
    if (process_->wait(0ms)) {  // exited: a port taken, or a broken configuration
      process_.reset();
      return false;
    }
    // slapd logs "slapd starting" when its sockets are bound, and listens on them a moment later:
    // a connection in between is refused.
    if (log().find("slapd starting") != std::string::npos && accepts(ldap_port_) &&
        accepts(ldaps_port_))
      return true;
    std::this_thread::sleep_for(10ms);
  }
  process_.reset();
  return false;
}

void SlapdServer::stop() {
  if (!process_) return;
  process_->signal(SIGTERM);
  process_->wait(10s);  // else the ChildProcess's destructor kills it
  process_.reset();
}

void SlapdServer::start() {
  if (running()) return;
  if (!try_start()) throw std::runtime_error("slapd did not start again:\n" + log());
}

std::string SlapdServer::log() const {
  return read_file(dir_ / ("slapd-" + std::to_string(starts_) + ".log"));
}

std::string SlapdServer::search(const std::string& base, const std::string& filter,
                                const std::vector<std::string>& attributes) const {
  // -o ldif-wrap=no: one line per value, however long.
  std::vector<std::string> args = {"-LLL", "-x", "-o", "ldif-wrap=no", "-H", ldap_url()};
  args.insert(args.end(), {"-D", root_dn, "-w", root_password, "-b", base, filter});
  args.insert(args.end(), attributes.begin(), attributes.end());
  return run_ldap_tool("ldapsearch", args);
}

}  // namespace ironhold::test
