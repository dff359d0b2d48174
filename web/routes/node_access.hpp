#pragma once
// The one way a route reaches a node by id or name: loaded, then checked against the caller's
// roles in the node's project. A node of a project the caller cannot read answers exactly as a
// node that does not exist (404), so that no route tells one project about another's machines.
#include <string>

#include "inventory/model/node.hpp"
#include "web/request_context.hpp"
#include "web/services.hpp"

namespace ironhold::web {

// The node, when the caller may do `capability` in its project (404 when it may not even read
// there, 403 when it may only read). Sets it as the request's audit target. `id_or_name` must
// outlive the call (a path parameter, or a named local).
asio::awaitable<Node> authorized_node(Services& s, RequestContext& ctx,
                                      const std::string& id_or_name, unsigned capability);

// The answer for a node that does not exist (the node store's own words).
std::string node_not_found_message(const std::string& id_or_name);

}  // namespace ironhold::web
