#include "bench/sim_processes.hpp"

#include <curl/curl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

namespace ironhold::bench {
namespace {

std::size_t discard(char*, std::size_t size, std::size_t n, void*) {
  return size * n;
}

}  // namespace

SimProcesses::SimProcesses(const std::string& ironhold, const std::vector<std::string>& simulator,
                           unsigned count, unsigned per_process, unsigned control_base_port) {
  for (unsigned first = 0, p = 0; first < count; first += per_process, ++p) {
    const unsigned n = std::min(per_process, count - first);
    const std::string control = "127.0.0.1:" + std::to_string(control_base_port + p);
    std::vector<std::string> args{ironhold, "sim"};
    args.insert(args.end(), simulator.begin(), simulator.end());
    for (const std::string& a : {std::string("--count"), std::to_string(n), std::string("--listen"),
                                 std::string("127.0.0.1:0"), std::string("--control"), control})
      args.push_back(a);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe failed");
    std::fflush(stdout);  // or the child's copy of the buffer is printed twice
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid == 0) {
      // A benchmark that dies (or is killed) takes its simulators with it.
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != parent) _exit(1);
      dup2(out[1], 1);
      close(out[0]);
      close(out[1]);
      // Each BMC holds a listening socket and its clients' connections.
      rlimit limit{};
      getrlimit(RLIMIT_NOFILE, &limit);
      limit.rlim_cur = limit.rlim_max;
      setrlimit(RLIMIT_NOFILE, &limit);
      execv(ironhold.c_str(), argv.data());
      _exit(127);
    }
    close(out[1]);
    pids_.push_back(pid);
    FILE* lines = fdopen(out[0], "r");
    char buffer[4096];
    for (unsigned i = 0; i < n; ++i) {
      if (!fgets(buffer, sizeof buffer, lines))
        throw std::runtime_error("a simulator process ended before printing all its BMCs");
      const auto doc = nlohmann::json::parse(buffer);
      bmcs_.push_back({doc.at("endpoint"), doc.value("username", ""), doc.value("password", ""),
                       "http://" + control, i});
    }
    fclose(lines);  // the simulator keeps running; nothing more is read
  }
}

SimProcesses::~SimProcesses() {
  for (pid_t pid : pids_) kill(pid, SIGTERM);
  for (pid_t pid : pids_) {
    for (int i = 0; i < 50; ++i) {
      if (waitpid(pid, nullptr, WNOHANG) == pid) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (i == 49) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
      }
    }
  }
}

namespace {

std::size_t append_to(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

}  // namespace

std::string SimProcesses::counters(std::size_t i) const {
  const auto& bmc = bmcs_.at(i);
  const std::string url = bmc.control + "/bmcs/" + std::to_string(bmc.index) + "/counters";
  std::string body;
  CURL* curl = curl_easy_init();
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_to);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  const CURLcode rc = curl_easy_perform(curl);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK) throw std::runtime_error("reading " + url + " failed");
  return body;
}

void SimProcesses::set_faults(const std::string& faults_json) const {
  CURL* curl = curl_easy_init();
  for (const auto& bmc : bmcs_) {
    const std::string url = bmc.control + "/bmcs/" + std::to_string(bmc.index) + "/faults";
    curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "PUT");
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, faults_json.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard);
    const CURLcode rc = curl_easy_perform(curl);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(headers);
    if (rc != CURLE_OK || status >= 300)
      throw std::runtime_error("setting faults via " + url + " failed (HTTP " +
                               std::to_string(status) + ")");
  }
  curl_easy_cleanup(curl);
}

}  // namespace ironhold::bench
