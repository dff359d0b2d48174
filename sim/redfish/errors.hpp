#pragma once
// The simulator's one catalogue of Redfish error responses: a status and the standard
// {"error": {"code", "message", "@Message.ExtendedInfo": [...]}} body with a Base registry message.
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ironhold::sim::redfish {

namespace http = boost::beast::http;
using Response = http::response<http::string_body>;

// The Base registry version our message ids name ("Base.1.16.0.NoValidSession").
inline constexpr const char* base_registry = "Base.1.16.0";

// A JSON response with the headers every Redfish answer carries.
Response json_response(http::status status, const nlohmann::json& body);
// 204 with the headers every Redfish answer carries (an action or PATCH that succeeded).
Response no_content();

// The ComputerSystem reset action's name in a System's Actions.
inline constexpr const char* reset_action = "#ComputerSystem.Reset";

Response redfish_error(http::status status, const std::string& message_id,
                       const std::string& message, const std::vector<std::string>& args = {});

Response no_valid_session();                                                                 // 401
Response resource_missing(const std::string& url);                                           // 404
Response method_not_allowed(const std::string& url);                                         // 405
Response malformed_json();                                                                   // 400
Response precondition_failed();                                                              // 412
Response action_parameter_missing(const std::string& action, const std::string& parameter);  // 400
Response action_parameter_value_not_in_list(const std::string& value, const std::string& parameter,
                                            const std::string& action);                      // 400
Response property_unknown(const std::string& property);                                      // 400
Response property_value_not_in_list(const std::string& value, const std::string& property);  // 400
Response property_value_type_error(const std::string& value, const std::string& property);   // 400
Response property_missing(const std::string& property);                                      // 400
// A body that is not even malformed JSON (a broken multipart body); `detail` says what is wrong.
Response unrecognized_request_body(const std::string& detail);  // 400
// A body of a media type the URI does not take; `wanted` names the one it does.
Response unsupported_media_type(const std::string& wanted);                                   // 415
Response property_value_format_error(const std::string& value, const std::string& property);  // 400
Response property_not_writable(const std::string& property);                                  // 400
Response create_limit_reached_for_resource();                                                 // 400
Response action_parameter_unknown(const std::string& action, const std::string& parameter);   // 400
Response action_parameter_value_type_error(const std::string& value, const std::string& parameter,
                                           const std::string& action);  // 400
Response action_parameter_value_format_error(const std::string& value, const std::string& parameter,
                                             const std::string& action);  // 400
// iDRAC 9's answer to a login past its session limit: 503, a GeneralError holding RAC0218 (the
// body as iDRAC firmware sends it, quoted in gofish issue 75 and check_redfish issue 89).
Response idrac_session_limit();  // 503
// A BMC that cannot take another request now: 503 without Retry-After.
Response service_busy();  // 503
// The service at `url` (an EventService with ServiceEnabled false) takes no requests.
Response service_disabled(const std::string& url);  // 400

}  // namespace ironhold::sim::redfish
