#include "cloudapi/bcc/bcc_status.hpp"

#include <array>

namespace ironhold::cloudapi::bcc {
namespace {

constexpr auto on = PowerState::on;
constexpr auto off = PowerState::off;
constexpr auto moving = PowerState::transitioning;

const std::array<BccStatusMeaning, 12> kTable{{
    {"Running", on},
    {"Stopped", off},
    {"Starting", moving},
    {"Stopping", moving},
    // Resizing, snapshotting, imaging and moving VPC all keep the instance busy until done; a
    // rebuild shows as one of these (BCC has no "Rebuilding") until it is Running again.
    {"Scaling", moving},
    {"SnapshotProcessing", moving},
    {"ImageProcessing", moving},
    {"ChangeVpc", moving},
    // Whether an instance in Error runs is not knowable from the status.
    {"Error", PowerState::unknown, false, Health::critical, "instance status Error"},
    // A prepaid instance whose term lapsed: stopped, and it cannot start until renewed.
    {"Expired", off, false, std::nullopt, "expired"},
    {"Recycled", off, true},
    {"Deleted", off, true},
}};

}  // namespace

std::span<const BccStatusMeaning> bcc_status_table() {
  return kTable;
}

BccStatusMeaning bcc_status_meaning(std::string_view status) {
  for (const auto& meaning : kTable)
    if (meaning.status == status) return meaning;
  return BccStatusMeaning{status};
}

}  // namespace ironhold::cloudapi::bcc
