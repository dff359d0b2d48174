#pragma once
// One connection to one LDAP server, over libldap's synchronous API, for LdapDirectory: the TLS
// settings and timeouts of the configuration applied to this handle alone (never libldap's global
// options, which every other handle in the process would share), binds, and searches whose
// results are copied out so that no libldap memory outlives a call.
#include <signal.h>

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "web/auth/ldap_config.hpp"
#include "web/auth/socket_watchdog.hpp"

struct ldap;         // libldap's handle (LDAP in <ldap.h>)
struct ldap_conncb;  // libldap's connection callbacks

namespace ironhold::web::auth {

struct LdapEntry {
  std::string dn;  // as the server returned it
  // The values of each attribute asked for that the entry has, keyed by the name as asked.
  std::map<std::string, std::vector<std::string>, std::less<>> attributes;

  // The values of `name`; empty when the entry has none.
  const std::vector<std::string>& values(std::string_view name) const;
};

struct LdapSearchResult {
  std::vector<LdapEntry> entries;
  bool truncated = false;  // more entries matched than the size limit let through
};

// Whether a libldap result code means the server could not be reached or talked to (down,
// refused, timed out, TLS failed, busy), as opposed to an answer it gave.
bool ldap_unreachable(int code);

class LdapConnection {
 public:
  // A handle for `url` with the configuration's TLS settings and timeouts. Nothing is sent until
  // the first operation. Throws Error(unavailable) when libldap refuses the URL or an option.
  LdapConnection(const LdapConfig& config, std::string url);
  ~LdapConnection();  // unbinds (closes the connection)
  LdapConnection(const LdapConnection&) = delete;
  LdapConnection& operator=(const LdapConnection&) = delete;

  const std::string& url() const noexcept { return url_; }

  // Connects and, for an ldap:// URL with start_tls, runs StartTLS. libldap's result code.
  int open();
  // A simple bind (RFC 4513 §5.1) as `dn`; an empty DN and password bind anonymously. libldap's
  // result code: LDAP_SUCCESS, LDAP_INVALID_CREDENTIALS, ...
  int bind(std::string_view dn, std::string_view password);
  // A subtree search of `base`; `attributes` empty asks for none (just the DNs). At most
  // `size_limit` entries. Throws Error(unavailable) naming `what` ("searching for the user") and
  // the reason when the search fails.
  LdapSearchResult search(const std::string& base, const std::string& filter,
                          const std::vector<std::string>& attributes, int size_limit,
                          std::string_view what);

  // "<url>: <libldap's words for code> (<the server's or TLS layer's diagnostic>)", for messages,
  // with what happened first when we know: "no answer within 5 s: ", "the TLS handshake failed
  // (...): ".
  std::string explain(int code) const;

 private:
  // libldap writes to its socket with write(2): a server that hung up would raise SIGPIPE, whose
  // default action ends the whole service. Blocked in this thread while the connection exists,
  // and any SIGPIPE it raised is taken before the thread's mask is restored.
  class SigpipeBlock {
   public:
    SigpipeBlock();
    ~SigpipeBlock();
    SigpipeBlock(const SigpipeBlock&) = delete;
    SigpipeBlock& operator=(const SigpipeBlock&) = delete;

   private:
    sigset_t previous_;
  };

  struct Unbind {
    void operator()(ldap* handle) const;
  };

  friend struct LdapConnectionCallbacks;  // libldap's connection callbacks (the .cpp)
  // Whether the TLS handshake is what failed, as far as `code` and what happened before tell.
  bool handshake_failed(int code) const;

  SigpipeBlock sigpipe_block_;  // first: released after the handle is closed
  const LdapConfig& config_;
  std::string url_;
  // Every operation ends within the configured timeout, the TLS handshake included.
  SocketWatchdog watchdog_;
  std::unique_ptr<ldap_conncb> callbacks_;  // tells watchdog_ the socket; outlives the handle
  bool connected_ = false;                  // the TCP connection was made
  bool answered_ = false;  // the server answered an operation (so TLS, if any, is up)
  std::unique_ptr<ldap, Unbind> handle_;
};

}  // namespace ironhold::web::auth
