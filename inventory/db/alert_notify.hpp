#pragma once
// Internal to inventory/db/: turns the alert changes an evaluation (or an event trigger) marked
// into outbox rows, one per receiver that wants the alert's project and severity, unless the
// change is suppressed: its node is in maintenance, an active silence of its project selects its
// node, or it is flapping. Suppressed changes are cleared too: a silence does not queue them for
// later.
#include <pqxx/pqxx>

namespace ironhold::db {

// Returns the outbox rows written.
int write_notifications(pqxx::work& tx);

}  // namespace ironhold::db
