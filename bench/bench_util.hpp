#pragma once
// What every benchmark measures and reads: CPU seconds (this process's or its children's), peak
// RSS, and "--name value" arguments.
#include <sys/resource.h>

#include <string>

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

inline std::string arg(int argc, char** argv, const std::string& name,
                       const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == "--" + name) return argv[i + 1];
  return fallback;
}

}  // namespace ironhold::bench
