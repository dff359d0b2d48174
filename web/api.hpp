#pragma once
// Request → response for the whole API, without sockets: routing, authentication and roles, error
// mapping to problem+json, the audit entry of every mutating request, and the access log.
#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "inventory/error.hpp"
#include "web/body_stream.hpp"
#include "web/request_context.hpp"
#include "web/router.hpp"
#include "web/services.hpp"

namespace ironhold::web {

namespace auth {
struct BearerPrincipal;
}

class Api {
 public:
  explicit Api(Services& services);
  // Destroys the adopted objects first, newest first.
  ~Api();
  Api(const Api&) = delete;
  Api& operator=(const Api&) = delete;
  Router& router() noexcept { return router_; }
  Services& services() noexcept { return services_; }
  // Keeps something the routes of a resource use (a service with threads of its own) alive as
  // long as the API, so that a resource can bring its own machinery at registration.
  void adopt(std::shared_ptr<void> object) { adopted_.push_back(std::move(object)); }
  // Destroys the adopted objects now, newest first: the host calls it once the server has drained
  // and before the database goes, so that their threads finish their work (a discovery marks its
  // unfinished runs) while PostgreSQL is still there. No request may come after it.
  void release_adopted() {
    while (!adopted_.empty()) adopted_.pop_back();
  }

  // Never throws: every failure becomes a problem response (a 500 is logged as a bug).
  // `peer`: the client's address, as the connection knows it. `body`: the request body still to
  // be read, for a route that streams it (then `request` holds the headers only).
  // `tls`: the request came over this server's own TLS.
  asio::awaitable<Reply> handle(Request request, std::string peer = {}, BodyReader* body = nullptr,
                                bool tls = false);
  // Whether the route a request goes to reads its body as it arrives (see Route::streams_body):
  // the server then hands it a BodyReader instead of reading the body first.
  bool streams_body(http::verb method, std::string_view target) const;

 private:
  // Parses the target and finds the route; on failure sets `immediate` and returns null.
  const Route* route_request(RequestContext& ctx, std::optional<Response>& immediate) const;
  asio::awaitable<Response> dispatch(RequestContext& ctx, const Route& route);
  // A 401/403 response, or nullopt when the token may call the route.
  asio::awaitable<std::optional<Response>> authenticate(RequestContext& ctx, const Route& route);
  asio::awaitable<void> audit(const RequestContext& ctx, const Route& route, const Response& res);
  void audit_first_bearer_use(const auth::BearerPrincipal& found, const std::string& peer,
                              const std::string& request_id);
  Response error_response(const RequestContext& ctx, const Error& e) const;
  Response bug_response(const RequestContext& ctx, const std::exception& e) const;
  void finish(const RequestContext& ctx, Response& res,
              std::chrono::steady_clock::time_point started) const;

  Services& services_;
  Router router_;
  std::vector<std::shared_ptr<void>> adopted_;
};

// Registers every route of the API (web/routes/*.cpp).
void register_all_routes(Api& api);

}  // namespace ironhold::web
