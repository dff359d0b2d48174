#pragma once
// Alerts for people (migration 0016): lists with filters, acknowledgement, silences, and the
// receivers notifications go to. What fires and resolves is decided by alert_evaluation; this is
// what the API reads and changes.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "inventory/crypto/secret_box.hpp"
#include "inventory/db/database.hpp"
#include "inventory/model/access.hpp"

namespace ironhold::db {

struct Alert {
  long long id = 0;
  std::string fingerprint, source, severity, state;
  std::optional<std::string> node_id, node_name, project;
  std::string summary;
  nlohmann::json details = nlohmann::json::object();
  std::string first_seen, last_seen;
  std::optional<std::string> resolved_at, acknowledged_by, acknowledged_at;
  int occurrences = 0;
  bool flapping = false;
};

struct AlertQuery {
  std::vector<std::string> states, severities, sources;  // empty: any
  std::optional<std::string> node_id;
  ProjectScope scope;  // set by the API from the caller's credentials
  int limit = 100;
  std::optional<long long> before_id;  // keyset paging, newest first
};

struct Silence {
  std::string id, project;
  nlohmann::json selector = nlohmann::json::object();
  std::string comment, starts_at, ends_at, created_by, created_at;
  std::optional<std::string> expired_at;
};

struct NewSilence {
  std::string project;
  nlohmann::json selector;  // validated as a node selector
  std::string comment;
  std::optional<std::string> starts_at;
  std::string ends_at;
  std::string created_by;
};

struct Receiver {
  std::string id, name, url, min_severity;
  std::optional<std::string> project;  // nullopt: every project's alerts
  std::string created_by, created_at;
};

struct NewReceiver {
  std::string name, url, secret, min_severity = "warning";
  std::optional<std::string> project;
  std::string created_by;
};

class AlertStore {
 public:
  AlertStore(Database& db, const crypto::SecretBox& box) : db_(db), box_(box) {}

  std::vector<Alert> list(const AlertQuery& query);
  std::optional<Alert> get(long long id);
  // Firing → acknowledged (who and when); 409 for a resolved alert. Acknowledging again is a
  // no-op that keeps the first.
  Alert acknowledge(long long id, const std::string& by);

  Silence add_silence(const NewSilence& silence);
  std::vector<Silence> silences(const ProjectScope& scope, bool include_ended);
  std::optional<Silence> silence(const std::string& id);
  Silence end_silence(const std::string& id);

  // The secret is sealed under the master key; it is never returned.
  Receiver add_receiver(const NewReceiver& receiver);
  std::vector<Receiver> receivers(const ProjectScope& scope);
  std::optional<Receiver> receiver(const std::string& id_or_name);
  Receiver remove_receiver(const std::string& id_or_name);

 private:
  Database& db_;
  const crypto::SecretBox& box_;
};

nlohmann::json to_json(const Alert& alert);
nlohmann::json to_json(const Silence& silence);
nlohmann::json to_json(const Receiver& receiver);

}  // namespace ironhold::db
