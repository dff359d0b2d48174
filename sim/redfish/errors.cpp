#include "sim/redfish/errors.hpp"

#include <nlohmann/json.hpp>

namespace ironhold::sim::redfish {

Response json_response(http::status status, const nlohmann::json& body) {
  Response res{status, 11};
  res.set(http::field::content_type, "application/json");
  res.set("OData-Version", "4.0");
  res.body() = body.dump();
  res.prepare_payload();
  return res;
}

Response redfish_error(http::status status, const std::string& message_id,
                       const std::string& message, const std::vector<std::string>& args) {
  const std::string code = std::string(base_registry) + "." + message_id;
  nlohmann::json info = {{"@odata.type", "#Message.v1_1_1.Message"},
                         {"MessageId", code},
                         {"Message", message},
                         {"MessageArgs", args},
                         {"Severity", "Warning"},
                         {"MessageSeverity", "Warning"},
                         {"Resolution", "Correct the request and resubmit it."}};
  nlohmann::json body = {{"error",
                          {{"code", code},
                           {"message", message},
                           {"@Message.ExtendedInfo", nlohmann::json::array({info})}}}};
  return json_response(status, body);
}

Response no_valid_session() {
  auto res = redfish_error(http::status::unauthorized, "NoValidSession",
                           "There is no valid session established with the implementation.");
  res.set(http::field::www_authenticate, "Basic realm=\"Redfish\"");
  return res;
}

Response resource_missing(const std::string& url) {
  return redfish_error(http::status::not_found, "ResourceMissingAtURI",
                       "The resource at the URI " + url + " was not found.", {url});
}

Response method_not_allowed(const std::string& url) {
  return redfish_error(http::status::method_not_allowed, "OperationNotAllowed",
                       "The HTTP method is not allowed on the URI " + url + ".", {url});
}

Response no_content() {
  Response res{http::status::no_content, 11};
  res.set("OData-Version", "4.0");
  res.prepare_payload();
  return res;
}

Response malformed_json() {
  return redfish_error(http::status::bad_request, "MalformedJSON",
                       "The request body submitted was malformed JSON and could not be parsed by "
                       "the receiving service.");
}

Response precondition_failed() {
  return redfish_error(
      http::status::precondition_failed, "PreconditionFailed",
      "The ETag supplied did not match the ETag required to change this resource.");
}

Response action_parameter_missing(const std::string& action, const std::string& parameter) {
  return redfish_error(http::status::bad_request, "ActionParameterMissing",
                       "The action " + action + " requires the parameter " + parameter +
                           " to be present in the request body.",
                       {action, parameter});
}

Response action_parameter_value_not_in_list(const std::string& value, const std::string& parameter,
                                            const std::string& action) {
  return redfish_error(http::status::bad_request, "ActionParameterValueNotInList",
                       "The value '" + value + "' for the parameter " + parameter +
                           " in the action " + action + " is not in the list of acceptable values.",
                       {value, parameter, action});
}

Response property_unknown(const std::string& property) {
  return redfish_error(
      http::status::bad_request, "PropertyUnknown",
      "The property " + property + " is not in the list of valid properties for the resource.",
      {property});
}

Response property_value_not_in_list(const std::string& value, const std::string& property) {
  return redfish_error(http::status::bad_request, "PropertyValueNotInList",
                       "The value '" + value + "' for the property " + property +
                           " is not in the list of acceptable values.",
                       {value, property});
}

Response property_value_type_error(const std::string& value, const std::string& property) {
  return redfish_error(http::status::bad_request, "PropertyValueTypeError",
                       "The value '" + value + "' for the property " + property +
                           " is not a type that the property can accept.",
                       {value, property});
}

Response property_missing(const std::string& property) {
  return redfish_error(
      http::status::bad_request, "PropertyMissing",
      "The property " + property + " is a required property and must be included in the request.",
      {property});
}

Response unrecognized_request_body(const std::string& detail) {
  return redfish_error(
      http::status::bad_request, "UnrecognizedRequestBody",
      "The service detected a malformed request body that it was unable to interpret: " + detail +
          ".");
}

// The Base registry has no message of its own for a wrong media type: GeneralError.
Response unsupported_media_type(const std::string& wanted) {
  return redfish_error(http::status::unsupported_media_type, "GeneralError",
                       "The request body's media type is not supported here: send " + wanted + ".");
}

Response property_value_format_error(const std::string& value, const std::string& property) {
  return redfish_error(http::status::bad_request, "PropertyValueFormatError",
                       "The value '" + value + "' for the property " + property +
                           " is not a format that the property can accept.",
                       {value, property});
}

Response property_not_writable(const std::string& property) {
  return redfish_error(
      http::status::bad_request, "PropertyNotWritable",
      "The property " + property + " is a read-only property and cannot be assigned a value.",
      {property});
}

Response create_limit_reached_for_resource() {
  return redfish_error(http::status::bad_request, "CreateLimitReachedForResource",
                       "The create operation failed because the resource has reached the limit "
                       "of possible resources.");
}

Response action_parameter_unknown(const std::string& action, const std::string& parameter) {
  return redfish_error(
      http::status::bad_request, "ActionParameterUnknown",
      "The action " + action + " was submitted with the invalid parameter " + parameter + ".",
      {action, parameter});
}

Response action_parameter_value_type_error(const std::string& value, const std::string& parameter,
                                           const std::string& action) {
  return redfish_error(http::status::bad_request, "ActionParameterValueTypeError",
                       "The value '" + value + "' for the parameter " + parameter +
                           " in the action " + action +
                           " is of a different type than the parameter can accept.",
                       {value, parameter, action});
}

Response action_parameter_value_format_error(const std::string& value, const std::string& parameter,
                                             const std::string& action) {
  return redfish_error(http::status::bad_request, "ActionParameterValueFormatError",
                       "The value '" + value + "' for the parameter " + parameter +
                           " in the action " + action +
                           " is of a different format than the parameter can accept.",
                       {value, parameter, action});
}

Response service_disabled(const std::string& url) {
  return redfish_error(http::status::bad_request, "ServiceDisabled",
                       "The operation failed because the service at " + url +
                           " is disabled and cannot accept requests.",
                       {url});
}

Response idrac_session_limit() {
  const nlohmann::json info = {
      {"Message", "The maximum number of user sessions is reached."},
      {"MessageArgs", nlohmann::json::array()},
      {"MessageArgs@odata.count", 0},
      {"MessageId", "IDRAC.2.4.RAC0218"},
      {"RelatedProperties", nlohmann::json::array()},
      {"RelatedProperties@odata.count", 0},
      {"Resolution", "Close one or more sessions before opening another session."},
      {"Severity", "Informational"}};
  const nlohmann::json body = {
      {"error",
       {{"@Message.ExtendedInfo", nlohmann::json::array({info})},
        {"code", "Base.1.7.GeneralError"},
        {"message", "A general error has occurred. See ExtendedInfo for more information"}}}};
  return json_response(http::status::service_unavailable, body);
}

Response service_busy() {
  return redfish_error(http::status::service_unavailable, "ServiceTemporarilyUnavailable",
                       "The service is temporarily unavailable.  Retry in 1 seconds.", {"1"});
}

}  // namespace ironhold::sim::redfish
