#pragma once
// What the IPMI simulator tests share: an in-process fleet on loopback, and ipmitool / FreeIPMI
// run as real clients against it (with a timeout; a test skips with a warning when the tool is
// not installed).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "sim/ipmi/fleet.hpp"
#include "tests/support/server/child_process.hpp"

namespace ironhold::test {

inline sim::IpmiFleetOptions ipmi_fleet_options(unsigned count = 1) {
  sim::IpmiFleetOptions o;
  o.count = count;
  o.listen = "127.0.0.1:0";
  o.cycle_delay = std::chrono::milliseconds(300);
  return o;
}

// The tool's full path, from PATH or the sbin folders FreeIPMI installs into; empty if absent.
inline std::string find_tool(const std::string& name) {
  std::vector<std::string> dirs = {"/usr/sbin",      "/usr/bin", "/usr/local/sbin",
                                   "/usr/local/bin", "/sbin",    "/bin"};
  if (const char* path = std::getenv("PATH")) {
    std::istringstream parts(path);
    for (std::string dir; std::getline(parts, dir, ':');)
      if (!dir.empty()) dirs.insert(dirs.begin(), dir);
  }
  for (const auto& dir : dirs) {
    const auto candidate = std::filesystem::path(dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

inline bool have_tool(const std::string& name) {
  if (!find_tool(name).empty()) return true;
  WARN("skipped: " << name << " is not installed");
  return false;
}

struct ToolRun {
  std::optional<int> status;  // nullopt: killed at the timeout
  std::string output;         // stdout and stderr together
  bool ok() const { return status && *status == 0; }
};

// Runs `tool` (found with find_tool) with `args`; kills it after `timeout`.
inline ToolRun run_tool(const std::string& tool, const std::vector<std::string>& args,
                        std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  static int serial = 0;
  const auto out_file =
      std::filesystem::temp_directory_path() /
      ("ih-ipmi-tool-" + std::to_string(::getpid()) + "-" + std::to_string(++serial) + ".out");
  // ChildProcess keeps stderr only: send stdout there too.
  std::vector<std::string> sh_args = {"-c", "exec \"$@\" 1>&2", "sh", find_tool(tool)};
  sh_args.insert(sh_args.end(), args.begin(), args.end());
  ToolRun run;
  {
    ChildProcess child("/bin/sh", sh_args, out_file);
    run.status = child.wait(timeout);
    run.output = child.stderr_text();
  }
  std::filesystem::remove(out_file);
  return run;
}

// ipmitool -I lanplus against BMC `i` with cipher suite `suite`, as `user`.
inline ToolRun ipmitool(sim::IpmiFleet& fleet, int suite, const std::vector<std::string>& command,
                        const std::string& user = "admin", const std::string& password = "password",
                        const std::vector<std::string>& extra = {}, std::size_t i = 0) {
  std::vector<std::string> args = {"-I", "lanplus",
                                   "-H", fleet.host(i),
                                   "-p", std::to_string(fleet.port(i)),
                                   "-U", user,
                                   "-P", password,
                                   "-C", std::to_string(suite),
                                   "-N", "1",
                                   "-R", "3"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), command.begin(), command.end());
  return run_tool("ipmitool", args);
}

// A FreeIPMI tool (ipmi-sensors, ipmi-sel, ...) against BMC `i` over IPMI 2.0 with `suite`; the SDR
// cache goes to a private folder, recreated each run (every simulated BMC is on 127.0.0.1).
inline ToolRun freeipmi(sim::IpmiFleet& fleet, const std::string& tool, int suite,
                        const std::vector<std::string>& command, const std::string& user = "admin",
                        const std::string& password = "password", std::size_t i = 0) {
  std::vector<std::string> args = {"-h", fleet.host(i) + ":" + std::to_string(fleet.port(i)),
                                   "-u", user,
                                   "-p", password,
                                   "-D", "LAN_2_0",
                                   "-I", std::to_string(suite)};
  std::filesystem::path cache;
  if (tool == "ipmi-sensors" || tool == "ipmi-sel" || tool == "ipmi-fru") {
    // FreeIPMI wants the cache folder private to the user.
    cache = std::filesystem::temp_directory_path() /
            ("ih-ipmi-sdr-cache-" + std::to_string(::getpid()));
    std::filesystem::create_directories(cache);
    std::filesystem::permissions(cache, std::filesystem::perms::owner_all);
    args.insert(args.end(),
                {"--sdr-cache-directory", cache.string(), "--sdr-cache-recreate", "--quiet-cache"});
  }
  args.insert(args.end(), command.begin(), command.end());
  ToolRun run = run_tool(tool, args);
  std::error_code ignored;
  if (!cache.empty()) std::filesystem::remove_all(cache, ignored);  // recreated by every run
  return run;
}

}  // namespace ironhold::test
