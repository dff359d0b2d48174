#pragma once
// The serial consoles of owned servers (migration 0027): the node's BMC as a driver target, the
// sessions operators had (who, writer or not, from when to when, bytes each way) and what the
// host printed, read back in order (kept --console-log-days: run_maintenance prunes it).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inventory/crypto/secret_box.hpp"
#include "inventory/db/database.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold::db {

// What opening a node's console needs: its driver and BMC (a System behind a shared BMC talks
// through its parent's endpoint), and what the API checks first.
struct SerialConsoleTarget {
  std::string node_id, node_name, project;
  std::string driver;
  std::string system_id;
  DriverTarget target;
  bool cloud = false;  // a cloud instance: its console is the provider's, not ours
  bool retired = false;
  bool rotating = false;  // its BMC's password is being changed (migration 0032): no new login
};

struct SerialConsoleSession {
  long long id = 0;
  std::string node_id, principal, protocol;
  bool writer = false;
  std::string opened_at;                   // RFC 3339
  std::optional<std::string> closed_at;    // nothing while it is open
  std::optional<double> duration_seconds;  // closed ones
  std::optional<std::string> end_reason;
  long long bytes_in = 0, bytes_out = 0;
};

struct SerialConsoleChunk {
  long long seq = 0;
  std::string at;    // RFC 3339, when the console received it
  std::string data;  // bytes as the host printed them
};

class SerialConsoleStore {
 public:
  SerialConsoleStore(Database& db, const crypto::SecretBox& box) : db_(db), box_(box) {}

  // Nothing when there is no such node.
  std::optional<SerialConsoleTarget> target(const std::string& node_id);

  // Pins the BMC's SSH host key at its first console (`bmc_node_id`: the node that has the BMC,
  // a shared BMC's parent); false when one was pinned already (that one stays).
  bool pin_ssh_host_key(const std::string& bmc_node_id, const std::string& host_key);

  long long open_session(const std::string& node_id, const std::string& project,
                         const std::string& principal, bool writer, const std::string& protocol);
  // Once; a session closed before keeps its first end.
  void close_session(long long id, const std::string& end_reason, long long bytes_in,
                     long long bytes_out);
  std::vector<SerialConsoleSession> sessions(const std::string& node_id, int limit);

  // Output the host printed, in order; empty chunks are not written, long ones are split.
  void append(const std::string& node_id, std::string_view bytes);
  // Chunks after `after_seq` (0: from the oldest kept), at most `limit`, oldest first; with
  // `since`, only those received at or after it (RFC 3339).
  std::vector<SerialConsoleChunk> log(const std::string& node_id, long long after_seq,
                                      const std::optional<std::string>& since, int limit);

 private:
  Database& db_;
  const crypto::SecretBox& box_;
};

}  // namespace ironhold::db
