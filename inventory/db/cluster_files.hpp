#pragma once
// Internal to embedded_cluster.cpp: where an embedded cluster's files live and what is on disk
// and in /proc about it (owner file, pid files, server processes). No SQL here.
#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/util/process.hpp"

namespace ironhold::db::cluster {

namespace fs = std::filesystem;

inline constexpr int port = 5432;

// Files ironhold keeps in the data directory itself (owned by the invoking user).
inline fs::path lock_file(const fs::path& data_dir) {
  return data_dir / "postgres.lock";
}
inline fs::path owner_file(const fs::path& data_dir) {
  return data_dir / "postgres.owner";
}
inline fs::path pointer_file(const fs::path& data_dir) {
  return data_dir / "postgres.location";
}

struct Layout {
  fs::path data_dir;    // absolute, normalized
  fs::path base_dir;    // data_dir/postgres, or a relocated directory
  fs::path pgdata;      // base_dir/data
  fs::path socket_dir;  // base_dir/socket, or /tmp/ironhold-<hash> when that path is too long
  fs::path log_file;    // base_dir/postgres.log
  bool relocated = false;
};

// Creates the data directory (0700) when missing and returns its absolute path.
fs::path prepare_data_dir(const fs::path& data_dir);
// The base directory recorded for this data directory (pointer file, or an existing natural
// one), if any.
std::optional<fs::path> existing_base(const fs::path& data_dir);
// The user the cluster runs as: nullopt when we are not root (it runs as us); as root, the owner
// of an existing PGDATA, else Debian's `postgres`, else `ironhold-db` (created with useradd).
std::optional<util::Identity> cluster_user(const std::optional<fs::path>& base);
// Decides and records where the cluster's files go when none exist yet, then completes the
// layout. `run_as` is the cluster user (nullopt: ourselves).
Layout resolve_layout(const fs::path& data_dir, const std::optional<util::Identity>& run_as);
// Creates the base and socket directories, owned by the cluster user, mode 0700.
void prepare_directories(const Layout& layout, const std::optional<util::Identity>& run_as);
// Writes PGDATA/ironhold.conf (socket only, no TCP) and makes postgresql.conf include it.
void write_settings(const Layout& layout, const std::optional<util::Identity>& run_as,
                    bool durable);

// Who is responsible for stopping a running cluster.
struct Owner {
  enum class Kind { none, detached, process } kind = Kind::none;
  pid_t pid = 0;
  unsigned long long start_time = 0;  // /proc/<pid>/stat field 22, to tell a reused pid apart
};
Owner read_owner(const fs::path& data_dir);
void write_owner_self(const fs::path& data_dir);
void write_owner_detached(const fs::path& data_dir);
void remove_owner_if_self(const fs::path& data_dir);
bool owner_alive(const Owner& owner);

// PostgreSQL processes whose working directory is `pgdata` (the postmaster and its children).
std::vector<pid_t> server_processes(const fs::path& pgdata);
// Removes postmaster.pid and the socket lock when no server process of this cluster is alive:
// after a crash the recorded pid may belong to an unrelated process, which blocks a new start.
void clear_stale_pid_files(const Layout& layout);
// The server appends to one log file forever; past 16 MiB it becomes postgres.log.1.
void rotate_log(const Layout& layout);
// The last `lines` lines of the server log, for error messages.
std::string log_tail(const fs::path& log_file, int lines = 25);

// An exclusive flock on the data directory's lock file, held while starting or stopping.
class DirLock {
 public:
  explicit DirLock(const fs::path& data_dir);
  ~DirLock();
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace ironhold::db::cluster
