#include "inventory/tasks/password_rotation.hpp"

#include "inventory/tasks/task_engine.hpp"
#include "inventory/util/log.hpp"

namespace ironhold {

namespace {
constexpr int kRotationsPerScan = 50;  // a fleet due at once is rotated over several scans
}  // namespace

PasswordRotation::PasswordRotation(boost::asio::any_io_executor executor,
                                   boost::asio::thread_pool& pool, db::TaskStore& store,
                                   TaskEngine* engine, std::chrono::milliseconds interval)
    : store_(store),
      engine_(engine),
      interval_(interval),
      job_(std::move(executor), pool, interval, [this] { scan(); }) {}

void PasswordRotation::scan() {
  try {
    const auto created = store_.create_due_rotations(kRotationsPerScan);
    if (created.empty()) return;
    log::info("BMC password rotations started by the projects' policies",
              {{"tasks", created.size()}});
    if (engine_) engine_->wake();
  } catch (const std::exception& e) {
    log::warn("due BMC password rotations could not be started; retrying", {{"error", e.what()}});
  }
}

}  // namespace ironhold
