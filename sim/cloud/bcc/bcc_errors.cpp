#include "sim/cloud/bcc/bcc_errors.hpp"

#include <nlohmann/json.hpp>

namespace ironhold::sim::cloud::bcc {

ApiReply error_reply(const BccFault& fault, const std::string& request_id) {
  ApiReply reply;
  reply.status = fault.status;
  reply.content_type = "application/json;charset=UTF-8";
  reply.headers.emplace_back("x-bce-request-id", request_id);
  reply.body =
      nlohmann::json{{"requestId", request_id}, {"code", fault.code}, {"message", fault.message}}
          .dump();
  return reply;
}

namespace faults {

// Statuses follow Baidu's common error code table (BCE API reference, "公共错误码").
BccFault access_denied(std::string why) {
  return {403, "AccessDenied", "Access denied. " + why};
}
BccFault invalid_auth_header() {
  return {400, "InvalidHTTPAuthHeader", "The Access Key ID is invalid."};
}
BccFault invalid_access_key_id() {
  return {403, "InvalidAccessKeyId",
          "The Access Key ID you provided does not exist in our records."};
}
BccFault signature_does_not_match() {
  return {400, "SignatureDoesNotMatch",
          "The request signature we calculated does not match the signature you provided. Check "
          "your Secret Access Key and signing method."};
}
BccFault request_expired(const std::string& timestamp) {
  return {400, "RequestExpired", "Request has expired. Timestamp date is " + timestamp + "."};
}
BccFault throttled() {
  // Baidu documents no throttling code for BCC; this stands for its gateway's rate limiting, and
  // the driver (like PROVIDERS.md says) treats any 429 as retryable.
  return {429, "RequestRateLimitExceeded", "Request rate limit exceeded, please try again later."};
}
BccFault internal_error() {
  return {500, "InternalError", "We encountered an internal error. Please try again."};
}
BccFault no_such_instance(const std::string& id) {
  return {404, "NoSuchObject", "The instance " + id + " does not exist."};
}
BccFault invalid_status(const std::string& id, const std::string& status, const std::string& verb) {
  return {409, "Instance.InvalidStatus",
          "Cannot " + verb + " instance " + id + " while its status is " + status + "."};
}
BccFault malformed_json() {
  return {400, "MalformedJSON", "The JSON you provided was not well-formed."};
}
BccFault invalid_parameter(std::string message) {
  return {400, "InvalidParameter", std::move(message)};
}
BccFault invalid_uri() {
  return {400, "InvalidURI", "Could not parse the specified URI."};
}
BccFault not_found_route() {
  return {404, "NoSuchObject", "The requested resource does not exist."};
}

}  // namespace faults
}  // namespace ironhold::sim::cloud::bcc
