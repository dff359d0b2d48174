#pragma once
// Running helper programs (initdb, pg_ctl, useradd) by absolute path, never through a shell or
// PATH, optionally as another user: fork, drop to that user's groups/gid/uid, execve. Output is
// captured so a failure can be reported with what the program said.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ironhold::util {

// A Unix user to run as: looked up once, in the parent, because a child of a multithreaded
// process may only make async-signal-safe calls between fork and exec.
struct Identity {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // supplementary groups, primary included
};

// nullopt when no such user exists.
std::optional<Identity> lookup_user(const std::string& name);
std::optional<Identity> lookup_user(uid_t uid);

struct ProcessOptions {
  std::optional<Identity> run_as;  // switch to this user in the child (needs root)
  std::filesystem::path cwd;       // empty: inherit ours
  // "KEY=value" entries replacing the whole environment; nullopt inherits ours.
  std::optional<std::vector<std::string>> environment;
  std::chrono::milliseconds timeout{0};  // 0: wait as long as it takes; else SIGKILL on expiry
};

struct ProcessResult {
  int exit_code = -1;   // -1 when the process did not exit normally
  int term_signal = 0;  // the signal that killed it, or 0
  bool timed_out = false;
  std::string out;
  std::string err;

  bool ok() const noexcept { return exit_code == 0; }
  // "exited with status 1", "killed by signal 9", "timed out"
  std::string status_text() const;
};

// Runs `program` (an absolute path) with `args` (not including argv[0]) and waits for it. Stdin is
// /dev/null; stdout and stderr are captured. Throws ironhold::Error only when the process cannot
// be started at all; a non-zero exit is reported in the result.
ProcessResult run_process(const std::filesystem::path& program,
                          const std::vector<std::string>& args, const ProcessOptions& options = {});

// Whether `who` may access `path` with `mode` (R_OK/W_OK/X_OK), which includes search permission
// on every ancestor directory; checked by the kernel in a child running as that user.
bool can_access_as(const Identity& who, const std::filesystem::path& path, int mode);

// The current environment without the variables whose names start with one of `prefixes`.
std::vector<std::string> environment_without(const std::vector<std::string>& prefixes);

}  // namespace ironhold::util
