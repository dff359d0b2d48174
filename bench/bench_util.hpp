#pragma once
// What every benchmark measures and reads: CPU seconds (this process's or its children's), peak
// RSS, and "--name value" arguments.
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <initializer_list>
#include <string>
#include <vector>

namespace ironhold::bench {

inline double cpu_seconds(int who = RUSAGE_SELF) {
  rusage u{};
  getrusage(who, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

inline long peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024;
}

// Resident set now (from /proc/self/statm), in MiB.
inline long rss_mib() {
  long pages_total = 0, pages_resident = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages_total, &pages_resident) != 2) pages_resident = 0;
    std::fclose(f);
  }
  return pages_resident * sysconf(_SC_PAGESIZE) / (1024 * 1024);
}

inline std::string arg(int argc, char** argv, const std::string& name,
                       const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == "--" + name) return argv[i + 1];
  return fallback;
}

// The options given as "--name value" among `names`, appended to `flags` as they were given (for
// passing on to `ironhold serve`).
inline void pass_through(int argc, char** argv, std::initializer_list<const char*> names,
                         std::vector<std::string>& flags) {
  for (const char* name : names) {
    const std::string value = arg(argc, argv, name, "");
    if (value.empty()) continue;
    flags.push_back(std::string("--") + name);
    flags.push_back(value);
  }
}

// A benchmark's main(): runs `run`, and says what failed, under the benchmark's name.
inline int run_main(const char* name, int (*run)(int, char**), int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 1;
  }
}

}  // namespace ironhold::bench
