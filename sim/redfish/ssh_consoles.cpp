#include "sim/redfish/ssh_consoles.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <libssh/libssh.h>
#include <libssh/server.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <list>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "bmc/redfish/ssh_keys.hpp"
#include "inventory/error.hpp"
#include "sim/redfish/bmc_state.hpp"

namespace ironhold::sim::redfish {

namespace fs = std::filesystem;
using bmc::redfish::ssh_key_fingerprint;

namespace {

constexpr int kLoginAttempts = 3;
// How long a session waits for the client at each step before giving up on it, and how often a
// session in its loop looks at stop() and takeovers.
constexpr int kStepTimeoutSeconds = 10;
constexpr int kTickMs = 50;

struct SessionFree {
  void operator()(ssh_session s) const {
    ssh_disconnect(s);
    ssh_free(s);
  }
};
using Session = std::unique_ptr<ssh_session_struct, SessionFree>;
struct MessageFree {
  void operator()(ssh_message m) const { ssh_message_free(m); }
};
using Message = std::unique_ptr<ssh_message_struct, MessageFree>;
struct KeyFree {
  void operator()(ssh_key k) const { ssh_key_free(k); }
};
using Key = std::unique_ptr<ssh_key_struct, KeyFree>;

// A new Ed25519 key written to `file` (private: 0600).
void make_key_file(const fs::path& file) {
  ssh_key raw = nullptr;
  if (ssh_pki_generate(SSH_KEYTYPE_ED25519, 0, &raw) != SSH_OK)
    throw Error(ErrorKind::internal, "libssh could not make an Ed25519 host key");
  Key key(raw);
  fs::create_directories(file.parent_path());
  const fs::path temporary = file.string() + ".tmp";
  fs::remove(temporary);
  if (ssh_pki_export_privkey_file(key.get(), nullptr, nullptr, nullptr, temporary.c_str()) !=
      SSH_OK)
    throw invalid("cannot write the SSH host key " + temporary.string(), "state-dir");
  fs::permissions(temporary, fs::perms::owner_read | fs::perms::owner_write);
  fs::rename(temporary, file);
}

std::string fingerprint_of(const fs::path& file) {
  ssh_key raw = nullptr;
  if (ssh_pki_import_privkey_file(file.c_str(), nullptr, nullptr, nullptr, &raw) != SSH_OK)
    throw invalid("cannot read the SSH host key " + file.string(), "state-dir");
  Key key(raw);
  ssh_key pub_raw = nullptr;
  if (ssh_pki_export_privkey_to_pubkey(key.get(), &pub_raw) != SSH_OK)
    throw Error(ErrorKind::internal, "libssh could not take the public half of " + file.string());
  Key pub(pub_raw);
  return ssh_key_fingerprint(pub.get());
}

int listen_on(const boost::asio::ip::address& address) {
  sockaddr_storage storage{};
  socklen_t length = 0;
  if (address.is_v4()) {
    auto* in = reinterpret_cast<sockaddr_in*>(&storage);
    in->sin_family = AF_INET;
    const auto bytes = address.to_v4().to_bytes();
    std::memcpy(&in->sin_addr, bytes.data(), bytes.size());
    length = sizeof(sockaddr_in);
  } else {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&storage);
    in6->sin6_family = AF_INET6;
    const auto bytes = address.to_v6().to_bytes();
    std::memcpy(&in6->sin6_addr, bytes.data(), bytes.size());
    length = sizeof(sockaddr_in6);
  }
  const int fd = ::socket(storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0)
    throw invalid("cannot open a socket for an SSH console: " + std::string(strerror(errno)));
  const int yes = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&storage), length) != 0 || ::listen(fd, 16) != 0) {
    const std::string why = strerror(errno);
    ::close(fd);
    throw invalid("cannot listen for an SSH console on " + address.to_string() + ": " + why,
                  "listen");
  }
  return fd;
}

unsigned bound_port(int fd) {
  sockaddr_storage storage{};
  socklen_t length = sizeof storage;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&storage), &length);
  if (storage.ss_family == AF_INET6)
    return ntohs(reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&storage)->sin_port);
}

}  // namespace

struct SshConsoles::Impl {
  struct Console {
    BmcState* bmc = nullptr;
    int listen_fd = -1;
    unsigned port = 0;
    fs::path key_file;
    mutable std::mutex mutex;  // key_file's contents and fingerprint
    std::string fingerprint;
    std::atomic<std::uint64_t> holder{0};  // the session that has the console now
  };

  SshConsoleOptions options;
  fs::path scratch;  // keys of this run only
  std::vector<std::unique_ptr<Console>> consoles;
  std::atomic<bool> stopping{false};
  int wake_fd = -1;
  std::thread acceptor;
  struct Running {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done = std::make_shared<std::atomic<bool>>(false);
  };
  std::mutex sessions_mutex;
  std::list<Running> sessions;
  std::atomic<std::uint64_t> next_session{1};

  void accept_loop();
  void serve(Console& console, int fd);
  // The session's life after the key exchange; false when it ended before the console.
  bool log_in(Console& console, ssh_session session, ssh_channel& channel);
  // The BMC's CLI until the entry command (none: at once); false when the session ended first.
  bool enter_console(ssh_channel channel);
  void relay(Console& console, ssh_session session, ssh_channel channel);
};

SshConsoles::SshConsoles(SshConsoleOptions options) : impl_(std::make_unique<Impl>()) {
  bmc::redfish::ensure_libssh_initialized();
  impl_->options = std::move(options);
  impl_->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

SshConsoles::~SshConsoles() {
  stop();
  for (auto& console : impl_->consoles)
    if (console->listen_fd >= 0) ::close(console->listen_fd);
  if (impl_->wake_fd >= 0) ::close(impl_->wake_fd);
  if (!impl_->scratch.empty()) {
    std::error_code ignored;
    fs::remove_all(impl_->scratch, ignored);
  }
}

unsigned SshConsoles::add(BmcState& bmc, const boost::asio::ip::address& address,
                          const fs::path& key_file) {
  auto console = std::make_unique<Impl::Console>();
  console->bmc = &bmc;
  console->key_file = key_file;
  if (console->key_file.empty()) {
    if (impl_->scratch.empty()) {
      std::random_device random;
      impl_->scratch =
          fs::temp_directory_path() /
          ("ironhold-sim-ssh-" + std::to_string(::getpid()) + "-" + std::to_string(random()));
    }
    console->key_file =
        impl_->scratch / ("ssh_host_ed25519_key-" + std::to_string(impl_->consoles.size()));
  }
  if (!fs::exists(console->key_file)) make_key_file(console->key_file);
  console->fingerprint = fingerprint_of(console->key_file);
  console->listen_fd = listen_on(address);
  console->port = bound_port(console->listen_fd);
  bmc.advertise_ssh_console(console->port, impl_->options.entry_command);
  impl_->consoles.push_back(std::move(console));
  return impl_->consoles.back()->port;
}

void SshConsoles::start() {
  if (impl_->acceptor.joinable() || impl_->consoles.empty()) return;
  impl_->acceptor = std::thread([impl = impl_.get()] { impl->accept_loop(); });
}

void SshConsoles::stop() {
  if (impl_->stopping.exchange(true)) return;
  const std::uint64_t one = 1;
  if (::write(impl_->wake_fd, &one, sizeof one) < 0) {
    // The acceptor also wakes every tick to look at `stopping`.
  }
  if (impl_->acceptor.joinable()) impl_->acceptor.join();
  std::list<Impl::Running> sessions;
  {
    std::lock_guard lock(impl_->sessions_mutex);
    sessions.swap(impl_->sessions);
  }
  for (auto& s : sessions) s.thread.join();
}

unsigned SshConsoles::port(std::size_t i) const {
  return impl_->consoles.at(i)->port;
}

std::string SshConsoles::host_key_fingerprint(std::size_t i) const {
  auto& console = *impl_->consoles.at(i);
  std::lock_guard lock(console.mutex);
  return console.fingerprint;
}

std::string SshConsoles::change_host_key(std::size_t i) {
  auto& console = *impl_->consoles.at(i);
  std::lock_guard lock(console.mutex);
  make_key_file(console.key_file);
  console.fingerprint = fingerprint_of(console.key_file);
  return console.fingerprint;
}

void SshConsoles::Impl::accept_loop() {
  std::vector<pollfd> fds;
  for (const auto& c : consoles) fds.push_back({c->listen_fd, POLLIN, 0});
  fds.push_back({wake_fd, POLLIN, 0});
  while (!stopping) {
    if (::poll(fds.data(), fds.size(), 500) <= 0) continue;
    for (std::size_t i = 0; i + 1 < fds.size(); ++i) {
      if (!(fds[i].revents & POLLIN)) continue;
      const int fd = ::accept4(fds[i].fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      Console& console = *consoles[i];
      std::lock_guard lock(sessions_mutex);
      // Finished sessions' threads are joined as new ones come, so a long run does not pile up.
      for (auto it = sessions.begin(); it != sessions.end();) {
        if (!*it->done) {
          ++it;
          continue;
        }
        it->thread.join();
        it = sessions.erase(it);
      }
      Running& running = sessions.emplace_back();
      running.thread = std::thread([this, &console, fd, done = running.done] {
        serve(console, fd);
        *done = true;
      });
    }
  }
}

void SshConsoles::Impl::serve(Console& console, int fd) {
  ssh_bind bind = ssh_bind_new();
  {
    std::lock_guard lock(console.mutex);
    ssh_bind_options_set(bind, SSH_BIND_OPTIONS_HOSTKEY, console.key_file.c_str());
  }
  Session session(ssh_new());
  const long timeout = kStepTimeoutSeconds;
  ssh_options_set(session.get(), SSH_OPTIONS_TIMEOUT, &timeout);
  // The session owns the socket from here, failed or not: ssh_free closes it.
  const int accepted = ssh_bind_accept_fd(bind, session.get(), fd);
  ssh_bind_free(bind);
  if (accepted != SSH_OK || ssh_handle_key_exchange(session.get()) != SSH_OK) return;
  ssh_channel channel = nullptr;
  if (!log_in(console, session.get(), channel)) return;
  if (enter_console(channel)) relay(console, session.get(), channel);
  ssh_channel_send_eof(channel);
  ssh_channel_close(channel);
  ssh_channel_free(channel);
}

bool SshConsoles::Impl::log_in(Console& console, ssh_session session, ssh_channel& channel) {
  ssh_set_auth_methods(session, SSH_AUTH_METHOD_PASSWORD);
  int failures = 0;
  bool authenticated = false;
  while (!authenticated && failures < kLoginAttempts && !stopping) {
    Message message(ssh_message_get(session));
    if (!message) return false;
    if (ssh_message_type(message.get()) == SSH_REQUEST_AUTH &&
        ssh_message_subtype(message.get()) == SSH_AUTH_METHOD_PASSWORD) {
      const char* user = ssh_message_auth_user(message.get());
      // libssh 0.10 deprecates this for its callback API, which would turn this plain sequence
      // into an event loop; it still implements it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
      const char* password = ssh_message_auth_password(message.get());
#pragma GCC diagnostic pop
      if (console.bmc->console_login(user ? user : "", password ? password : "")) {
        ssh_message_auth_reply_success(message.get(), 0);
        authenticated = true;
        continue;
      }
      ++failures;
    }
    if (ssh_message_type(message.get()) == SSH_REQUEST_AUTH)
      ssh_message_auth_set_methods(message.get(), SSH_AUTH_METHOD_PASSWORD);
    ssh_message_reply_default(message.get());
  }
  if (!authenticated) return false;
  // A session channel, then its pty and shell requests (env and the rest are refused).
  bool shell = false;
  while (!shell && !stopping) {
    Message message(ssh_message_get(session));
    if (!message) break;
    const int type = ssh_message_type(message.get());
    const int subtype = ssh_message_subtype(message.get());
    if (!channel && type == SSH_REQUEST_CHANNEL_OPEN && subtype == SSH_CHANNEL_SESSION) {
      channel = ssh_message_channel_request_open_reply_accept(message.get());
      continue;
    }
    if (channel && type == SSH_REQUEST_CHANNEL &&
        (subtype == SSH_CHANNEL_REQUEST_PTY || subtype == SSH_CHANNEL_REQUEST_SHELL)) {
      ssh_message_channel_request_reply_success(message.get());
      shell = subtype == SSH_CHANNEL_REQUEST_SHELL;
      continue;
    }
    ssh_message_reply_default(message.get());
  }
  if (!shell && channel) {
    ssh_channel_close(channel);
    ssh_channel_free(channel);
    channel = nullptr;
  }
  return shell;
}

bool SshConsoles::Impl::enter_console(ssh_channel channel) {
  if (options.entry_command.empty()) return true;
  // The BMC's CLI: lines are read with echo until the entry command is one of them.
  const std::string prompt = "\r\n-> ";
  ssh_channel_write(channel, prompt.data(), prompt.size());
  std::string line;
  char buffer[256];
  while (!stopping && ssh_channel_is_open(channel) && !ssh_channel_is_eof(channel)) {
    const int n = ssh_channel_read_timeout(channel, buffer, sizeof buffer, 0, kTickMs);
    if (n == SSH_ERROR) return false;
    for (int i = 0; i < n; ++i) {
      const char c = buffer[i];
      if (c == '\r' || c == '\n') {
        if (line == options.entry_command) {
          const std::string ok = "\r\nConnected to the host's serial console. Type ~. to end.\r\n";
          ssh_channel_write(channel, ok.data(), ok.size());
          return true;
        }
        const std::string answer =
            line.empty() ? prompt : "\r\nCOMMAND NOT RECOGNIZED: " + line + prompt;
        ssh_channel_write(channel, answer.data(), answer.size());
        line.clear();
      } else if (static_cast<unsigned char>(c) >= 0x20 && line.size() < 200) {
        line += c;
        ssh_channel_write(channel, &c, 1);
      }
    }
  }
  return false;
}

void SshConsoles::Impl::relay(Console& console, ssh_session session, ssh_channel channel) {
  const std::uint64_t me = next_session++;
  console.holder = me;
  console.bmc->console_attached(true);
  char buffer[4096];
  const socket_t fd = ssh_get_fd(session);
  while (!stopping) {
    if (console.holder != me) {
      const std::string notice = "\r\n[the console was taken over by another session]\r\n";
      ssh_channel_write(channel, notice.data(), notice.size());
      break;
    }
    const std::string output = console.bmc->console_take_output();
    if (!output.empty() && ssh_channel_write(channel, output.data(),
                                             static_cast<uint32_t>(output.size())) == SSH_ERROR)
      break;
    // Everything libssh already has, then the socket (libssh's buffer would not wake a poll).
    int n = 0;
    while ((n = ssh_channel_read_nonblocking(channel, buffer, sizeof buffer, 0)) > 0)
      console.bmc->console_type(std::string_view(buffer, static_cast<std::size_t>(n)));
    if (n == SSH_ERROR || !ssh_channel_is_open(channel) || ssh_channel_is_eof(channel)) break;
    int wait = kTickMs;
    if (const auto next = console.bmc->console_next_output_at()) {
      const auto until = std::chrono::duration_cast<std::chrono::milliseconds>(
                             *next - std::chrono::steady_clock::now())
                             .count();
      wait = static_cast<int>(std::clamp<long long>(until, 0, kTickMs));
    }
    pollfd p{fd, POLLIN, 0};
    ::poll(&p, 1, wait);
  }
  console.bmc->console_attached(false);
}

}  // namespace ironhold::sim::redfish
