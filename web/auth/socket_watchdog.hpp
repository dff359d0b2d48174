#pragma once
// A deadline for blocking socket operations that a library runs on a socket of its own: when an
// operation outlasts its limit, the watchdog shuts the socket down (shutdown(2)), and the blocked
// read or write returns at once with end-of-file or an error. LdapConnection needs it because
// libldap 2.5 (Debian 12's, built with GnuTLS) never gives up on a TLS handshake with a server
// that accepted the TCP connection and then says nothing (see ldap_connection.cpp).
//
// The watchdog works on its own duplicate of the socket (dup(2)), so that the library closing
// the original never leaves it shutting down a descriptor number that something else reused.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

namespace ironhold::web::auth {

class SocketWatchdog {
 public:
  explicit SocketWatchdog(std::chrono::milliseconds limit);
  ~SocketWatchdog();  // stops the thread, closes the duplicate
  SocketWatchdog(const SocketWatchdog&) = delete;
  SocketWatchdog& operator=(const SocketWatchdog&) = delete;

  // The socket to shut down (duplicated here; the caller keeps its own). Replaces any earlier
  // one. When the armed deadline has already passed, shuts it down at once.
  void watch(int socket);
  // Forgets the socket (the library is about to close it).
  void forget();

  // Bounds what the calling thread does until disarm(): past `limit` from now, the socket is
  // shut down.
  void arm();
  void disarm();

  // Whether a deadline passed since the watchdog was made: an operation's failure was ours.
  bool fired() const;

  std::chrono::milliseconds limit() const noexcept { return limit_; }

 private:
  void run();
  void shut_down_locked();

  const std::chrono::milliseconds limit_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  int socket_ = -1;  // our duplicate
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  bool expired_ = false;  // the deadline of the current arm() passed
  bool fired_ = false;    // a deadline ever passed
  bool stopping_ = false;
  std::thread thread_;  // last: started once the members it uses exist
};

// Arms `watchdog` for the lifetime of the object.
class ArmedWatchdog {
 public:
  explicit ArmedWatchdog(SocketWatchdog& watchdog) : watchdog_(watchdog) { watchdog_.arm(); }
  ~ArmedWatchdog() { watchdog_.disarm(); }
  ArmedWatchdog(const ArmedWatchdog&) = delete;
  ArmedWatchdog& operator=(const ArmedWatchdog&) = delete;

 private:
  SocketWatchdog& watchdog_;
};

}  // namespace ironhold::web::auth
