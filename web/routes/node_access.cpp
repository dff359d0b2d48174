#include "web/routes/node_access.hpp"

namespace ironhold::web {

std::string node_not_found_message(const std::string& id_or_name) {
  return "no node has the id or name \"" + id_or_name.substr(0, 100) + "\"";
}

asio::awaitable<Node> authorized_node(Services& s, RequestContext& ctx,
                                      const std::string& id_or_name, unsigned capability) {
  if (!ctx.target_type) {
    ctx.target_type = "node";
    ctx.target_name = id_or_name;
  }
  auto load = [&s, id_or_name] { return s.nodes.get(id_or_name); };
  Node node = co_await s.blocking(load);
  ctx.require(capability, node.project, node_not_found_message(id_or_name));
  ctx.set_target("node", node.id, node.name);
  co_return node;
}

}  // namespace ironhold::web
