#include "web/route.hpp"

namespace ironhold::web {

std::string_view to_string(Access access) {
  switch (access) {
    case Access::anyone:
      return "anyone";
    case Access::viewer:
      return "viewer";
    case Access::operator_:
      return "operator";
    case Access::admin:
      return "admin";
    case Access::auditor:
      return "auditor";
    case Access::signed_in:
      return "signed in";
    case Access::global_admin:
      return "admin in every project";
    case Access::global_auditor:
      return "auditor in every project";
  }
  return "admin in every project";
}

unsigned capability_of(Access access) {
  switch (access) {
    case Access::anyone:
    case Access::signed_in:
      return 0;
    case Access::viewer:
      return cap_read;
    case Access::operator_:
      return cap_act;
    case Access::admin:
    case Access::global_admin:
      return cap_manage;
    case Access::auditor:
    case Access::global_auditor:
      return cap_audit;
  }
  return cap_manage;
}

bool permits(Access access, const Permissions& permissions) {
  const unsigned needed = capability_of(access);
  if (needed == 0) return true;
  if (access == Access::global_admin || access == Access::global_auditor)
    return permissions.can_everywhere(needed);
  return permissions.can_anywhere(needed);
}

}  // namespace ironhold::web
