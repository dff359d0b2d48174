#include "cloudapi/common/account_pace.hpp"

#include <algorithm>

namespace ironhold::cloudapi {

bmc::http::Pace account_pace(const CloudAccountTarget& account, double default_per_second) {
  double rate = default_per_second;
  if (account.options.is_object()) {
    const auto it = account.options.find("requests_per_second");
    if (it != account.options.end() && it->is_number() && it->get<double>() > 0)
      rate = it->get<double>();
  }
  return {"cloud-account:" + account.account_id, rate, std::max(1.0, rate)};
}

}  // namespace ironhold::cloudapi
