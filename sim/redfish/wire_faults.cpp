#include "sim/redfish/wire_faults.hpp"

#include "sim/redfish/errors.hpp"

namespace ironhold::sim::redfish::wire {

namespace {
constexpr std::string_view loop_marker = "ironhold_redirect=1";
}

Response redirect_loop(const std::string& target) {
  std::string location;
  const auto at = target.find(loop_marker);
  if (at != std::string::npos) {
    location = target.substr(0, at > 0 ? at - 1 : 0);  // drop "?marker" or "&marker"
    if (location.empty()) location = "/";
  } else {
    location =
        target + (target.find('?') == std::string::npos ? "?" : "&") + std::string(loop_marker);
  }
  Response res{http::status::found, 11};
  res.set(http::field::location, location);
  res.set(http::field::content_type, "text/plain");
  res.body() = "Moved to " + location + "\n";
  res.prepare_payload();
  return res;
}

Response server_error(bool unavailable) {
  if (!unavailable)
    return redfish_error(http::status::internal_server_error, "InternalError",
                         "The request failed due to an internal service error.");
  auto res = redfish_error(http::status::service_unavailable, "ServiceTemporarilyUnavailable",
                           "The service is temporarily unavailable. Retry in 1 seconds.", {"1"});
  res.set(http::field::retry_after, "1");
  return res;
}

}  // namespace ironhold::sim::redfish::wire
