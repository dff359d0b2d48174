#pragma once
// The simulated BCC's error answers, in one catalogue: Baidu's error body {"requestId", "code",
// "message"} with the x-bce-request-id header, and the HTTP status Baidu's common error table
// gives each code.
#include <stdexcept>
#include <string>

#include "sim/cloud/api_server.hpp"

namespace ironhold::sim::cloud::bcc {

struct BccFault {
  unsigned status = 500;
  std::string code;
  std::string message;
};

// Thrown by the fleet's operations and turned into the reply by the simulator.
class BccApiError : public std::runtime_error {
 public:
  explicit BccApiError(BccFault fault)
      : std::runtime_error(fault.message), fault_(std::move(fault)) {}
  const BccFault& fault() const { return fault_; }

 private:
  BccFault fault_;
};

ApiReply error_reply(const BccFault& fault, const std::string& request_id);

namespace faults {
BccFault access_denied(std::string why);
BccFault invalid_auth_header();
BccFault invalid_access_key_id();
BccFault signature_does_not_match();
BccFault request_expired(const std::string& timestamp);
BccFault throttled();
BccFault internal_error();
BccFault no_such_instance(const std::string& id);
BccFault invalid_status(const std::string& id, const std::string& status, const std::string& verb);
BccFault malformed_json();
BccFault invalid_parameter(std::string message);
BccFault invalid_uri();
BccFault not_found_route();
}  // namespace faults

}  // namespace ironhold::sim::cloud::bcc
