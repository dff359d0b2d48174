#include "tests/support/test_cluster.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <vector>

#include "inventory/crypto/primitives.hpp"
#include "inventory/db/migrator.hpp"

namespace ironhold::test {
namespace fs = std::filesystem;

void prepare_template(const db::EmbeddedCluster& cluster) {
  cluster.drop_database(template_database);
  cluster.create_database(template_database);
  db::migrate(cluster.owner_url(template_database));
}

namespace {

// Members are destroyed in reverse order: the cluster stops before its directory goes.
struct PrivateCluster {
  std::unique_ptr<TempDir> dir;
  std::unique_ptr<db::EmbeddedCluster> cluster;
};

PrivateCluster holder;

// Stopping a cluster and removing its directory use OpenSSL (the relocated paths are named by a
// hash), which frees itself at exit in a handler it registered when first used: this one,
// registered after that, runs before it. A static destructor would run after it and crash.
void stop_private_cluster() {
  holder.cluster.reset();
  holder.dir.reset();
}

}  // namespace

db::EmbeddedCluster& shared_cluster() {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  if (holder.cluster) return *holder.cluster;
  if (const char* dir = std::getenv("IRONHOLD_TEST_CLUSTER"); dir && *dir) {
    holder.cluster = db::EmbeddedCluster::start({.data_dir = dir, .durable = false});
    return *holder.cluster;
  }
  holder.dir = std::make_unique<TempDir>("ironhold-test-cluster");
  // Reachable by the `postgres` user when the tests run as root, so the files stay in the dir.
  fs::permissions(holder.dir->path(),
                  fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  // Throwaway: no fsync (the whole suite's commits waited on the disk otherwise).
  holder.cluster =
      db::EmbeddedCluster::start({.data_dir = holder.dir->path() / "data", .durable = false});
  prepare_template(*holder.cluster);
  std::atexit(stop_private_cluster);
  return *holder.cluster;
}

std::string unique_name(std::string_view prefix) {
  static std::mutex mutex;
  static std::mt19937_64 random{std::random_device{}()};
  std::lock_guard lock(mutex);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(random()));
  return std::string(prefix) + "_" + std::to_string(getpid()) + "_" + std::string(hex, 8);
}

TempDir::TempDir(std::string_view prefix) {
  std::string pattern = (fs::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
  if (!mkdtemp(pattern.data()))
    throw std::runtime_error("mkdtemp(" + pattern + ") failed: " + std::strerror(errno));
  path_ = pattern;
}

namespace {

// As root, a data directory the `postgres` user cannot enter (under a 0700 temporary directory)
// gets its cluster relocated to /var/lib/ironhold/clusters, and a socket path too long for
// sun_path moves to /tmp: neither goes with the directory. Every test that let `ironhold` make a
// data directory here left 50 MB behind per run until this removed them.
void remove_what_clusters_put_outside(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> data_dirs;
  for (auto it =
           fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().filename() == "postgres.location") data_dirs.push_back(it->path().parent_path());
    // A cluster's own files hold no data directories: don't walk thousands of them.
    if (it->path().filename() == "postgres" && it->is_directory(ec)) it.disable_recursion_pending();
  }
  for (const fs::path& data_dir : data_dirs) {
    try {
      db::stop_embedded_cluster(data_dir);  // a server a killed test process left running
    } catch (const std::exception&) {
      // Removed below all the same: there is nothing else to do with it in a destructor.
    }
    std::ifstream pointer(data_dir / "postgres.location");
    std::string base;
    std::getline(pointer, base);
    if (base.starts_with("/var/lib/ironhold/clusters/")) fs::remove_all(base, ec);
    const std::string hash = crypto::sha256_hex(fs::canonical(data_dir, ec).string()).substr(0, 16);
    if (!ec) fs::remove_all(fs::path("/tmp") / ("ironhold-" + hash), ec);
  }
}

}  // namespace

TempDir::~TempDir() {
  std::error_code ignored;
  remove_what_clusters_put_outside(path_);
  fs::remove_all(path_, ignored);
}

}  // namespace ironhold::test
