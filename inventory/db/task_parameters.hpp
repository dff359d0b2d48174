#pragma once
// Internal to inventory/db/: the node a task request names and the parameters its task is stored
// with, checked per kind (an owned server's reprovision gets its image, a firmware update what its
// image is, a BIOS task its baseline merged and checked, a rotation its new password) before any
// task is made.
#include <optional>
#include <pqxx/pqxx>
#include <string>

#include "inventory/db/task_store.hpp"

namespace ironhold::db {

struct TargetNode {
  std::string id, name;
  Source source = Source::bmc;
  bool maintenance = false;
  Lifecycle lifecycle = Lifecycle::enrolled;
  std::string driver;                // "redfish", "ipmi", "openstack", ...
  std::optional<std::string> model;  // the server model its inventory reports
};

// The node in service a request names (by id or by name); not_found otherwise.
TargetNode resolve_node(pqxx::work& tx, const std::string& id_or_name);

// Refuses an action the node cannot take (its source, driver, lifecycle or maintenance).
void check_action_fits(const NewTask& task, const TargetNode& node);

// The task as it will be stored for `node`, with its kind's parameters checked and completed.
NewTask task_for_node(pqxx::work& tx, const NewTask& request, const TargetNode& node,
                      const Refusals& refused);

}  // namespace ironhold::db
