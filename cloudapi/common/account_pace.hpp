#pragma once
// Each cloud account's own request rate: every request a driver sends for an account is paced
// under it (bmc/http/request_pacer.hpp), so one account's big listing never spends another's
// quota and no account is driven into its provider's throttling.
#include "bmc/http/request_pacer.hpp"
#include "inventory/drivers/cloud_driver.hpp"

namespace ironhold::cloudapi {

// The account's options.requests_per_second when set, else `default_per_second` (the provider's
// documented or customary budget); bursts of up to a second's worth.
bmc::http::Pace account_pace(const CloudAccountTarget& account, double default_per_second);

}  // namespace ironhold::cloudapi
