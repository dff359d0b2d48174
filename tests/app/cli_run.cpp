#include "tests/app/cli_run.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string_view>

extern char** environ;

namespace ironhold::test {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::string temp_file(const std::string& content) {
  char path[] = "/tmp/ironhold-cli-test-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  (void)!::write(fd, content.data(), content.size());
  ::close(fd);
  return path;
}

Run run_cli(std::vector<std::string> args, const std::map<std::string, std::string>& env,
            const std::string& input) {
  std::string binary = IRONHOLD_BINARY;
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e)
    if (!std::string_view(*e).starts_with("IRONHOLD_")) env_strings.emplace_back(*e);
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  // Built before fork(): the child of a threaded process may only call async-signal-safe functions.
  std::vector<char*> argv{binary.data()}, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);

  const std::string in_path = temp_file(input), out_path = temp_file(""), err_path = temp_file("");
  const int in = ::open(in_path.c_str(), O_RDONLY);
  const int out = ::open(out_path.c_str(), O_WRONLY | O_TRUNC);
  const int err = ::open(err_path.c_str(), O_WRONLY | O_TRUNC);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(in);
  ::close(out);
  ::close(err);
  int wstatus = 0;
  ::waitpid(pid, &wstatus, 0);
  Run r{WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus), slurp(out_path),
        slurp(err_path)};
  for (const auto& p : {in_path, out_path, err_path}) ::unlink(p.c_str());
  return r;
}

}  // namespace ironhold::test
