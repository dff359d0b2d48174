#pragma once
// The name an instance writes into the leases it takes (polls, account syncs, tasks) when it was
// given none: unique per process, readable in the tables ("ironhold-3fa9c2d41b07").
#include <string>

namespace ironhold {

std::string random_lease_owner();

}  // namespace ironhold
