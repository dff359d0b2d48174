// The firmware export of a large fleet as CSV through the API (GET /api/v1/export/firmware,
// docs/exports.md) against `psql -c "\copy (<the same SELECT>) to stdout csv"` on the same
// database: both deliver the same rows into this process (curl over loopback TCP, psql's stdout
// through a pipe), timed from the request to the last byte. The nodes and their firmware records
// are written with SQL; the first pass of each is a check (same bytes, same rows) and is not
// timed; then --runs timed passes, alternating. Prints the times, the ratio and their spread.
//   export_csv --ironhold build-release/ironhold --nodes 100000 --firmware-per-node 8 --runs 5
#include <curl/curl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "bench/bench_service.hpp"
#include "bench/bench_util.hpp"
#include "bench/synthetic_inventory.hpp"
#include "inventory/db/embedded_cluster.hpp"

using namespace ironhold;
using bench::arg;
using Clock = std::chrono::steady_clock;

namespace {

// What the API's export runs (inventory/db/export_store.cpp) for an unfiltered export of now, by
// a caller who sees every project; columns named as the CSV header names them.
constexpr const char* kEquivalentSelect =
    "SELECT n.id::text AS node_id, n.name AS node_name, n.source, f.component, f.version, "
    "rfc3339(f.valid_from) AS since FROM firmware_records f JOIN nodes n ON n.id = f.node_id "
    "WHERE n.retired_at IS NULL AND f.valid_to IS NULL "
    "ORDER BY n.name COLLATE \"C\", n.id, f.component";

struct Received {
  double seconds = 0, first_byte = 0;
  std::size_t bytes = 0, lines = 0;
  std::string text;  // kept only when asked
  bool keep = false;
};

void take(Received& r, const char* data, std::size_t n) {
  r.bytes += n;
  r.lines += static_cast<std::size_t>(std::count(data, data + n, '\n'));
  if (r.keep) r.text.append(data, n);
}

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* out) {
  take(*static_cast<Received*>(out), data, size * n);
  return size * n;
}

Received api_export(const std::string& url, const std::string& token, bool keep) {
  Received r;
  r.keep = keep;
  CURL* curl = curl_easy_init();
  const std::string auth = "Authorization: Bearer " + token;
  curl_slist* headers = curl_slist_append(nullptr, auth.c_str());
  curl_easy_setopt(curl, CURLOPT_URL, (url + "/api/v1/export/firmware?format=csv").c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r);
  const auto t0 = Clock::now();
  const CURLcode rc = curl_easy_perform(curl);
  r.seconds = bench::seconds_since(t0);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_getinfo(curl, CURLINFO_STARTTRANSFER_TIME, &r.first_byte);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK || status != 200)
    throw std::runtime_error("the export failed: HTTP " + std::to_string(status) + " " +
                             curl_easy_strerror(rc));
  return r;
}

Received psql_copy(const std::string& psql, const std::string& conninfo, bool keep) {
  const std::string command =
      std::string("\\copy (") + kEquivalentSelect + ") to stdout with (format csv, header)";
  int out[2];
  if (pipe(out) != 0) throw std::runtime_error("pipe failed");
  Received r;
  r.keep = keep;
  std::fflush(stdout);
  const auto t0 = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    close(out[1]);
    execl(psql.c_str(), "psql", "-X", "-q", "-d", conninfo.c_str(), "-c", command.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  char buffer[1 << 16];
  bool first = true;
  for (;;) {
    const ssize_t n = read(out[0], buffer, sizeof buffer);
    if (n <= 0) break;
    if (first) r.first_byte = bench::seconds_since(t0);
    first = false;
    take(r, buffer, static_cast<std::size_t>(n));
  }
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.seconds = bench::seconds_since(t0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("psql \\copy failed (status " + std::to_string(status) + ")");
  return r;
}

// The API ends its lines with CRLF (RFC 4180), psql with LF: compared without the CRs.
void check_same(const Received& api, const Received& psql) {
  std::string a = api.text;
  a.erase(std::remove(a.begin(), a.end(), '\r'), a.end());
  const std::string& p = psql.text;
  if (a == p) {
    std::printf(
        "check: the same %zu lines from both (%zu bytes from the API with CRLF, %zu from "
        "psql)\n",
        api.lines, api.bytes, psql.bytes);
    return;
  }
  std::size_t at = 0;
  while (at < a.size() && at < p.size() && a[at] == p[at]) ++at;
  const auto start = a.rfind('\n', at);
  const std::size_t line = start == std::string::npos ? 0 : start + 1;
  std::printf(
      "check: the outputs differ (API %zu lines, psql %zu lines), first at byte %zu:\n  API:  "
      "%s\n  psql: %s\n",
      api.lines, psql.lines, at, a.substr(line, a.find('\n', at) - line).c_str(),
      p.substr(line, p.find('\n', at) - line).c_str());
}

int run(int argc, char** argv) {
  const std::string ironhold = arg(argc, argv, "ironhold", "build-release/ironhold");
  const long nodes = std::stol(arg(argc, argv, "nodes", "100000"));
  const int per_node = std::stoi(arg(argc, argv, "firmware-per-node", "8"));
  const int runs = std::stoi(arg(argc, argv, "runs", "5"));
  // Before each pair of runs, wait up to this long until other processes leave the cores alone.
  const auto quiet_wait = std::chrono::seconds(std::stol(arg(argc, argv, "wait-quiet", "600")));
  std::vector<std::string> serve_extra = {"--no-poller", "--no-tasks", "--no-event-subscriptions",
                                          "--log-level", "warn"};
  if (const std::string threads = arg(argc, argv, "threads", ""); !threads.empty())
    serve_extra.insert(serve_extra.end(), {"--threads", threads});

  bench::stop_on_signals();
  bench::TempDir dir;
  bench::BenchDatabase db(dir.path());
  bench::insert_nodes(db, nodes);
  bench::insert_firmware(db, per_node);
  const std::string psql = (db::find_postgres_bindir() / "psql").string();

  bench::ServeProcess serve({ironhold, db.url(), dir.path(), serve_extra});
  const std::string token = serve.create_token("admin", "bench");
  std::printf("ironhold serve (pid %d) at %s\n", serve.pid(), serve.url().c_str());
  std::printf("equivalent SELECT: %s\n", kEquivalentSelect);
  std::fflush(stdout);

  // The export streams: serve's peak memory should not grow with the body (a batch of rows at a
  // time), so its high-water mark before the first export is printed against the one after.
  const bench::ProcessUsage before_exports = bench::process_usage(serve.pid());
  check_same(api_export(serve.url(), token, true), psql_copy(psql, db.url(), true));

  std::vector<double> api_times, psql_times, ratios;
  for (int i = 0; i < runs; ++i) {
    bench::throw_if_stopped();
    if (quiet_wait.count() > 0) bench::wait_for_quiet(db.postmaster(), quiet_wait);
    const bench::ForeignLoad foreign(db.postmaster());
    const double serve0 = bench::process_usage(serve.pid()).cpu_seconds;
    const double db0 = db.server_cpu_seconds();
    const Received a = api_export(serve.url(), token, false);
    const double serve_cpu = bench::process_usage(serve.pid()).cpu_seconds - serve0;
    const double db_mid = db.server_cpu_seconds();
    const Received p = psql_copy(psql, db.url(), false);
    const double db_psql = db.server_cpu_seconds() - db_mid;
    api_times.push_back(a.seconds);
    psql_times.push_back(p.seconds);
    ratios.push_back(a.seconds / p.seconds);
    std::printf(
        "run %d: API %.2f s (first byte %.2f s, %zu lines, %.1f MB; serve cpu %.2f s, postgres "
        "cpu %.2f s)  psql \\copy %.2f s (first byte %.2f s, %zu lines; postgres cpu %.2f s)  "
        "ratio %.2f  (other processes %.2f cores; %s%s)\n",
        i + 1, a.seconds, a.first_byte, a.lines, static_cast<double>(a.bytes) / 1e6, serve_cpu,
        db_mid - db0, p.seconds, p.first_byte, p.lines, db_psql, a.seconds / p.seconds,
        foreign.cores(), bench::load_average().c_str(),
        bench::compiler_running() ? ", a compiler was running" : "");
    std::fflush(stdout);
  }
  auto summary = [](const char* what, const std::vector<double>& v) {
    std::printf("%-7s min %.2f  median %.2f  max %.2f\n", what,
                *std::min_element(v.begin(), v.end()), bench::percentile(v, 0.5),
                *std::max_element(v.begin(), v.end()));
  };
  summary("API s", api_times);
  summary("psql s", psql_times);
  summary("ratio", ratios);
  std::printf("ratio of the medians: %.2f\n",
              bench::percentile(api_times, 0.5) / bench::percentile(psql_times, 0.5));
  const bench::ProcessUsage after_exports = bench::process_usage(serve.pid());
  std::printf(
      "serve memory: rss %.1f MiB and peak %.1f MiB before the first export, rss %.1f MiB and "
      "peak %.1f MiB after the last\n",
      before_exports.rss_kib / 1024.0, before_exports.hwm_kib / 1024.0,
      after_exports.rss_kib / 1024.0, after_exports.hwm_kib / 1024.0);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return ironhold::bench::run_main("export_csv", run, argc, argv);
}
