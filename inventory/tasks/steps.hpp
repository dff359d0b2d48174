#pragma once
// The step functions of each task kind. Each carries out its task against an ActionTarget through
// a TaskRun and returns how it ended, or nullopt when it was interrupted and must be handed back
// unfinished (lease lost, this instance stopping).
#include <boost/asio/awaitable.hpp>
#include <boost/asio/thread_pool.hpp>
#include <optional>

#include "inventory/db/provisioning_store.hpp"
#include "inventory/tasks/action_target.hpp"
#include "inventory/tasks/firmware_downloads.hpp"
#include "inventory/tasks/firmware_spool.hpp"
#include "inventory/tasks/task_run.hpp"

namespace ironhold::tasks {

boost::asio::awaitable<std::optional<TaskOutcome>> run_power_task(TaskRun& run,
                                                                  ActionTarget& target);
boost::asio::awaitable<std::optional<TaskOutcome>> run_boot_task(TaskRun& run,
                                                                 ActionTarget& target);
boost::asio::awaitable<std::optional<TaskOutcome>> run_identify_task(TaskRun& run,
                                                                     ActionTarget& target);
boost::asio::awaitable<std::optional<TaskOutcome>> run_inspect_task(TaskRun& run,
                                                                    ActionTarget& target);
boost::asio::awaitable<std::optional<TaskOutcome>> run_reprovision_task(TaskRun& run,
                                                                        ActionTarget& target);

// An owned server's BIOS settings written, applied by a reset and read back (bios_task.cpp).
boost::asio::awaitable<std::optional<TaskOutcome>> run_bios_task(TaskRun& run,
                                                                 ActionTarget& target);

// Where a credentials task stores the new password once it is verified: the node's credentials,
// through the task store on `pool` (never on an I/O thread), while `owner` holds the lease.
struct PasswordStore {
  db::TaskStore& store;
  boost::asio::thread_pool& pool;
  std::string owner;
};
// An owned server's BMC password changed, verified by a fresh login, then stored
// (credentials_task.cpp).
boost::asio::awaitable<std::optional<TaskOutcome>> run_credentials_task(TaskRun& run,
                                                                        ActionTarget& target,
                                                                        PasswordStore sink);

// An owned server's reprovision (over PXE, or from a boot image mounted as virtual media) works
// through the sessions its installer finds; the store is called on `pool` (never on an I/O
// thread). `downloads` signs the boot image's URL the BMC mounts (null: no virtual media).
struct PxeSessions {
  db::ProvisioningStore& store;
  boost::asio::thread_pool& pool;
  const FirmwareDownloads* downloads = nullptr;
};
boost::asio::awaitable<std::optional<TaskOutcome>> run_pxe_reprovision_task(TaskRun& run,
                                                                            ActionTarget& target,
                                                                            PxeSessions pxe);

// An owned server's firmware update through its BMC, which downloads the image from `downloads`
// (when it has a base URL) or is sent a copy made by `spool` (when not null).
boost::asio::awaitable<std::optional<TaskOutcome>> run_firmware_task(
    TaskRun& run, ActionTarget& target, const FirmwareDownloads& downloads,
    const FirmwareSpool* spool);

// "code: message", how steps and errors name a driver's failure.
inline std::string error_text(const DriverError& e) {
  return std::string(to_string(e.code)) + ": " + e.message;
}

// A failed outcome with this error.
inline std::optional<TaskOutcome> failed(TaskRun&, std::string error) {
  TaskOutcome out;
  out.state = TaskState::failed;
  out.error = std::move(error);
  return out;
}

}  // namespace ironhold::tasks
