#include "sim/ipmi/users.hpp"

namespace ironhold::sim::ipmi {

std::vector<User> default_users(const std::string& admin_name, const std::string& admin_password) {
  std::vector<User> users;
  users.push_back({admin_name, admin_password, kPrivAdministrator});
  if (admin_name != "operator") users.push_back({"operator", "operator", kPrivOperator});
  if (admin_name != "readonly") users.push_back({"readonly", "readonly", kPrivUser});
  return users;
}

const char* privilege_name(std::uint8_t privilege) {
  switch (privilege) {
    case kPrivCallback:
      return "CALLBACK";
    case kPrivUser:
      return "USER";
    case kPrivOperator:
      return "OPERATOR";
    case kPrivAdministrator:
      return "ADMINISTRATOR";
    default:
      return "NONE";
  }
}

}  // namespace ironhold::sim::ipmi
