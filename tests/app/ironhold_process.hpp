#pragma once
// `ironhold <command> …` as a child process of a test, and the port it says it listens on.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "inventory/util/process.hpp"
#include "tests/support/server/child_process.hpp"

namespace ironhold::test {

struct IronholdProcess {
  std::unique_ptr<ChildProcess> process;
  unsigned short port = 0;
};

// Starts the binary under test with `args` (which must listen on 127.0.0.1:0) and waits for its
// "listening" log line; output goes to `log_file`.
inline IronholdProcess start_ironhold(std::vector<std::string> args,
                                      const std::filesystem::path& log_file) {
  IronholdProcess p;
  p.process = std::make_unique<ChildProcess>(IRONHOLD_BINARY, std::move(args), log_file);
  const auto line = p.process->wait_for_line("\"msg\":\"listening\"", std::chrono::seconds(180));
  INFO(p.process->stderr_text());
  REQUIRE(line);
  const auto at = line->find("127.0.0.1:");
  REQUIRE(at != std::string::npos);
  p.port = static_cast<unsigned short>(std::atoi(line->c_str() + at + 10));
  REQUIRE(p.port != 0);
  return p;
}

// A new admin token for the service on `data_dir`, made by `ironhold token create` as an operator
// would (the service may be running).
inline std::string admin_token(const std::filesystem::path& data_dir, const std::string& name) {
  const auto created = util::run_process(
      IRONHOLD_BINARY,
      {"token", "create", "--data-dir", data_dir.string(), "--role", "admin", "--name", name});
  INFO(created.err);
  REQUIRE(created.ok());
  return created.out.substr(0, created.out.find_first_of(" \n"));
}

}  // namespace ironhold::test
