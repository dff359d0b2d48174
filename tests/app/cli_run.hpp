#pragma once
// Runs the real `ironhold` binary as a child process, for the CLI tests: stdin, stdout, stderr and
// the exit status as a user or script sees them.
#include <map>
#include <string>
#include <vector>

namespace ironhold::test {

struct Run {
  int status = -1;
  std::string out, err;
};

// Runs `ironhold ARGS...` (IRONHOLD_BINARY) with the given IRONHOLD_* variables (any inherited
// ones removed) and stdin. Output goes through files, so a chatty child can never block on a
// full pipe.
// A new file under /tmp holding `content`; the caller removes it.
std::string temp_file(const std::string& content);

Run run_cli(std::vector<std::string> args, const std::map<std::string, std::string>& env = {},
            const std::string& input = {});

}  // namespace ironhold::test
