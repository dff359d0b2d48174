#include "inventory/util/process.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "inventory/error.hpp"

extern char** environ;

namespace ironhold::util {
namespace {

std::optional<Identity> identity_from(const passwd& pw) {
  Identity id;
  id.name = pw.pw_name;
  id.uid = pw.pw_uid;
  id.gid = pw.pw_gid;
  int count = 32;
  for (;;) {
    id.groups.resize(static_cast<size_t>(count));
    int n = count;
    if (getgrouplist(pw.pw_name, pw.pw_gid, id.groups.data(), &n) >= 0) {
      id.groups.resize(static_cast<size_t>(n));
      break;
    }
    count = n > count ? n : count * 2;
  }
  return id;
}

template <class Key, class Lookup>
std::optional<Identity> lookup(Key key, Lookup fn) {
  passwd pw{};
  passwd* found = nullptr;
  std::vector<char> buffer(16384);
  while (fn(key, &pw, buffer.data(), buffer.size(), &found) == ERANGE)
    buffer.resize(buffer.size() * 2);
  if (!found) return std::nullopt;
  return identity_from(pw);
}

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

struct Pipe {
  Fd read, write;
};

Pipe make_pipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw Error(ErrorKind::internal, std::string("cannot create a pipe: ") + std::strerror(errno));
  return Pipe{Fd(fds[0]), Fd(fds[1])};
}

// Only async-signal-safe calls from here on: the parent may have other threads holding locks.
[[noreturn]] void child_fail(int report_fd, int error) {
  [[maybe_unused]] auto n = ::write(report_fd, &error, sizeof error);
  _exit(127);
}

void drop_to(const Identity& who, int report_fd) {
  if (setgroups(who.groups.size(), who.groups.data()) != 0) child_fail(report_fd, errno);
  if (setgid(who.gid) != 0) child_fail(report_fd, errno);
  if (setuid(who.uid) != 0) child_fail(report_fd, errno);
}

void reset_signals() {
  // A server usually ignores SIGPIPE and blocks signals for its own handling; a child must start
  // from the defaults or it inherits that.
  struct sigaction def {};
  def.sa_handler = SIG_DFL;
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM})
    sigaction(sig, &def, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::optional<Identity> lookup_user(const std::string& name) {
  return lookup(name.c_str(), getpwnam_r);
}
std::optional<Identity> lookup_user(uid_t uid) {
  return lookup(uid, getpwuid_r);
}

std::string ProcessResult::status_text() const {
  if (timed_out) return "timed out";
  if (term_signal) return "killed by signal " + std::to_string(term_signal);
  return "exited with status " + std::to_string(exit_code);
}

std::vector<std::string> environment_without(const std::vector<std::string>& prefixes) {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    bool drop = false;
    for (const auto& p : prefixes) drop = drop || entry.starts_with(p);
    if (!drop) out.emplace_back(entry);
  }
  return out;
}

ProcessResult run_process(const std::filesystem::path& program,
                          const std::vector<std::string>& args, const ProcessOptions& options) {
  // Everything the child needs is built before fork.
  std::vector<std::string> argv_strings{program.string()};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv = c_strings(argv_strings);
  std::vector<std::string> env_strings =
      options.environment ? *options.environment : environment_without({});
  std::vector<char*> envp = c_strings(env_strings);
  std::string cwd = options.cwd.string();

  Fd devnull(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  Pipe out = make_pipe(), err = make_pipe(), report = make_pipe();

  pid_t pid = fork();
  if (pid < 0)
    throw Error(ErrorKind::internal,
                "cannot fork to run " + program.string() + ": " + std::strerror(errno));
  if (pid == 0) {
    reset_signals();
    if (dup2(devnull.get(), 0) < 0 || dup2(out.write.get(), 1) < 0 || dup2(err.write.get(), 2) < 0)
      child_fail(report.write.get(), errno);
    if (options.run_as) drop_to(*options.run_as, report.write.get());
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) child_fail(report.write.get(), errno);
    // Descriptors of the parent that lack O_CLOEXEC (sockets, lock files) must not leak into a
    // daemon such as the postmaster; only the report pipe stays, and it closes on exec.
    const unsigned keep = static_cast<unsigned>(report.write.get());
    if (keep > 3) close_range(3, keep - 1, 0);
    close_range(keep + 1, ~0U, 0);
    execve(argv[0], argv.data(), envp.data());
    child_fail(report.write.get(), errno);
  }
  out.write.reset();
  err.write.reset();
  report.write.reset();

  int exec_errno = 0;
  ssize_t got;
  do got = ::read(report.read.get(), &exec_errno, sizeof exec_errno);
  while (got < 0 && errno == EINTR);
  if (got == static_cast<ssize_t>(sizeof exec_errno)) {
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    throw Error(ErrorKind::unavailable,
                "cannot run " + program.string() +
                    (options.run_as ? " as user " + options.run_as->name : "") + ": " +
                    std::strerror(exec_errno));
  }

  ProcessResult result;
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  pollfd fds[2] = {{out.read.get(), POLLIN, 0}, {err.read.get(), POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  while (open_fds > 0) {
    int wait_ms = -1;
    if (options.timeout.count() > 0 && !result.timed_out) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      wait_ms = left.count() > 0 ? static_cast<int>(left.count()) : 0;
    }
    int ready = poll(fds, 2, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      // Kill and keep draining: the pipes close once the child is gone.
      result.timed_out = true;
      ::kill(pid, SIGKILL);
      continue;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buffer[4096];
      ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  return result;
}

bool can_access_as(const Identity& who, const std::filesystem::path& path, int mode) {
  std::string p = path.string();
  pid_t pid = fork();
  if (pid < 0)
    throw Error(ErrorKind::internal, std::string("cannot fork: ") + std::strerror(errno));
  if (pid == 0) {
    if (setgroups(who.groups.size(), who.groups.data()) != 0 || setgid(who.gid) != 0 ||
        setuid(who.uid) != 0)
      _exit(2);
    _exit(access(p.c_str(), mode) == 0 ? 0 : 1);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace ironhold::util
