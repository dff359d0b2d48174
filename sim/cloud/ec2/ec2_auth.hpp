#pragma once
// How the EC2 simulator checks a request's SigV4 signature, with the same signer the driver uses
// (cloudapi/ec2/sigv4), answering as EC2 does: 401 AuthFailure for an unknown key, 403
// SignatureDoesNotMatch for a wrong signature, 400 RequestExpired for a stale x-amz-date.
#include <chrono>
#include <optional>
#include <string>

#include "sim/cloud/api_server.hpp"

namespace ironhold::sim::cloud::ec2 {

struct AuthSettings {
  std::string access_key_id;
  std::string secret_access_key;
  std::optional<std::string> session_token;  // when set, requests must carry exactly this one
  std::string region;
  std::chrono::seconds max_clock_skew{300};
};

// Nothing when the request is signed with the accepted key; else EC2's error answer.
std::optional<ApiReply> check_signature(const ApiRequest& request, const AuthSettings& settings,
                                        std::chrono::system_clock::time_point now);

}  // namespace ironhold::sim::cloud::ec2
