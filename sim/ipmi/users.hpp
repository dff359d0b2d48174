#pragma once
// The accounts of a simulated IPMI BMC: the --user/--password administrator plus two fixed ones,
// so clients meet privilege limits that are enforced (IPMI v2.0 section 6.8).
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace ironhold::sim::ipmi {

// Privilege levels as RMCP+ and Set Session Privilege Level code them.
inline constexpr std::uint8_t kPrivNone = 0;  // session-less commands
inline constexpr std::uint8_t kPrivCallback = 1;
inline constexpr std::uint8_t kPrivUser = 2;
inline constexpr std::uint8_t kPrivOperator = 3;
inline constexpr std::uint8_t kPrivAdministrator = 4;

struct User {
  std::string name;
  std::string password;  // the RAKP key: at most 20 bytes
  std::uint8_t privilege = kPrivUser;
  unsigned failures = 0;  // consecutive failed logins
  std::chrono::steady_clock::time_point locked_until{};
};

// The administrator given on the command line, then "operator"/"operator" (OPERATOR) and
// "readonly"/"readonly" (USER: reads sensors, SEL and FRU, cannot change power or boot).
std::vector<User> default_users(const std::string& admin_name, const std::string& admin_password);

// "ADMINISTRATOR", "OPERATOR", ... for listings.
const char* privilege_name(std::uint8_t privilege);

}  // namespace ironhold::sim::ipmi
