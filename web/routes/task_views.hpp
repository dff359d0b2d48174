#pragma once
// Shared by the routes that create and show tasks.
#include "inventory/error.hpp"
#include "web/services.hpp"

namespace ironhold::web {

inline db::TaskStore& task_store_of(Services& s) {
  if (!s.tasks) throw Error(ErrorKind::unavailable, "tasks are unavailable on this server");
  return *s.tasks;
}

}  // namespace ironhold::web
