#pragma once
// The simulated BCC's check of a request's bce-auth-v1 Authorization header, with the same
// signer the driver uses (cloudapi/bcc/bce_signer): the canonical request is rebuilt from what
// arrived on the wire (the path and query decoded, then encoded the canonical way; only the
// headers the client listed as signed).
#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "sim/cloud/api_server.hpp"
#include "sim/cloud/bcc/bcc_errors.hpp"

namespace ironhold::sim::cloud::bcc {

// Which fault the request earns, or nullopt when it is properly signed by a known key.
// `secret_keys` maps access keys to secret keys; `now` is the server's clock.
std::optional<BccFault> check_bce_auth(const ApiRequest& request,
                                       const std::map<std::string, std::string>& secret_keys,
                                       std::chrono::system_clock::time_point now);

// The query of a target as decoded (name, value) pairs; a name without '=' has no value.
// Throws BccApiError (InvalidURI) on a bad percent escape.
std::vector<std::pair<std::string, std::optional<std::string>>> decode_query(
    std::string_view query);

}  // namespace ironhold::sim::cloud::bcc
