// The pg_cluster test fixture: `test_cluster start DIR` creates or attaches to the cluster for DIR,
// prepares a fresh migrated template database and leaves the server running for the tests;
// `test_cluster stop DIR` shuts it down after the last test.
//
// Several ctest runs may share one build tree at once (a developer's two terminals, a whole suite
// beside one test): each run is a user of the cluster, named by its ctest process (the fixture's
// parent), and listed in DIR/ctest-users under a lock. Only the first user prepares the template
// and only the last one stops the server; users whose process is gone (a ctest killed before its
// stop) are dropped from the list, so they neither keep the server up nor its template stale.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "inventory/db/embedded_cluster.hpp"
#include "tests/support/test_cluster.hpp"

namespace {

// The running ctest processes listed in `file`, with `add` added or `remove` removed; written back.
std::set<pid_t> update_users(const std::filesystem::path& file, pid_t add, pid_t remove) {
  std::set<pid_t> users;
  {
    std::ifstream in(file);
    for (pid_t pid; in >> pid;)
      if (pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM)) users.insert(pid);
  }
  if (add > 0) users.insert(add);
  users.erase(remove);
  std::ofstream out(file, std::ios::trunc);
  for (const pid_t pid : users) out << pid << "\n";
  return users;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ironhold;
  const std::string command = argc == 3 ? argv[1] : "";
  if (command != "start" && command != "stop") {
    std::fprintf(stderr, "usage: %s start|stop DIR\n", argv[0]);
    return 2;
  }
  try {
    const std::filesystem::path dir = argv[2];
    std::filesystem::create_directories(dir);
    const int lock = ::open((dir / "ctest-users.lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (lock < 0 || ::flock(lock, LOCK_EX) != 0)
      throw std::runtime_error("cannot lock " + (dir / "ctest-users.lock").string());
    const pid_t run = ::getppid();
    const auto users_file = dir / "ctest-users";
    if (command == "start") {
      const bool first = update_users(users_file, 0, 0).empty();
      auto cluster = db::EmbeddedCluster::start(
          {.data_dir = dir, .start_timeout = std::chrono::seconds(120), .durable = false});
      if (first) test::prepare_template(*cluster);
      cluster->detach();
      update_users(users_file, run, 0);
      std::printf("test cluster ready%s: %s\n", first ? "" : " (shared with another ctest run)",
                  cluster->superuser_url().c_str());
    } else {
      if (!update_users(users_file, 0, run).empty()) {
        std::printf("test cluster left running for another ctest run\n");
        return 0;
      }
      bool stopped = db::stop_embedded_cluster(dir);
      std::printf("test cluster %s\n", stopped ? "stopped" : "was not running");
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "test_cluster %s %s: %s\n", command.c_str(), argv[2], e.what());
    return 1;
  }
}
