#pragma once
// Everything a handler knows about the request it answers, and what it tells the audit trail.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "inventory/db/session_store.hpp"
#include "inventory/db/token_store.hpp"
#include "inventory/model/access.hpp"
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
  // Who is acting, once authenticated: a user or a service token, and where it may do what.
  std::optional<Principal> principal;
  std::string peer;  // the client's address ("127.0.0.1"); empty when not over a socket
  // A streaming route's body, still to be read (null for every other route: the body is in
  // `request`); and a handler's streamed answer body, if it has one.
  BodyReader* body_reader = nullptr;
  std::shared_ptr<BodySource> body_source;
  // A handler that takes the connection over once it has answered (a WebSocket).
  std::shared_ptr<ConnectionUpgrade> upgrade;

  // The target of a mutating request, for its audit entry.
  std::optional<std::string> target_type, target_id, target_name;
  // The project of what the request touched, for its audit entry (and so for that project's
  // auditors); unset for what belongs to no project (users, tokens, the firmware catalog).
  std::optional<std::string> target_project;
  nlohmann::json audit_details = nlohmann::json::object();
  // The console session the request came with (authenticated by its cookie), if any.
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
  // Who is acting, for logs and audit: the user's name, or the service token's.
  std::string actor() const { return principal ? principal->name : "anonymous"; }
  // The user's id, or the service token's, for audit entries.
  std::optional<std::string> actor_id() const;
  // What requests of the same caller share (idempotency keys): "user:<id>" for a person (through
  // any of their tokens or sessions), the token's id for a service token.
  std::string caller_key() const;

  const Permissions& permissions() const;
  bool can(unsigned capability, std::string_view project) const {
    return permissions().can(capability, project);
  }
  // The projects a list may show rows of (for the capability); nullopt: every project.
  ProjectScope scope(unsigned capability) const { return permissions().scope(capability); }
  // For something of `project`: throws not_found with `not_found_message` (the very answer for
  // something that does not exist, so a caller learns nothing of other projects) unless the
  // caller may read there, and forbidden unless it may do `capability` there. Records the
  // project for the audit entry.
  void require(unsigned capability, const std::string& project,
               const std::string& not_found_message);
  // Where a creation lands when its body names no project: the one project where the caller may
  // do `capability`, else "default".
  std::string default_project(unsigned capability) const;

  Response json(http::status status, const nlohmann::json& body) const;
  // A JSON body already written as text (json_text, append_json of a node).
  Response json_text(http::status status, std::string body) const;
  Response empty(http::status status) const;
  // A CSV export (web/csv_writer.hpp) as an attachment named `filename`.
  Response csv(const std::string& filename, std::string body) const;
};

}  // namespace ironhold::web
