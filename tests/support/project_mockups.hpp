#pragma once
// The Redfish mockups the project writes and keeps (mockups/ at the top of the repository), the
// ones the demo serves; unlike ../shared, every clone has them.
#include <filesystem>
#include <string>

namespace ironhold::test {

inline std::filesystem::path project_mockups() {
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "mockups";
}

inline std::filesystem::path project_mockup(const std::string& name) {
  return project_mockups() / name;
}

}  // namespace ironhold::test
