// `test_slapd LDIF`: a real OpenLDAP server (tests/support/server/slapd_server.hpp) for tests that
// are not C++, the browser scenarios. Prints one JSON line, {"ldap_url", "ldaps_url", "ca_file"},
// once slapd answers, and runs until its standard input closes or it gets SIGTERM or SIGINT; then
// stops slapd and removes its files.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <nlohmann/json.hpp>

#include "tests/support/server/slapd_server.hpp"

namespace {

volatile sig_atomic_t stop_asked = 0;

void ask_stop(int) {
  stop_asked = 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: test_slapd LDIF\n");
    return 2;
  }
  if (const auto missing = ironhold::test::SlapdServer::missing_tools(); !missing.empty()) {
    std::fprintf(stderr, "test_slapd: %s not installed\n", missing.c_str());
    return 77;
  }
  // No SA_RESTART: the read below returns at the signal.
  struct sigaction action {};
  action.sa_handler = ask_stop;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  try {
    ironhold::test::SlapdServer slapd(argv[1]);
    const nlohmann::json ready = {{"ldap_url", slapd.ldap_url()},
                                  {"ldaps_url", slapd.ldaps_url()},
                                  {"ca_file", slapd.ca_file().string()}};
    std::printf("%s\n", ready.dump().c_str());
    std::fflush(stdout);
    char buffer[256];
    while (!stop_asked && ::read(0, buffer, sizeof buffer) > 0) {
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "test_slapd: %s\n", e.what());
    return 1;
  }
}
