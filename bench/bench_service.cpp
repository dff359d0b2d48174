#include "bench/bench_service.hpp"

#include <curl/curl.h>
#include <dirent.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <pqxx/pqxx>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/cluster_files.hpp"
#include "inventory/db/embedded_cluster.hpp"
#include "inventory/db/migrator.hpp"
#include "inventory/util/log.hpp"
#include "inventory/util/process.hpp"

namespace ironhold::bench {
namespace {

std::atomic<bool> stop_signalled{false};

void on_stop_signal(int) {
  stop_signalled = true;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Fields of /proc/PID/stat after the command name (which may hold spaces): [0] is field 3.
std::vector<std::string> stat_fields(pid_t pid) {
  const std::string text = read_file("/proc/" + std::to_string(pid) + "/stat");
  const auto close = text.rfind(')');
  std::vector<std::string> fields;
  if (close == std::string::npos) return fields;
  std::istringstream in(text.substr(close + 2));
  for (std::string f; in >> f;) fields.push_back(f);
  return fields;
}

double cpu_of(const std::vector<std::string>& fields) {
  if (fields.size() < 13) return 0;
  // utime and stime are fields 14 and 15.
  const double ticks = std::stod(fields[11]) + std::stod(fields[12]);
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::string tail_of(const fs::path& file, std::size_t bytes = 3000) {
  const std::string text = read_file(file);
  return text.size() > bytes ? text.substr(text.size() - bytes) : text;
}

void write_key(const fs::path& file) {
  std::uint8_t key[32];
  crypto::random_bytes(key);
  std::ofstream(file) << crypto::to_hex(key) << "\n";
  ::chmod(file.c_str(), 0600);
}

std::size_t collect(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// A loopback port nobody listens on now: the kernel picks it for a socket that is closed at
// once. (The service logs its address only at --log-level info, which the benchmarks turn down.)
unsigned short free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), size) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0)
    throw std::runtime_error("cannot find a free loopback port");
  ::close(fd);
  return ntohs(address.sin_port);
}

}  // namespace

void stop_on_signals() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  curl_global_init(CURL_GLOBAL_DEFAULT);
}

void throw_if_stopped() {
  if (stop_signalled) throw std::runtime_error("interrupted");
}

bool stop_requested() {
  return stop_signalled;
}

void pause_for(std::chrono::milliseconds duration) {
  const auto end = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < end) {
    throw_if_stopped();
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        end - std::chrono::steady_clock::now(), std::chrono::milliseconds(50)));
  }
  throw_if_stopped();
}

void raise_fd_limit() {
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
}

TempDir::TempDir() {
  char name[] = "/tmp/ih-bench-XXXXXX";
  if (!::mkdtemp(name)) throw std::runtime_error("mkdtemp failed");
  path_ = name;
  // The cluster's user (postgres, as root) passes through to its own directory here, so the
  // cluster stays inside this directory instead of being relocated under /var/lib.
  ::chmod(name, 0711);
}

TempDir::~TempDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

struct BenchDatabase::Impl {
  fs::path data_dir;
  std::unique_ptr<db::EmbeddedCluster> cluster;
  std::unique_ptr<pqxx::connection> connection;
};

BenchDatabase::BenchDatabase(const fs::path& dir) : impl_(std::make_unique<Impl>()) {
  // The library's own logs (cluster start, each migration) would drown the figures.
  log::set_level(log::Level::warn);
  impl_->data_dir = dir / "pg";
  fs::create_directories(impl_->data_dir);
  ::chmod(impl_->data_dir.c_str(), 0711);
  impl_->cluster = db::EmbeddedCluster::start({.data_dir = impl_->data_dir});
  db::migrate(impl_->cluster->owner_url());
  impl_->connection = std::make_unique<pqxx::connection>(impl_->cluster->owner_url());
}

BenchDatabase::~BenchDatabase() {
  impl_->connection.reset();
  try {
    impl_->cluster->stop();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "could not stop the benchmark's PostgreSQL: %s\n", e.what());
  }
  // Relocated files (when the cluster user could not reach the directory) go too.
  std::error_code ignored;
  if (const auto base = db::cluster::existing_base(impl_->data_dir);
      base && base->string().rfind(impl_->data_dir.string(), 0) != 0)
    fs::remove_all(*base, ignored);
}

std::string BenchDatabase::url() const {
  return impl_->cluster->owner_url();
}

std::string BenchDatabase::query(const std::string& sql) {
  pqxx::work tx(*impl_->connection);
  const auto result = tx.exec(sql);
  tx.commit();
  if (result.empty() || result.columns() == 0 || result[0][0].is_null()) return "";
  return result[0][0].as<std::string>();
}

std::vector<std::vector<std::string>> BenchDatabase::rows(const std::string& sql) {
  pqxx::work tx(*impl_->connection);
  const auto result = tx.exec(sql);
  tx.commit();
  std::vector<std::vector<std::string>> out;
  for (const auto& row : result) {
    std::vector<std::string> values;
    for (const auto& field : row) values.push_back(field.is_null() ? "" : field.as<std::string>());
    out.push_back(std::move(values));
  }
  return out;
}

void BenchDatabase::run(const std::string& sql) {
  pqxx::nontransaction tx(*impl_->connection);
  tx.exec0(sql);
}

long long BenchDatabase::run_without_triggers(const std::string& sql) {
  pqxx::connection superuser(impl_->cluster->superuser_url("ironhold"));
  pqxx::work tx(superuser);
  tx.exec0("SET LOCAL session_replication_role = replica");
  const auto result = tx.exec0(sql);
  tx.commit();
  return result.affected_rows();
}

DatabaseCounters BenchDatabase::counters() {
  const auto r = rows(
      "SELECT xact_commit, tup_inserted, tup_updated, tup_deleted, "
      "       (SELECT coalesce(sum(autovacuum_count), 0) FROM pg_stat_user_tables), "
      "       (SELECT coalesce(sum(autoanalyze_count), 0) FROM pg_stat_user_tables), "
      "       (SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter), "
      "       (SELECT wal_bytes FROM pg_stat_wal), (SELECT wal_fpi FROM pg_stat_wal) "
      "FROM pg_stat_database WHERE datname = current_database()");
  DatabaseCounters c{std::stoll(r[0][0]), std::stoll(r[0][1]),
                     std::stoll(r[0][2]), std::stoll(r[0][3]),
                     std::stoll(r[0][4]), std::stoll(r[0][5]),
                     std::stoll(r[0][6]), std::stoll(r[0][7]),
                     std::stoll(r[0][8]), {}};
  for (const auto& t :
       rows("SELECT relname, n_tup_ins + n_tup_upd + n_tup_del, coalesce(seq_tup_read, 0) "
            "FROM pg_stat_user_tables"))
    c.table_rows[t[0]] = {std::stoll(t[1]), std::stoll(t[2])};
  return c;
}

std::string table_deltas(const DatabaseCounters& before, const DatabaseCounters& after) {
  std::vector<std::tuple<long long, long long, std::string>> changed;
  for (const auto& [table, now] : after.table_rows) {
    const auto was = before.table_rows.find(table);
    const auto then =
        was == before.table_rows.end() ? std::pair<long long, long long>{0, 0} : was->second;
    const long long written = now.first - then.first, scanned = now.second - then.second;
    if (written > 0 || scanned > 0) changed.emplace_back(written, scanned, table);
  }
  std::sort(changed.rbegin(), changed.rend());
  std::string out;
  for (const auto& [written, scanned, table] : changed) {
    out += " " + table + " " + std::to_string(written);
    if (scanned > 0) out += " (seq read " + std::to_string(scanned) + ")";
  }
  return out;
}

pid_t BenchDatabase::postmaster() const {
  std::ifstream pid_file(impl_->cluster->cluster_dir() / "postmaster.pid");
  pid_t postmaster = 0;
  pid_file >> postmaster;
  return postmaster;
}

double BenchDatabase::server_cpu_seconds() const {
  const pid_t postmaster = this->postmaster();
  if (postmaster <= 0) return 0;
  double total = cpu_of(stat_fields(postmaster));
  DIR* proc = ::opendir("/proc");
  if (!proc) return total;
  while (const dirent* entry = ::readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (pid <= 0) continue;
    const auto fields = stat_fields(pid);
    // Field 4, the parent.
    if (fields.size() > 1 && std::atoi(fields[1].c_str()) == postmaster) total += cpu_of(fields);
  }
  ::closedir(proc);
  return total;
}

const fs::path& BenchDatabase::socket_dir() const {
  return impl_->cluster->socket_dir();
}

ServeProcess::ServeProcess(const ServeOptions& options)
    : options_(options), log_(options.dir / "serve.log") {
  fs::create_directories(options_.dir / "serve-data");
  if (!fs::exists(options_.dir / "master.key")) write_key(options_.dir / "master.key");
  if (!fs::exists(options_.dir / "audit.key")) write_key(options_.dir / "audit.key");
  const std::string listen = "127.0.0.1:" + std::to_string(free_port());
  std::vector<std::string> args = {options_.ironhold, "serve",
                                   "--database",      options_.database_url,
                                   "--data-dir",      (options_.dir / "serve-data").string(),
                                   "--listen",        listen};
  for (const auto& a : key_args()) args.push_back(a);
  for (const auto& a : options_.extra) args.push_back(a);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(1);
    if (!std::freopen(log_.c_str(), "w", stdout) || !std::freopen(log_.c_str(), "a", stderr))
      _exit(126);
    execv(options_.ironhold.c_str(), argv.data());
    _exit(127);
  }
  url_ = "http://" + listen;
  const auto t0 = std::chrono::steady_clock::now();
  Http http;
  for (;;) {
    if (http.get(url_ + "/healthz").status == 200) return;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("ironhold serve ended before it listened:\n" + tail_of(log_));
    }
    if (seconds_since(t0) > 300) {
      stop();
      throw std::runtime_error("ironhold serve did not listen within 300 s:\n" + tail_of(log_));
    }
    try {
      pause_for(std::chrono::milliseconds(100));
    } catch (...) {
      stop();
      throw;
    }
  }
}

ServeProcess::~ServeProcess() {
  stop();
}

void ServeProcess::stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  for (int i = 0; i < 300; ++i) {
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

std::vector<std::string> ServeProcess::key_args() const {
  return {"--master-key-file", (options_.dir / "master.key").string(), "--audit-key-file",
          (options_.dir / "audit.key").string()};
}

std::string ServeProcess::create_token(const std::string& role, const std::string& name) const {
  std::vector<std::string> args = {"token",      "create",
                                   "--database", options_.database_url,
                                   "--data-dir", (options_.dir / "serve-data").string(),
                                   "--role",     role,
                                   "--name",     name};
  for (const auto& a : key_args()) args.push_back(a);
  const auto created = util::run_process(options_.ironhold, args);
  if (!created.ok())
    throw std::runtime_error("ironhold token create failed: " + created.status_text() + " " +
                             created.err);
  return created.out.substr(0, created.out.find_first_of(" \n"));
}

ProcessUsage process_usage(pid_t pid) {
  ProcessUsage usage;
  usage.cpu_seconds = cpu_of(stat_fields(pid));
  std::istringstream status(read_file("/proc/" + std::to_string(pid) + "/status"));
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) usage.rss_kib = std::atol(line.c_str() + 6);
    if (line.rfind("VmHWM:", 0) == 0) usage.hwm_kib = std::atol(line.c_str() + 6);
  }
  return usage;
}

Http::Http(std::string token)
    : curl_(curl_easy_init()), headers_(nullptr), token_(std::move(token)) {
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  if (!token_.empty())
    headers = curl_slist_append(headers, ("Authorization: Bearer " + token_).c_str());
  headers_ = headers;
  CURL* curl = static_cast<CURL*>(curl_);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 60L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
}

Http::~Http() {
  curl_easy_cleanup(static_cast<CURL*>(curl_));
  curl_slist_free_all(static_cast<curl_slist*>(headers_));
}

Reply Http::call(const std::string& method, const std::string& url, const std::string& body) {
  CURL* curl = static_cast<CURL*>(curl_);
  Reply reply;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
  if (method == "GET") {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, nullptr);
  } else {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  const CURLcode rc = curl_easy_perform(curl);
  if (rc == CURLE_OK)
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
  else
    reply.error = curl_easy_strerror(rc);
  return reply;
}

PerfRecording::PerfRecording(const std::string& dir, const std::string& name, pid_t pid) {
  if (dir.empty()) return;
  const std::string out = dir + "/" + name + ".data";
  const std::string target = std::to_string(pid);
  std::fflush(stdout);
  pid_ = fork();
  if (pid_ == 0) {
    if (!std::freopen("/dev/null", "w", stdout) || !std::freopen("/dev/null", "w", stderr))
      _exit(126);
    execl("/usr/bin/perf", "perf", "record", "-F", "499", "-g", "-p", target.c_str(), "-o",
          out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // while perf attaches
  std::printf("  perf record of pid %d into %s\n", pid, out.c_str());
}

PerfRecording::~PerfRecording() {
  stop();
}

void PerfRecording::stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGINT);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

namespace {

// Busy CPU seconds of all cores since boot: every /proc/stat "cpu" field but idle and iowait.
double machine_busy_seconds() {
  std::istringstream in(read_file("/proc/stat"));
  std::string label;
  in >> label;
  double busy = 0;
  long long value = 0;
  for (int field = 0; field < 8 && in >> value; ++field)
    if (field != 3 && field != 4) busy += static_cast<double>(value);
  return busy / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// CPU seconds of this process, the cluster's postmaster, and every descendant of either.
double own_cpu_seconds(pid_t postmaster) {
  std::map<pid_t, std::pair<pid_t, double>> processes;  // pid -> parent, cpu
  DIR* proc = ::opendir("/proc");
  if (!proc) return 0;
  while (const dirent* entry = ::readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (pid <= 0) continue;
    const auto fields = stat_fields(pid);
    if (fields.size() > 12)
      processes[pid] = {static_cast<pid_t>(std::atoi(fields[1].c_str())), cpu_of(fields)};
  }
  ::closedir(proc);
  double total = 0;
  for (const auto& [pid, info] : processes) {
    for (pid_t p = pid; p > 1;) {
      if (p == getpid() || p == postmaster) {
        total += info.second;
        break;
      }
      const auto it = processes.find(p);
      if (it == processes.end()) break;
      p = it->second.first;
    }
  }
  return total;
}

}  // namespace

ForeignLoad::ForeignLoad(pid_t cluster_postmaster)
    : postmaster_(cluster_postmaster),
      busy0_(machine_busy_seconds()),
      own0_(own_cpu_seconds(cluster_postmaster)),
      t0_(std::chrono::steady_clock::now()) {}

double ForeignLoad::cores() const {
  const double busy = machine_busy_seconds() - busy0_;
  const double own = own_cpu_seconds(postmaster_) - own0_;
  return std::max(0.0, busy - own) / std::max(seconds_since(t0_), 1e-3);
}

double wait_for_quiet(pid_t cluster_postmaster, std::chrono::seconds max_wait, double threshold) {
  const auto t0 = std::chrono::steady_clock::now();
  int quiet = 0;
  bool said = false;
  while (quiet < 3 && seconds_since(t0) < static_cast<double>(max_wait.count())) {
    const ForeignLoad load(cluster_postmaster);
    pause_for(std::chrono::seconds(2));
    const double cores = load.cores();
    quiet = cores < threshold ? quiet + 1 : 0;
    if (quiet == 0 && !said) {
      std::printf("  waiting for other processes to finish (%.2f cores busy)...\n", cores);
      std::fflush(stdout);
      said = true;
    }
  }
  return seconds_since(t0);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(p * static_cast<double>(values.size()) + 0.999999);
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

std::string load_average() {
  std::istringstream in(read_file("/proc/loadavg"));
  std::string a, b, c;
  in >> a >> b >> c;
  return "load average " + a + " " + b + " " + c;
}

bool compiler_running() {
  DIR* proc = ::opendir("/proc");
  if (!proc) return false;
  bool found = false;
  while (const dirent* entry = ::readdir(proc)) {
    if (std::atoi(entry->d_name) <= 0) continue;
    std::string comm = read_file(std::string("/proc/") + entry->d_name + "/comm");
    if (comm.rfind("cc1plus", 0) == 0) {
      found = true;
      break;
    }
  }
  ::closedir(proc);
  return found;
}

}  // namespace ironhold::bench
