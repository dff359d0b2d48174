#include "web/problem.hpp"

#include <nlohmann/json.hpp>

namespace ironhold::web {
namespace {

std::string_view slug(http::status status) {
  switch (status) {
    case http::status::bad_request:
      return "bad-request";
    case http::status::unauthorized:
      return "unauthorized";
    case http::status::forbidden:
      return "forbidden";
    case http::status::not_found:
      return "not-found";
    case http::status::method_not_allowed:
      return "method-not-allowed";
    case http::status::conflict:
      return "conflict";
    case http::status::payload_too_large:
      return "payload-too-large";
    case http::status::unsupported_media_type:
      return "unsupported-media-type";
    case http::status::unprocessable_entity:
      return "unprocessable";
    case http::status::service_unavailable:
      return "unavailable";
    default:
      return "internal-error";
  }
}

}  // namespace

http::status status_of(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::invalid:
      return http::status::bad_request;
    case ErrorKind::unauthenticated:
      return http::status::unauthorized;
    case ErrorKind::forbidden:
      return http::status::forbidden;
    case ErrorKind::not_found:
      return http::status::not_found;
    case ErrorKind::conflict:
      return http::status::conflict;
    case ErrorKind::unprocessable:
      return http::status::unprocessable_entity;
    case ErrorKind::unsupported_media:
      return http::status::unsupported_media_type;
    case ErrorKind::too_large:
      return http::status::payload_too_large;
    case ErrorKind::unavailable:
      return http::status::service_unavailable;
    case ErrorKind::internal:
      return http::status::internal_server_error;
  }
  return http::status::internal_server_error;
}

Response problem(http::status status, std::string_view detail, const ProblemContext& ctx,
                 std::string_view field) {
  nlohmann::json body = {{"type", "https://ironhold.dev/problems/" + std::string(slug(status))},
                         {"title", std::string(http::obsolete_reason(status))},
                         {"status", static_cast<int>(status)},
                         {"detail", detail},
                         {"instance", ctx.instance},
                         {"request_id", ctx.request_id}};
  if (!field.empty()) body["field"] = field;
  Response res{status, ctx.version};
  res.set(http::field::content_type, "application/problem+json");
  res.body() = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (status == http::status::unauthorized)
    res.set(http::field::www_authenticate, "Bearer realm=\"ironhold\"");
  res.prepare_payload();
  return res;
}

Response problem(const Error& error, const ProblemContext& ctx) {
  return problem(status_of(error.kind()), error.what(), ctx, error.field());
}

}  // namespace ironhold::web
