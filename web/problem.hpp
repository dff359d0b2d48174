#pragma once
// The one catalogue of error responses: RFC 9457 application/problem+json.
//   {"type": "https://ironhold.dev/problems/not-found", "title": "Not Found", "status": 404,
//    "detail": "no node has the id or name \"x\"", "instance": "/api/v1/nodes/x",
//    "request_id": "…", "field": "…"}
#include <string>
#include <string_view>

#include "inventory/error.hpp"
#include "web/http.hpp"

namespace ironhold::web {

struct ProblemContext {
  std::string_view instance;    // the request path
  std::string_view request_id;
  unsigned version = 11;
};

Response problem(http::status status, std::string_view detail, const ProblemContext& ctx,
                 std::string_view field = {});
// The status an ironhold::Error kind maps to.
http::status status_of(ErrorKind kind);
Response problem(const Error& error, const ProblemContext& ctx);

}  // namespace ironhold::web
