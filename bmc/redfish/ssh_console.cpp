#include "bmc/redfish/ssh_console.hpp"

#include <libssh/libssh.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/execution/outstanding_work.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <functional>
#include <mutex>
#include <thread>

#include "bmc/redfish/ssh_keys.hpp"

namespace ironhold::bmc::redfish {

namespace asio = boost::asio;

namespace {

// Keys not yet sent that write() still takes; more is refused (the BMC is not keeping up).
constexpr std::size_t kOutboxLimit = 64 * 1024;
// An idle console sends an SSH_MSG_IGNORE this often, so a dead BMC or a NAT that forgot the
// connection shows as an error instead of a console that silently never speaks again.
constexpr int kKeepaliveMs = 30'000;
// RFC 4335's break length: Linux takes any break as the start of a Magic SysRq.
constexpr std::uint32_t kBreakMs = 500;

struct SessionFree {
  void operator()(ssh_session s) const {
    if (ssh_is_connected(s)) ssh_disconnect(s);
    ssh_free(s);
  }
};
using Session = std::unique_ptr<ssh_session_struct, SessionFree>;
struct ChannelFree {
  void operator()(ssh_channel c) const {
    if (ssh_channel_is_open(c)) ssh_channel_close(c);
    ssh_channel_free(c);
  }
};
using Channel = std::unique_ptr<ssh_channel_struct, ChannelFree>;

DriverError failure(DriverErrorCode code, const SshConsoleParams& p, const std::string& what) {
  return {code, "SSH console at " + p.host + ":" + std::to_string(p.port) + ": " + what};
}

std::string libssh_error(ssh_session session) {
  const char* text = ssh_get_error(session);
  return text && *text ? text : "no detail";
}

// Everything the console's thread and its callers share.
struct State {
  SshConsoleParams params;
  ConsoleEvents events;
  int wake_fd = -1;
  std::mutex mutex;  // what follows
  std::string outbox;
  bool break_wanted = false;
  bool closing = false;
  bool finished = false;
  std::function<void()> on_finished;  // resumes close()'s wait

  ~State() {
    if (wake_fd >= 0) ::close(wake_fd);
  }
  void wake() {
    const std::uint64_t one = 1;
    if (::write(wake_fd, &one, sizeof one) < 0) {
      // The eventfd's counter is full only if nobody reads it: the thread is gone.
    }
  }
};

class SshNodeConsole final : public NodeConsole {
 public:
  explicit SshNodeConsole(std::shared_ptr<State> state) : state_(std::move(state)) {}
  ~SshNodeConsole() override {
    std::lock_guard lock(state_->mutex);
    if (!state_->finished && !state_->closing) {
      state_->closing = true;
      state_->wake();
    }
  }

  bool write(std::string_view bytes) override {
    std::lock_guard lock(state_->mutex);
    if (state_->finished || state_->closing) return false;
    if (state_->outbox.size() + bytes.size() > kOutboxLimit) return false;
    state_->outbox.append(bytes);
    state_->wake();
    return true;
  }

  void send_break() override {
    std::lock_guard lock(state_->mutex);
    if (state_->finished || state_->closing) return;
    state_->break_wanted = true;
    state_->wake();
  }

  asio::awaitable<void> close() override {
    auto state = state_;
    auto initiate = [state](auto handler) {
      // Resumes the waiter on its own executor, from the console's thread.
      auto executor = asio::get_associated_executor(handler);
      auto shared = std::make_shared<decltype(handler)>(std::move(handler));
      std::function<void()> resume = [executor, shared] {
        asio::post(executor, [shared] { std::move (*shared)(); });
      };
      std::unique_lock lock(state->mutex);
      if (state->finished) {
        lock.unlock();
        resume();
        return;
      }
      state->closing = true;
      state->on_finished = std::move(resume);
      state->wake();
    };
    co_await asio::async_initiate<const asio::use_awaitable_t<>, void()>(initiate,
                                                                         asio::use_awaitable);
  }

  bool is_open() const override {
    std::lock_guard lock(state_->mutex);
    return !state_->finished && !state_->closing;
  }

 private:
  std::shared_ptr<State> state_;
};

// Password first; a BMC that only does keyboard-interactive (PAM) gets the password as the
// answer to its hidden prompts.
bool log_in(ssh_session session, const SshConsoleParams& p) {
  const char* user = p.username.c_str();
  if (ssh_userauth_none(session, user) == SSH_AUTH_SUCCESS) return true;
  const int methods = ssh_userauth_list(session, user);
  if ((methods & SSH_AUTH_METHOD_PASSWORD) &&
      ssh_userauth_password(session, user, p.password.c_str()) == SSH_AUTH_SUCCESS)
    return true;
  if (!(methods & SSH_AUTH_METHOD_INTERACTIVE)) return false;
  int rc = ssh_userauth_kbdint(session, user, nullptr);
  for (int round = 0; rc == SSH_AUTH_INFO && round < 4; ++round) {
    const int prompts = ssh_userauth_kbdint_getnprompts(session);
    for (int i = 0; i < prompts; ++i) {
      char echo = 0;
      ssh_userauth_kbdint_getprompt(session, static_cast<unsigned>(i), &echo);
      // Echoed prompts ask for something else than a secret: they get the user name.
      const char* answer = echo ? user : p.password.c_str();
      ssh_userauth_kbdint_setanswer(session, static_cast<unsigned>(i), answer);
    }
    rc = ssh_userauth_kbdint(session, user, nullptr);
  }
  return rc == SSH_AUTH_SUCCESS;
}

struct Connected {
  Session session;
  Channel channel;
};

// Connects through to the console; `opened` gets the error or the host key.
std::optional<Connected> connect(const SshConsoleParams& p, SshConsoleOpened& opened) {
  ensure_libssh_initialized();
  Session session(ssh_new());
  if (!session) {
    opened.error = failure(DriverErrorCode::rejected, p, "libssh could not make a session");
    return std::nullopt;
  }
  const int port = static_cast<int>(p.port);
  const long timeout = static_cast<long>(p.timeout.count());
  const int no = 0;
  ssh_options_set(session.get(), SSH_OPTIONS_HOST, p.host.c_str());
  ssh_options_set(session.get(), SSH_OPTIONS_PORT, &port);
  ssh_options_set(session.get(), SSH_OPTIONS_USER, p.username.c_str());
  ssh_options_set(session.get(), SSH_OPTIONS_TIMEOUT, &timeout);
  // Nothing from the service account's ~/.ssh: the pin below is the only trust there is.
  ssh_options_set(session.get(), SSH_OPTIONS_PROCESS_CONFIG, &no);
  if (ssh_connect(session.get()) != SSH_OK) {
    const std::string why = libssh_error(session.get());
    const bool timed_out =
        why.find("imeout") != std::string::npos || why.find("timed out") != std::string::npos;
    opened.error = failure(timed_out ? DriverErrorCode::timeout : DriverErrorCode::unreachable, p,
                           "cannot connect: " + why);
    return std::nullopt;
  }
  ssh_key key = nullptr;
  if (ssh_get_server_publickey(session.get(), &key) != SSH_OK) {
    opened.error = failure(DriverErrorCode::bad_response, p, "the BMC presented no host key");
    return std::nullopt;
  }
  opened.host_key = ssh_key_fingerprint(key);
  ssh_key_free(key);
  if (p.pinned_host_key && *p.pinned_host_key != *opened.host_key) {
    opened.error =
        failure(DriverErrorCode::tls_pin_mismatch, p,
                "the host key is " + *opened.host_key + ", not the pinned " + *p.pinned_host_key +
                    " (nothing was sent; if the BMC was replaced or re-keyed, repin the node)");
    return std::nullopt;
  }
  if (!log_in(session.get(), p)) {
    opened.error = failure(DriverErrorCode::auth_failed, p,
                           "the BMC refused the login of user \"" + p.username + "\"");
    return std::nullopt;
  }
  Channel channel(ssh_channel_new(session.get()));
  if (!channel || ssh_channel_open_session(channel.get()) != SSH_OK ||
      ssh_channel_request_pty_size(channel.get(), "vt100", 80, 24) != SSH_OK ||
      ssh_channel_request_shell(channel.get()) != SSH_OK) {
    opened.error = failure(DriverErrorCode::rejected, p,
                           "the BMC refused the console's shell: " + libssh_error(session.get()));
    return std::nullopt;
  }
  if (!p.entry_command.empty()) {
    const std::string line = p.entry_command + "\r";
    if (ssh_channel_write(channel.get(), line.data(), static_cast<uint32_t>(line.size())) ==
        SSH_ERROR) {
      opened.error =
          failure(DriverErrorCode::rejected, p,
                  "cannot send the console's entry command: " + libssh_error(session.get()));
      return std::nullopt;
    }
  }
  return Connected{std::move(session), std::move(channel)};
}

// Moves bytes until the BMC ends the console (the reason) or close() (nothing).
std::optional<DriverError> relay(State& state, ssh_session session, ssh_channel channel) {
  const SshConsoleParams& p = state.params;
  char buffer[4096];
  const socket_t fd = ssh_get_fd(session);
  for (;;) {
    // What libssh has and what the socket brings, both streams of the channel.
    for (int is_stderr = 0; is_stderr < 2; ++is_stderr) {
      int n = 0;
      while ((n = ssh_channel_read_nonblocking(channel, buffer, sizeof buffer, is_stderr)) > 0)
        if (state.events.output)
          state.events.output(std::string_view(buffer, static_cast<std::size_t>(n)));
      if (n == SSH_ERROR)
        return failure(DriverErrorCode::unreachable, p,
                       "the connection was lost: " + libssh_error(session));
    }
    if (ssh_channel_is_eof(channel) || !ssh_channel_is_open(channel))
      return failure(DriverErrorCode::rejected, p, "the BMC ended the console");
    std::string keys;
    bool send_break = false;
    {
      std::lock_guard lock(state.mutex);
      if (state.closing) return std::nullopt;
      keys.swap(state.outbox);
      send_break = std::exchange(state.break_wanted, false);
    }
    if (!keys.empty() &&
        ssh_channel_write(channel, keys.data(), static_cast<uint32_t>(keys.size())) == SSH_ERROR)
      return failure(DriverErrorCode::unreachable, p, "cannot send keys: " + libssh_error(session));
    if (send_break) ssh_channel_request_send_break(channel, kBreakMs);
    // A write may have read packets into libssh's buffers, which no poll of the socket sees.
    if (ssh_channel_poll(channel, 0) != 0 || ssh_channel_poll(channel, 1) != 0) continue;
    pollfd fds[2] = {{fd, POLLIN, 0}, {state.wake_fd, POLLIN, 0}};
    const int ready = ::poll(fds, 2, kKeepaliveMs);
    if (fds[1].revents & POLLIN) {
      std::uint64_t count = 0;
      if (::read(state.wake_fd, &count, sizeof count) < 0) {
        // Nothing to drain: another wake took it.
      }
    }
    if (ready == 0 && ssh_send_ignore(session, "") != SSH_OK)
      return failure(DriverErrorCode::unreachable, p,
                     "the connection was lost: " + libssh_error(session));
  }
}

// The console's thread, from connect to the end.
template <class Handler>
void run_console(std::shared_ptr<State> state, Handler handler) {
  SshConsoleOpened opened;
  auto connected = connect(state->params, opened);
  if (connected) opened.console = std::make_shared<SshNodeConsole>(state);
  {
    const auto executor = asio::prefer(asio::get_associated_executor(handler),
                                       asio::execution::outstanding_work.tracked);
    asio::post(executor, [handler = std::move(handler), opened]() mutable {
      std::move(handler)(std::move(opened));
    });
  }
  std::optional<DriverError> ended;
  if (connected) {
    ended = relay(*state, connected->session.get(), connected->channel.get());
    connected.reset();  // closes the channel and disconnects
  }
  std::function<void()> waiting;
  bool closing = false;
  {
    std::lock_guard lock(state->mutex);
    state->finished = true;
    closing = state->closing;
    waiting = std::move(state->on_finished);
  }
  // `ended` is for the BMC's side only: never after close().
  if (ended && !closing && state->events.ended) state->events.ended(*ended);
  if (waiting) waiting();
}

}  // namespace

asio::awaitable<SshConsoleOpened> open_ssh_console(SshConsoleParams params, ConsoleEvents events) {
  auto state = std::make_shared<State>();
  state->params = std::move(params);
  state->events = std::move(events);
  state->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (state->wake_fd < 0) {
    SshConsoleOpened failed;
    failed.error = failure(DriverErrorCode::rejected, state->params, "no eventfd for the console");
    co_return failed;
  }
  auto initiate = [state](auto handler) {
    std::thread([state, handler = std::move(handler)]() mutable {
      run_console(state, std::move(handler));
    }).detach();
  };
  co_return co_await asio::async_initiate<const asio::use_awaitable_t<>, void(SshConsoleOpened)>(
      initiate, asio::use_awaitable);
}

}  // namespace ironhold::bmc::redfish
