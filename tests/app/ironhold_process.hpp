#pragma once
// `ironhold <command> …` as a child process of a test, and the port it says it listens on.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "inventory/util/process.hpp"
#include "tests/support/server/child_process.hpp"

namespace ironhold::test {

// The port of "http://127.0.0.1:8080" (also of "https://[::1]:8443"); 0 when it has none.
inline unsigned short url_port(const std::string& url) {
  const auto colon = url.rfind(':');
  if (colon == std::string::npos ||
      url.find_first_not_of("0123456789", colon + 1) != std::string::npos)
    return 0;
  return static_cast<unsigned short>(std::atoi(url.c_str() + colon + 1));
}

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
  p.port = url_port(nlohmann::json::parse(*line).at("url").get<std::string>());
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
