#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace ironhold {

// Validates a BMC node's `options` for the endpoint's scheme ("https", "http", "ipmi", or "" for a
// bare host whose transport a probe decides later). Copies the public options to `out` and the
// write-only IPMI key to `kg`. Unknown or inapplicable options are unprocessable (422).
//   tls: pin (default) | ca | insecure     (https)
//   ca_bundle: PEM certificates            (https, with tls: ca)
//   max_requests_per_second: 0.1..1000     (https, http; default: not paced, one at a time)
//   cipher_suites: [17, 3]                 (ipmi; ordered preference of 17, 3, 0)
//   privilege: operator | admin            (ipmi)
//   kg: hex BMC key, write-only            (ipmi)
void validate_bmc_options(const nlohmann::json& in, const std::string& scheme, nlohmann::json& out,
                          std::optional<std::string>& kg);

}  // namespace ironhold
