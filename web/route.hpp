#pragma once
// A route: a literal URL pattern ("/api/v1/nodes/{id}"), the method, the access it needs, the
// handler, and what the OpenAPI document says about it. Each resource registers its routes in one
// file under web/routes/.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "inventory/model/access.hpp"
#include "inventory/model/enums.hpp"
#include "web/http.hpp"

namespace ironhold::web {

// Who may call a route. The project-bound levels need the role's capability in at least one
// project (viewer < operator < admin; auditor routes accept auditors and admins); the handler then
// checks the project of what it touches, and lists only what the caller may see. signed_in needs
// any valid credential; the global_ levels need the capability in every project (users, other
// people's tokens, the firmware catalog, the whole audit chain).
enum class Access {
  anyone,
  viewer,
  operator_,
  admin,
  auditor,
  signed_in,
  global_admin,
  global_auditor
};
std::string_view to_string(Access access);
// The capability bits a route's access level asks for (0: none).
unsigned capability_of(Access access);
bool permits(Access access, const Permissions& permissions);

struct RequestContext;
using Handler = std::function<asio::awaitable<Response>(RequestContext&)>;

struct RouteDoc {
  std::string summary;
  nlohmann::json query_parameters = nlohmann::json::array();  // OpenAPI parameter objects
  nlohmann::json request_body = nullptr;                      // a schema, or null
  int success_status = 200;
  nlohmann::json response = nullptr;  // a schema, or null for no body
  std::string response_media_type = "application/json";
};

struct Route {
  http::verb method;
  std::string pattern;
  Access access;
  Handler handler;
  RouteDoc doc;
  // The handler reads the request body through RequestContext::body_reader as it arrives (an
  // upload bigger than memory) instead of the server reading it whole first.
  bool streams_body = false;
};

}  // namespace ironhold::web
