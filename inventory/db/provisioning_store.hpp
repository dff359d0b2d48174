#pragma once
// Reprovisioning sessions of owned servers (migration 0006): a reprovision task opens one for its
// node; the node's installer finds it by MAC address and gets a script with a one-time call-back
// token; its call-back ends the session, which the task is waiting on. Tokens are kept only as
// SHA-256, and every script served replaces the previous token (a node that boots twice uses the
// newer one).
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "inventory/db/database.hpp"

namespace ironhold::db {

struct ProvisioningSession {
  std::string task_id, node_id, node_name, image;
  std::vector<std::string> macs;
  std::string state;  // waiting | booted | succeeded | failed | closed
  int script_fetches = 0;
  std::optional<std::string> script_fetched_at, fetched_by, called_back_at, message;
  nlohmann::json report = nullptr;  // the installer's call-back, less the token
  std::string created_at, expires_at;
  bool expired = false;  // by the database's clock, so that instances' clocks do not matter

  bool open() const { return state == "waiting" || state == "booted"; }
};

// What GET /provisioning/ipxe serves: the session a MAC belongs to, with a fresh token.
struct ScriptGrant {
  std::string task_id, node_id, node_name, image, mac;
  std::string token;  // 64 hex digits; only its hash is stored
};

struct CallbackReport {
  bool succeeded = false;
  std::string message;
  nlohmann::json report = nlohmann::json::object();  // the body, less the token
  std::string from;                                  // the caller's address, for the trail
};

class ProvisioningStore {
 public:
  explicit ProvisioningStore(Database& db) : db_(db) {}

  // The task's session: the one it opened before (a resumed task), else a new one for the node's
  // NIC MAC addresses as inspected (or `mac` when given), valid for `lifetime`. Throws
  // unprocessable when no MAC address is known, naming what to do.
  ProvisioningSession open(const std::string& task_id, const std::string& node_id,
                           const std::string& image, const std::optional<std::string>& mac,
                           std::chrono::seconds lifetime);
  std::optional<ProvisioningSession> find(const std::string& task_id);
  // The open, unexpired session whose node has this (canonical) MAC, with a new token; nothing
  // when there is none (the node is not being reprovisioned: it boots from its disk).
  std::optional<ScriptGrant> grant_script(const std::string& mac, const std::string& from);
  // Ends the session `token` belongs to with the installer's report (an event and an audit entry
  // on the node). Throws forbidden for a token that is unknown, used already, or whose session has
  // ended or expired.
  ProvisioningSession complete(const std::string& token, const CallbackReport& callback);
  // Ends the task's session if it is still open (the task timed out, failed or was cancelled),
  // so its token is refused from now on.
  void close(const std::string& task_id, const std::string& why);

 private:
  Database& db_;
};

}  // namespace ironhold::db
