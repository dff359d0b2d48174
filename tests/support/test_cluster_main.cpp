// The pg_cluster test fixture: `test_cluster start DIR` creates or attaches to the cluster for DIR,
// prepares a fresh migrated template database and leaves the server running for the tests;
// `test_cluster stop DIR` shuts it down after the last test.
#include <cstdio>
#include <exception>
#include <string>

#include "inventory/db/embedded_cluster.hpp"
#include "tests/support/test_cluster.hpp"

int main(int argc, char** argv) {
  using namespace ironhold;
  const std::string command = argc == 3 ? argv[1] : "";
  if (command != "start" && command != "stop") {
    std::fprintf(stderr, "usage: %s start|stop DIR\n", argv[0]);
    return 2;
  }
  try {
    if (command == "start") {
      auto cluster = db::EmbeddedCluster::start(
          {.data_dir = argv[2], .start_timeout = std::chrono::seconds(120), .durable = false});
      test::prepare_template(*cluster);
      cluster->detach();
      std::printf("test cluster ready: %s\n", cluster->superuser_url().c_str());
    } else {
      bool stopped = db::stop_embedded_cluster(argv[2]);
      std::printf("test cluster %s\n", stopped ? "stopped" : "was not running");
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "test_cluster %s %s: %s\n", command.c_str(), argv[2], e.what());
    return 1;
  }
}
