#include "web/request_context.hpp"

#include <algorithm>
#include <charconv>

#include "inventory/error.hpp"
#include "web/json_body.hpp"

namespace ironhold::web {

std::optional<std::string> RequestContext::query_value(std::string_view name) const {
  std::optional<std::string> value;
  for (const auto& [k, v] : query)
    if (k == name) value = v;
  return value;
}

void RequestContext::only_query(std::initializer_list<std::string_view> known) const {
  for (const auto& [k, v] : query)
    if (std::find(known.begin(), known.end(), k) == known.end())
      throw invalid("unknown query parameter \"" + k.substr(0, 60) + "\"", k.substr(0, 60));
}

nlohmann::json RequestContext::json_body() const {
  const auto type = request[http::field::content_type];
  const auto media = type.substr(0, type.find(';'));
  if (media != "application/json" && media != "application/merge-patch+json")
    throw Error(ErrorKind::unsupported_media,
                "the body must be JSON: send Content-Type: application/json");
  std::string error;
  auto value = parse_json(request.body(), error);
  if (!value) throw invalid(error);
  return std::move(*value);
}

Response RequestContext::json(http::status status, const nlohmann::json& body) const {
  Response res{status, request.version()};
  res.set(http::field::content_type, "application/json");
  res.body() = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  res.prepare_payload();
  return res;
}

Response RequestContext::json_text(http::status status, std::string body) const {
  Response res{status, request.version()};
  res.set(http::field::content_type, "application/json");
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

Response RequestContext::empty(http::status status) const {
  Response res{status, request.version()};
  res.prepare_payload();
  return res;
}

Response RequestContext::csv(const std::string& filename, std::string body) const {
  Response res{http::status::ok, request.version()};
  res.set(http::field::content_type, "text/csv; charset=utf-8; header=present");
  res.set(http::field::content_disposition, "attachment; filename=\"" + filename + "\"");
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

std::optional<std::string> RequestContext::actor_id() const {
  if (!principal) return std::nullopt;
  return principal->user_id ? principal->user_id : principal->token_id;
}

std::string RequestContext::caller_key() const {
  if (!principal) return "anonymous";
  if (principal->user_id) return "user:" + *principal->user_id;
  return principal->token_id.value_or("anonymous");
}

const Permissions& RequestContext::permissions() const {
  static const Permissions none;
  return principal ? principal->permissions : none;
}

void RequestContext::require(unsigned capability, const std::string& project,
                             const std::string& not_found_message) {
  if (!can(cap_read, project)) throw not_found(not_found_message);
  if (!can(capability, project)) {
    const auto names = capability_names(capability);
    throw Error(ErrorKind::forbidden, actor() + " may not " +
                                          std::string(names.empty() ? "do this" : names.front()) +
                                          " in project " + project + " (a role there is needed)");
  }
  target_project = project;
}

std::string RequestContext::default_project(unsigned capability) const {
  const auto where = scope(capability);
  if (where && where->size() == 1) return where->front();
  return "default";
}

int RequestContext::limit_param(int fallback, int max) const {
  auto text = query_value("limit");
  if (!text) return fallback;
  int limit = 0;
  const auto [p, ec] = std::from_chars(text->data(), text->data() + text->size(), limit);
  if (ec != std::errc{} || p != text->data() + text->size() || limit < 1 || limit > max)
    throw invalid("\"limit\" must be a number from 1 to " + std::to_string(max), "limit");
  return limit;
}

}  // namespace ironhold::web
