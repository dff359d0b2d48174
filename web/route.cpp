#include "web/route.hpp"

namespace ironhold::web {

std::string_view to_string(Access access) {
  switch (access) {
    case Access::anyone: return "anyone";
    case Access::viewer: return "viewer";
    case Access::operator_: return "operator";
    case Access::admin: return "admin";
    case Access::auditor: return "auditor";
  }
  return "admin";
}

bool allows(Access access, Role role) {
  switch (access) {
    case Access::anyone: return true;
    case Access::viewer: return true;  // every role reads
    case Access::operator_: return role == Role::operator_ || role == Role::admin;
    case Access::admin: return role == Role::admin;
    case Access::auditor: return role == Role::auditor || role == Role::admin;
  }
  return false;
}

}  // namespace ironhold::web
