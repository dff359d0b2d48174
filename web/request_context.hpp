#pragma once
// Everything a handler knows about the request it answers, and what it tells the audit trail.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inventory/db/session_store.hpp"
#include "inventory/db/token_store.hpp"
#include "web/body_stream.hpp"
#include "web/http.hpp"
#include "web/router.hpp"

namespace ironhold::web {

struct RequestContext {
  const Request& request;
  std::string path;
  std::vector<std::pair<std::string, std::string>> query;  // decoded, in order
  PathParams path_params;
  std::string request_id;
  std::optional<db::TokenInfo> token;
  std::string peer;  // the client's address ("127.0.0.1"); empty when not over a socket
  // A streaming route's body, still to be read (null for every other route: the body is in
  // `request`); and a handler's streamed answer body, if it has one.
  BodyReader* body_reader = nullptr;
  std::shared_ptr<BodySource> body_source;

  // The target of a mutating request, for its audit entry.
  std::optional<std::string> target_type, target_id, target_name;
  nlohmann::json audit_details = nlohmann::json::object();
  // The console session the request came with (authenticated by its cookie), if any; `token`
  // is then the session's token.
  std::optional<db::ConsoleSession> session;
  // Whether the client reached this service over TLS (directly, or through a proxy that says
  // so with X-Forwarded-Proto: https): the session cookie is then Secure.
  bool secure = false;

  void set_target(std::string type, std::string id, std::string name) {
    target_type = std::move(type);
    target_id = std::move(id);
    target_name = std::move(name);
  }

  const std::string& path_param(const std::string& name) const { return path_params.at(name); }
  // The last value of a query parameter.
  std::optional<std::string> query_value(std::string_view name) const;
  // ?limit=N for a page size from 1 to `max`; `fallback` when absent, invalid (400) otherwise.
  int limit_param(int fallback, int max) const;
  // Rejects query parameters not in `known` (a typo must not silently select everything).
  void only_query(std::initializer_list<std::string_view> known) const;
  // The body as JSON: 415 unless it is JSON, 400 naming the problem if malformed.
  nlohmann::json json_body() const;
  // Who is acting, for logs and audit: the token's name.
  std::string actor() const { return token ? token->name : "anonymous"; }
  bool has_role(Role role) const { return token && token->role == role; }

  Response json(http::status status, const nlohmann::json& body) const;
  Response empty(http::status status) const;
};

}  // namespace ironhold::web
