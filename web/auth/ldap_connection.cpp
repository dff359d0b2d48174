#include "web/auth/ldap_connection.hpp"

#include <lber.h>
#include <ldap.h>
#include <pthread.h>
#include <sys/time.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <mutex>

#include "inventory/error.hpp"
#include "inventory/util/concat.hpp"

namespace ironhold::web::auth {
namespace ldap_connection_detail {

using util::concat;

struct FreeMessage {
  void operator()(LDAPMessage* message) const { ldap_msgfree(message); }
};
using Message = std::unique_ptr<LDAPMessage, FreeMessage>;

struct FreeValues {
  void operator()(berval** values) const { ldap_value_free_len(values); }
};
struct FreeMemory {
  void operator()(char* text) const { ldap_memfree(text); }
};

Error unavailable(std::string message) {
  return Error(ErrorKind::unavailable, std::move(message));
}

// libldap copies option values: pointers to locals are fine.
void set_option(LDAP* handle, int option, const void* value, const std::string& url,
                std::string_view name) {
  const int rc = ldap_set_option(handle, option, value);
  if (rc != LDAP_OPT_SUCCESS)
    throw unavailable(
        concat("LDAP ", url, ": libldap refused the option ", name, ": ", ldap_err2string(rc)));
}

// libldap sets itself up on first use: process-wide defaults read from /etc/ldap/ldap.conf, and
// its TLS library at the first TLS context, the latter behind "done yet?" counters it updates
// without a lock (tls2.c, tls_init). Two first sign-ins at once would race there: done once,
// here, with a handle that never connects.
void initialize_libldap() {
  static std::once_flag once;
  std::call_once(once, [] {
    LDAP* handle = nullptr;
    if (ldap_initialize(&handle, "ldap://127.0.0.1") != LDAP_SUCCESS) return;
    const int client = 0;
    ldap_set_option(handle, LDAP_OPT_X_TLS_NEWCTX, &client);
    ldap_unbind_ext_s(handle, nullptr, nullptr);
  });
}

std::vector<std::string> values_of(LDAP* handle, LDAPMessage* entry, const std::string& name) {
  std::vector<std::string> out;
  std::unique_ptr<berval*, FreeValues> values(ldap_get_values_len(handle, entry, name.c_str()));
  if (!values) return out;
  for (berval** v = values.get(); *v; ++v) out.emplace_back((*v)->bv_val, (*v)->bv_len);
  return out;
}

}  // namespace ldap_connection_detail

struct LdapConnectionCallbacks {
  // Called by libldap once the TCP connection is up, before any TLS handshake.
  // LDAP_OPT_NETWORK_TIMEOUT bounded the connect; left set, it would make libldap 2.5 with
  // GnuTLS run the handshake on a non-blocking socket that it reads in a loop without ever
  // waiting or looking at the clock (measured: a core at 100 %, for as long as the server stays
  // silent: minutes, hours). Unset, the handshake blocks in read(2), and the watchdog ends it at
  // the deadline.
  static int connected(LDAP* handle, Sockbuf* socket_buffer, LDAPURLDesc*, sockaddr*,
                       ldap_conncb* callbacks) {
    auto& connection = *static_cast<LdapConnection*>(callbacks->lc_arg);
    connection.connected_ = true;
    ber_socket_t socket = -1;
    ber_sockbuf_ctrl(socket_buffer, LBER_SB_OPT_GET_FD, &socket);
    if (socket >= 0) connection.watchdog_.watch(socket);
    const timeval infinite{-1, 0};
    ldap_set_option(handle, LDAP_OPT_NETWORK_TIMEOUT, &infinite);
    return 0;
  }

  // Called before libldap closes a connection, and once more without one before the handle goes.
  static void closing(LDAP*, Sockbuf* socket_buffer, ldap_conncb* callbacks) {
    if (socket_buffer) static_cast<LdapConnection*>(callbacks->lc_arg)->watchdog_.forget();
  }
};

const std::vector<std::string>& LdapEntry::values(std::string_view name) const {
  static const std::vector<std::string> none;
  const auto it = attributes.find(name);
  return it == attributes.end() ? none : it->second;
}

bool ldap_unreachable(int code) {
  return code == LDAP_SERVER_DOWN || code == LDAP_CONNECT_ERROR || code == LDAP_TIMEOUT ||
         code == LDAP_UNAVAILABLE || code == LDAP_BUSY;
}

LdapConnection::SigpipeBlock::SigpipeBlock() {
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, &previous_);
}

LdapConnection::SigpipeBlock::~SigpipeBlock() {
  if (!sigismember(&previous_, SIGPIPE)) {
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    const timespec now{};
    while (sigtimedwait(&pipe, nullptr, &now) == SIGPIPE) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

void LdapConnection::Unbind::operator()(ldap* handle) const {
  ldap_unbind_ext_s(handle, nullptr, nullptr);
}

LdapConnection::LdapConnection(const LdapConfig& config, std::string url)
    : config_(config),
      url_(std::move(url)),
      watchdog_(std::chrono::duration_cast<std::chrono::milliseconds>(config.timeout)),
      callbacks_(std::make_unique<ldap_conncb>(ldap_conncb{
          LdapConnectionCallbacks::connected, LdapConnectionCallbacks::closing, this})) {
  using namespace ldap_connection_detail;
  initialize_libldap();
  LDAP* handle = nullptr;
  if (const int rc = ldap_initialize(&handle, url_.c_str()); rc != LDAP_SUCCESS)
    throw unavailable(concat("LDAP ", url_, ": libldap refused the URL: ", ldap_err2string(rc)));
  handle_.reset(handle);

  const int version = LDAP_VERSION3;
  set_option(handle, LDAP_OPT_PROTOCOL_VERSION, &version, url_, "LDAP_OPT_PROTOCOL_VERSION");
  // Off: a referral (AD answers searches of a domain's root with some) would be followed with
  // a new connection libldap makes on its own, outside these TLS settings, binding anonymously.
  set_option(handle, LDAP_OPT_REFERRALS, LDAP_OPT_OFF, url_, "LDAP_OPT_REFERRALS");
  const timeval timeout{static_cast<time_t>(config_.timeout.count()), 0};
  // The TCP connect (the TLS handshake is the watchdog's: see LdapConnectionCallbacks), then each
  // synchronous operation's wait for its answer.
  set_option(handle, LDAP_OPT_NETWORK_TIMEOUT, &timeout, url_, "LDAP_OPT_NETWORK_TIMEOUT");
  set_option(handle, LDAP_OPT_TIMEOUT, &timeout, url_, "LDAP_OPT_TIMEOUT");
  // libldap keeps the pointer: callbacks_ lives as long as the handle.
  set_option(handle, LDAP_OPT_CONNECT_CB, callbacks_.get(), url_, "LDAP_OPT_CONNECT_CB");

  // TLS settings on this handle, then a TLS context of its own made from them (NEWCTX): without
  // it the handle would use the process-wide context, built from /etc/ldap/ldap.conf and the
  // first caller's settings.
  if (!config_.ca_file.empty())
    set_option(handle, LDAP_OPT_X_TLS_CACERTFILE, config_.ca_file.c_str(), url_,
               "LDAP_OPT_X_TLS_CACERTFILE");
  const int require = LDAP_OPT_X_TLS_HARD;  // a certificate that fails checks ends the handshake
  set_option(handle, LDAP_OPT_X_TLS_REQUIRE_CERT, &require, url_, "LDAP_OPT_X_TLS_REQUIRE_CERT");
  const int minimum = LDAP_OPT_X_TLS_PROTOCOL_TLS1_2;
  set_option(handle, LDAP_OPT_X_TLS_PROTOCOL_MIN, &minimum, url_, "LDAP_OPT_X_TLS_PROTOCOL_MIN");
  const int client = 0;
  set_option(handle, LDAP_OPT_X_TLS_NEWCTX, &client, url_, "LDAP_OPT_X_TLS_NEWCTX");
}

LdapConnection::~LdapConnection() = default;

int LdapConnection::open() {
  if (!is_plain_ldap_url(url_) || !config_.start_tls) return LDAP_SUCCESS;  // connects at the bind
  const ArmedWatchdog armed(watchdog_);
  const int rc = ldap_start_tls_s(handle_.get(), nullptr, nullptr);
  answered_ = answered_ || rc == LDAP_SUCCESS;
  return rc;
}

int LdapConnection::bind(std::string_view dn, std::string_view password) {
  berval credentials{static_cast<ber_len_t>(password.size()), const_cast<char*>(password.data())};
  const std::string bind_dn(dn);
  const ArmedWatchdog armed(watchdog_);
  const int rc = ldap_sasl_bind_s(handle_.get(), bind_dn.c_str(), LDAP_SASL_SIMPLE, &credentials,
                                  nullptr, nullptr, nullptr);
  answered_ = answered_ || rc >= 0;  // libldap's own failures are negative
  return rc;
}

LdapSearchResult LdapConnection::search(const std::string& base, const std::string& filter,
                                        const std::vector<std::string>& attributes, int size_limit,
                                        std::string_view what) {
  using namespace ldap_connection_detail;
  // "1.1" asks for no attributes at all (RFC 4511 §4.5.1.8).
  std::vector<char*> names;
  names.reserve(attributes.size() + 2);
  static char no_attributes[] = "1.1";
  for (const auto& a : attributes) names.push_back(const_cast<char*>(a.c_str()));
  if (names.empty()) names.push_back(no_attributes);
  names.push_back(nullptr);

  timeval timeout{static_cast<time_t>(config_.timeout.count()), 0};
  LDAPMessage* raw = nullptr;
  const ArmedWatchdog armed(watchdog_);
  const int rc = ldap_search_ext_s(handle_.get(), base.c_str(), LDAP_SCOPE_SUBTREE, filter.c_str(),
                                   names.data(), 0, nullptr, nullptr, &timeout, size_limit, &raw);
  const Message result(raw);  // freed whatever the outcome
  answered_ = answered_ || rc >= 0;
  if (rc != LDAP_SUCCESS && rc != LDAP_SIZELIMIT_EXCEEDED)
    throw unavailable(concat(what, " under ", base, " failed: ", explain(rc)));

  LdapSearchResult out;
  out.truncated = rc == LDAP_SIZELIMIT_EXCEEDED;
  for (LDAPMessage* entry = ldap_first_entry(handle_.get(), result.get()); entry;
       entry = ldap_next_entry(handle_.get(), entry)) {
    LdapEntry& e = out.entries.emplace_back();
    if (const std::unique_ptr<char, FreeMemory> dn(ldap_get_dn(handle_.get(), entry)); dn)
      e.dn = dn.get();
    for (const auto& a : attributes)
      if (auto values = values_of(handle_.get(), entry, a); !values.empty())
        e.attributes.emplace(a, std::move(values));
  }
  return out;
}

bool LdapConnection::handshake_failed(int code) const {
  const bool tls = !is_plain_ldap_url(url_) || config_.start_tls;
  return tls && connected_ && !answered_ &&
         (code == LDAP_SERVER_DOWN || code == LDAP_CONNECT_ERROR);
}

std::string LdapConnection::explain(int code) const {
  using namespace ldap_connection_detail;
  std::string text = concat(url_, ": ");
  if (watchdog_.fired())
    text += concat("no answer within ", std::to_string(config_.timeout.count()), " s: ");
  else if (handshake_failed(code))
    // libldap with GnuTLS says no more than "(unknown error code)" about a certificate it refused.
    text +=
        "the TLS handshake failed (is the server's certificate issued by the configured CA, "
        "current, and for this host name or address?): ";
  text += ldap_err2string(code);
  char* diagnostic = nullptr;
  ldap_get_option(handle_.get(), LDAP_OPT_DIAGNOSTIC_MESSAGE, &diagnostic);
  const std::unique_ptr<char, FreeMemory> owned(diagnostic);
  if (diagnostic && *diagnostic && std::string_view(diagnostic) != "(unknown error code)")
    text += concat(" (", diagnostic, ")");
  return text;
}

}  // namespace ironhold::web::auth
