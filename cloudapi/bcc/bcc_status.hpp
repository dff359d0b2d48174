#pragma once
// BCC's InstanceModel.status values (the Go SDK's InstanceStatus enum) translated to the
// normalized power state, in one table. Unknown values read as unknown, never as off.
#include <optional>
#include <span>
#include <string_view>

#include "inventory/model/enums.hpp"

namespace ironhold::cloudapi::bcc {

struct BccStatusMeaning {
  std::string_view status;  // as BCC spells it
  PowerState power = PowerState::unknown;
  bool gone = false;                       // released: the node is retired
  std::optional<Health> health;            // set where the status itself says something
  std::optional<std::string_view> detail;  // status_detail, e.g. "expired"
};

// Every status the Go SDK knows, with its meaning.
std::span<const BccStatusMeaning> bcc_status_table();

// The meaning of `status`; an unknown one gives power unknown and nothing else.
BccStatusMeaning bcc_status_meaning(std::string_view status);

}  // namespace ironhold::cloudapi::bcc
