#include "inventory/db/cluster_files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "inventory/crypto/primitives.hpp"
#include "inventory/error.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::db::cluster {
namespace {

// Where a cluster goes when its user cannot reach the data directory (e.g. under /root).
const fs::path relocation_root = "/var/lib/ironhold/clusters";
// sun_path holds 108 bytes including the terminating NUL.
constexpr size_t max_socket_path = 107;
constexpr const char* include_line = "include_if_exists = 'ironhold.conf'";

Error fail(const std::string& message) {
  return Error(ErrorKind::unavailable, message);
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Replace, never half-write: a reader sees the old or the new content.
void write_text(const fs::path& path, const std::string& text,
                fs::perms mode = fs::perms::owner_read | fs::perms::owner_write) {
  fs::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) throw fail("cannot write " + tmp.string() + ": " + std::strerror(errno));
  }
  fs::permissions(tmp, mode);
  fs::rename(tmp, path);
}

void give_to(const fs::path& path, const std::optional<util::Identity>& run_as) {
  if (run_as && chown(path.c_str(), run_as->uid, run_as->gid) != 0)
    throw fail("cannot give " + path.string() + " to user " + run_as->name + ": " +
               std::strerror(errno));
}

void ensure_dir(const fs::path& path, fs::perms mode) {
  if (fs::exists(path)) return;
  fs::create_directories(path);
  fs::permissions(path, mode);  // explicit: a umask of 077 would hide it from the cluster user
}

// A directory only the cluster user can enter. Checked with lstat because the socket fallback
// lives in /tmp, where anyone could have planted a symlink or a directory of their own.
void ensure_private_dir(const fs::path& path, const std::optional<util::Identity>& run_as) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT)
      throw fail("cannot inspect " + path.string() + ": " + std::strerror(errno));
    if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
      throw fail("cannot create " + path.string() + ": " + std::strerror(errno));
    give_to(path, run_as);
    lstat(path.c_str(), &st);
  }
  if (!S_ISDIR(st.st_mode))
    throw fail(path.string() + " exists but is not a directory; remove it and start again");
  const uid_t want = run_as ? run_as->uid : geteuid();
  if (st.st_uid != want) {
    if (st.st_uid != 0 || geteuid() != 0)
      throw fail(path.string() + " belongs to uid " + std::to_string(st.st_uid) + ", not to uid " +
                 std::to_string(want) + " that runs the database; remove it and start again");
    give_to(path, run_as);
  }
  if (chmod(path.c_str(), 0700) != 0)
    throw fail("cannot set mode 0700 on " + path.string() + ": " + std::strerror(errno));
}

std::optional<unsigned long long> process_start_time(pid_t pid) {
  std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  // Field 22 (starttime); fields after the command name start at field 3.
  for (int i = 3; i <= 22; ++i)
    if (!(fields >> field)) return std::nullopt;
  unsigned long long value = 0;
  if (std::from_chars(field.data(), field.data() + field.size(), value).ec != std::errc())
    return std::nullopt;
  return value;
}

std::string conf_quote(const std::string& value) {
  std::string out = "'";
  for (char c : value) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// The relocated place of a data directory that records none (new, or re-created after its
// owner deleted it) may still hold the database of an earlier directory at the same path. That
// database is sealed with a master key the new directory does not have: adopting it would fail
// with a baffling "a sealed secret does not open". Keep it, out of the way, and say where.
void set_aside_orphan(const fs::path& base, const fs::path& data_dir) {
  if (!fs::exists(base)) return;
  if (const auto running = server_processes(base / "data"); !running.empty())
    throw fail("the database kept for an earlier data directory at " + data_dir.string() +
               " is still running (PostgreSQL pid " + std::to_string(running.front()) + ", in " +
               base.string() + "); stop it (kill " + std::to_string(running.front()) +
               ") before starting a new data directory at this path");
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32] = "";
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  fs::path aside = base;
  aside += std::string(".orphaned-") + stamp;
  fs::rename(base, aside);
  log::warn(
      "set aside a database left by an earlier data directory at this path (deleted since, "
      "with its master key); remove it when nothing in it is needed",
      {{"data_dir", data_dir.string()}, {"set_aside", aside.string()}});
}

}  // namespace

fs::path prepare_data_dir(const fs::path& data_dir) {
  fs::path dir = fs::absolute(data_dir).lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();
  if (fs::exists(dir)) {
    if (!fs::is_directory(dir))
      throw invalid("the data directory " + dir.string() + " is not a directory");
    return dir;
  }
  fs::create_directories(dir);
  // It will hold secrets (the master key) besides the database.
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace);
  return dir;
}

std::optional<fs::path> existing_base(const fs::path& data_dir) {
  if (fs::exists(pointer_file(data_dir))) {
    std::string text = read_text(pointer_file(data_dir));
    text = text.substr(0, text.find('\n'));
    fs::path base(text);
    if (text.empty() || !base.is_absolute())
      throw fail(pointer_file(data_dir).string() +
                 " should hold the absolute path of the database "
                 "files; fix it, or remove it to create a new empty database");
    return base;
  }
  if (fs::exists(data_dir / "postgres")) return data_dir / "postgres";
  return std::nullopt;
}

std::optional<util::Identity> cluster_user(const std::optional<fs::path>& base) {
  if (geteuid() != 0) return std::nullopt;
  struct stat st {};
  if (base && stat((*base / "data").c_str(), &st) == 0 && st.st_uid != 0) {
    if (auto owner = util::lookup_user(st.st_uid)) return owner;
    throw fail("the database files in " + (*base / "data").string() + " belong to uid " +
               std::to_string(st.st_uid) +
               ", which no longer exists; chown them to an existing "
               "unprivileged user");
  }
  if (auto pg = util::lookup_user("postgres")) return pg;
  if (auto own = util::lookup_user("ironhold-db")) return own;
  auto made = util::run_process("/usr/sbin/useradd",
                                {"--system", "--user-group", "--no-create-home", "--home-dir",
                                 "/nonexistent", "--shell", "/usr/sbin/nologin", "ironhold-db"});
  auto own = util::lookup_user("ironhold-db");
  if (!own)
    throw fail(
        "PostgreSQL refuses to run as root and there is no `postgres` user; creating the "
        "system user `ironhold-db` failed (" +
        made.status_text() + "): " + made.err);
  log::info("created system user ironhold-db to run the embedded database");
  return own;
}

Layout resolve_layout(const fs::path& data_dir, const std::optional<util::Identity>& run_as) {
  Layout layout;
  layout.data_dir = data_dir;
  const std::string hash = crypto::sha256_hex(fs::canonical(data_dir).string()).substr(0, 16);
  const fs::path natural = data_dir / "postgres";
  if (auto base = existing_base(data_dir)) {
    layout.base_dir = *base;
  } else if (run_as && !util::can_access_as(*run_as, data_dir, X_OK)) {
    layout.base_dir = relocation_root / hash;
    set_aside_orphan(layout.base_dir, data_dir);
    log::info("the database user cannot reach the data directory; keeping the database elsewhere",
              {{"data_dir", data_dir.string()},
               {"user", run_as->name},
               {"location", layout.base_dir.string()}});
    write_text(pointer_file(data_dir), layout.base_dir.string() + "\n");
  } else {
    layout.base_dir = natural;
  }
  layout.relocated = layout.base_dir != natural;
  layout.pgdata = layout.base_dir / "data";
  layout.log_file = layout.base_dir / "postgres.log";
  layout.socket_dir = layout.base_dir / "socket";
  const std::string socket_name = ".s.PGSQL." + std::to_string(port);
  if ((layout.socket_dir / socket_name).string().size() > max_socket_path)
    layout.socket_dir = fs::path("/tmp") / ("ironhold-" + hash);
  return layout;
}

void prepare_directories(const Layout& layout, const std::optional<util::Identity>& run_as) {
  if (layout.relocated) {
    for (auto dir : {layout.base_dir.parent_path().parent_path(), layout.base_dir.parent_path()})
      ensure_dir(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                          fs::perms::others_read | fs::perms::others_exec);
  }
  ensure_private_dir(layout.base_dir, run_as);
  ensure_private_dir(layout.socket_dir, run_as);
}

void write_settings(const Layout& layout, const std::optional<util::Identity>& run_as,
                    bool durable) {
  // Rewritten at every start so a moved socket directory or a changed default takes effect.
  std::string conf =
      "# Written by ironhold at every start; changes here are overwritten.\n"
      "listen_addresses = ''\n"
      "port = " +
      std::to_string(port) +
      "\n"
      "unix_socket_directories = " +
      conf_quote(layout.socket_dir.string()) +
      "\n"
      "unix_socket_permissions = 0700\n"
      "max_connections = 200\n"
      "shared_buffers = 32MB\n";
  // Statistics kept up with a fleet enrolled at once. With PostgreSQL's default (a look every
  // minute), the planner went on believing for up to a minute that the nodes and the poll schedule
  // held the few rows they had before, and planned each poll claim as a loop over every node with
  // an index scan of every due poll inside (32 ms a claim, growing with the fleet). Measured by
  // enrolling 5,000 nodes through the API into `ironhold demo`: PostgreSQL's CPU over the two
  // minutes from the first enrollment went from 104 s to 46 s, the whole machine's from 176 s to
  // 121 s (docs/scaling.md). The test suite's throwaway cluster, with its hundreds of short-lived
  // databases, did not spend measurably more for it (ctest -j4: 547 CPU-s against 552 without).
  conf += "autovacuum_naptime = 5s\n";
  if (!durable) conf += "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n";
  const fs::path path = layout.pgdata / "ironhold.conf";
  write_text(path, conf);
  give_to(path, run_as);
  const fs::path main_conf = layout.pgdata / "postgresql.conf";
  if (read_text(main_conf).find(include_line) == std::string::npos) {
    std::ofstream out(main_conf, std::ios::app);
    out << "\n# ironhold's settings (socket only, no TCP) come last so they win.\n"
        << include_line << "\n";
    if (!out.flush()) throw fail("cannot append to " + main_conf.string());
  }
}

Owner read_owner(const fs::path& data_dir) {
  Owner owner;
  std::istringstream in(read_text(owner_file(data_dir)));
  std::string word;
  in >> word;
  if (word == "detached") {
    owner.kind = Owner::Kind::detached;
  } else if (word == "pid" && in >> owner.pid >> owner.start_time) {
    owner.kind = Owner::Kind::process;
  }
  return owner;
}

void write_owner_self(const fs::path& data_dir) {
  const pid_t self = getpid();
  write_text(owner_file(data_dir), "pid " + std::to_string(self) + " " +
                                       std::to_string(process_start_time(self).value_or(0)) + "\n");
}

void write_owner_detached(const fs::path& data_dir) {
  write_text(owner_file(data_dir), "detached\n");
}

void remove_owner_if_self(const fs::path& data_dir) {
  Owner owner = read_owner(data_dir);
  if (owner.kind == Owner::Kind::process && owner.pid == getpid()) {
    std::error_code ignored;
    fs::remove(owner_file(data_dir), ignored);
  }
}

bool owner_alive(const Owner& owner) {
  if (owner.kind != Owner::Kind::process || owner.pid <= 0) return false;
  auto start = process_start_time(owner.pid);
  return start && *start == owner.start_time;
}

std::vector<pid_t> server_processes(const fs::path& pgdata) {
  std::vector<pid_t> pids;
  std::error_code ec;
  const fs::path want = fs::canonical(pgdata, ec);
  if (ec) return pids;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    pid_t pid = 0;
    if (std::from_chars(name.data(), name.data() + name.size(), pid).ptr !=
        name.data() + name.size())
      continue;
    std::error_code link_ec;
    std::string exe = fs::read_symlink(entry.path() / "exe", link_ec).filename().string();
    if (link_ec) continue;
    if (exe.ends_with(" (deleted)")) exe.resize(exe.size() - 10);  // after a package upgrade
    if (exe != "postgres") continue;
    if (fs::read_symlink(entry.path() / "cwd", link_ec) == want && !link_ec) pids.push_back(pid);
  }
  return pids;
}

void clear_stale_pid_files(const Layout& layout) {
  if (!server_processes(layout.pgdata).empty()) return;
  const std::string socket_name = ".s.PGSQL." + std::to_string(port);
  for (const fs::path& file :
       {layout.pgdata / "postmaster.pid", layout.socket_dir / (socket_name + ".lock"),
        layout.socket_dir / socket_name}) {
    std::error_code ec;
    if (fs::remove(file, ec))
      log::warn("removed a stale file left by a PostgreSQL that is no longer running",
                {{"file", file.string()}});
  }
}

void rotate_log(const Layout& layout) {
  std::error_code ec;
  const auto size = fs::file_size(layout.log_file, ec);
  if (!ec && size > 16 * 1024 * 1024) {
    fs::path previous = layout.log_file;
    previous += ".1";
    fs::rename(layout.log_file, previous, ec);
  }
}

std::string log_tail(const fs::path& log_file, int lines) {
  std::string text = read_text(log_file);
  if (text.size() > 16384) text.erase(0, text.size() - 16384);
  size_t pos = text.size();
  if (pos > 0 && text[pos - 1] == '\n') --pos;
  for (int n = 0; n < lines && pos != std::string::npos && pos > 0; ++n)
    pos = text.rfind('\n', pos - 1);
  return pos == std::string::npos ? text : text.substr(pos + 1);
}

DirLock::DirLock(const fs::path& data_dir) {
  const fs::path path = lock_file(data_dir);
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) throw fail("cannot open " + path.string() + ": " + std::strerror(errno));
  while (flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int e = errno;
    ::close(fd_);
    throw fail("cannot lock " + path.string() + ": " + std::strerror(e));
  }
}

DirLock::~DirLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace ironhold::db::cluster
