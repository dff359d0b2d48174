// What roles amount to where: grants per project and in every project, the scope a list is
// filtered by, and tokens that narrow a user's roles to one project and one role.
#include "inventory/model/access.hpp"

#include <catch2/catch.hpp>

// This file's names, apart from those of the other test files compiled with it.
namespace access_test {

using namespace ironhold;

TEST_CASE("grants add up per project, and a grant in every project covers each one", "[access]") {
  const auto p =
      Permissions::of({{"lab", Role::operator_}, {"lab", Role::auditor}, {"prod", Role::viewer}});
  CHECK(p.can(cap_read | cap_act | cap_audit, "lab"));
  CHECK_FALSE(p.can(cap_manage, "lab"));
  CHECK(p.can(cap_read, "prod"));
  CHECK_FALSE(p.can(cap_act, "prod"));
  CHECK_FALSE(p.can(cap_read, "other"));
  CHECK(p.can_anywhere(cap_act));
  CHECK_FALSE(p.can_everywhere(cap_read));
  CHECK(p.scope(cap_read) == std::vector<std::string>{"lab", "prod"});
  CHECK(p.scope(cap_act) == std::vector<std::string>{"lab"});
  CHECK(p.scope(cap_manage) == std::vector<std::string>{});

  auto global = Permissions::of({{std::nullopt, Role::viewer}, {"lab", Role::admin}});
  CHECK(global.can(cap_read, "anything"));
  CHECK_FALSE(global.can(cap_act, "anything"));
  CHECK(global.can(cap_manage, "lab"));
  CHECK(global.scope(cap_read) == std::nullopt);  // every project
  CHECK(global.scope(cap_manage) == std::vector<std::string>{"lab"});
  CHECK(Permissions().empty());
  CHECK_FALSE(Permissions().can_anywhere(cap_read));
}

TEST_CASE("a token narrows its user's roles to one project and one role, never widens them",
          "[access]") {
  const auto user = Permissions::of({{"lab", Role::operator_}, {"prod", Role::admin}});

  const auto lab_only = user.narrowed(std::string("lab"), std::nullopt);
  CHECK(lab_only.can(cap_act, "lab"));
  CHECK_FALSE(lab_only.can(cap_read, "prod"));

  const auto read_only = user.narrowed(std::nullopt, Role::viewer);
  CHECK(read_only.can(cap_read, "lab"));
  CHECK(read_only.can(cap_read, "prod"));
  CHECK_FALSE(read_only.can(cap_act, "lab"));
  CHECK_FALSE(read_only.can(cap_manage, "prod"));

  // Asking for admin where the user is only an operator gives what both allow: an operator.
  const auto wider = user.narrowed(std::string("lab"), Role::admin);
  CHECK(wider.can(cap_act, "lab"));
  CHECK_FALSE(wider.can(cap_manage, "lab"));

  // A project the user holds nothing in: nothing at all.
  CHECK(user.narrowed(std::string("elsewhere"), std::nullopt).empty());

  // A global role narrowed to a project holds in that project only.
  const auto everywhere = Permissions::of({{std::nullopt, Role::admin}});
  const auto one = everywhere.narrowed(std::string("lab"), Role::auditor);
  CHECK(one.can(cap_audit, "lab"));
  CHECK_FALSE(one.can(cap_act, "lab"));
  CHECK_FALSE(one.can(cap_read, "prod"));
  CHECK_FALSE(one.can_everywhere(cap_read));
}

TEST_CASE("project names are lower-case slugs", "[access]") {
  CHECK(valid_project_name("default"));
  CHECK(valid_project_name("gpu-lab.2"));
  CHECK_FALSE(valid_project_name(""));
  CHECK_FALSE(valid_project_name("Lab"));
  CHECK_FALSE(valid_project_name("-lab"));
  CHECK_FALSE(valid_project_name("lab/x"));
  CHECK_FALSE(valid_project_name(std::string(64, 'a')));
}

}  // namespace access_test
