#pragma once
// `ironhold audit list|verify`: the CLI over /api/v1/audit, for auditors and admins. `verify`
// exits 1 when the chain shows a modified, deleted, inserted or reordered entry.
#include <span>
#include <string>

namespace ironhold::cli {

int run_audit_command(std::span<const std::string> argv);

}  // namespace ironhold::cli
