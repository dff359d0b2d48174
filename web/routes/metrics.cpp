// GET /metrics: Prometheus text format. Per node: power, health and reachability as gauges and
// the highest reading of each sensor kind; then the poller's latency histograms and counters.
// Needs a viewer token (node names are inventory): Prometheus sends it as a bearer credential.
// A token of some projects sees their nodes' series only, and not the poller's fleet-wide ones.
#include "web/request_context.hpp"
#include "web/routes/routes.hpp"

namespace ironhold::web {
namespace {

// Label values escape backslash, double quote and newline (the exposition format's rule).
std::string label(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string render_nodes(const std::vector<db::NodeGauges>& nodes) {
  std::string out;
  out.reserve(nodes.size() * 400);
  auto header = [&out](const char* name, const char* help) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " gauge\n";
  };
  auto node_labels = [](const db::NodeGauges& n) {
    return "node=\"" + label(n.name) + "\",node_id=\"" + n.id + "\",driver=\"" + label(n.driver) +
           "\",project=\"" + label(n.project) + "\"";
  };
  header("ironhold_node_power_on", "1 when the node is powered on, 0 otherwise (see state).");
  for (const auto& n : nodes)
    out += "ironhold_node_power_on{" + node_labels(n) + ",state=\"" + n.power_state + "\"} " +
           (n.power_state == "on" ? "1" : "0") + "\n";
  header("ironhold_node_health", "0 ok, 1 warning, 2 critical, -1 unknown.");
  for (const auto& n : nodes) {
    const char* value = n.health == "ok"         ? "0"
                        : n.health == "warning"  ? "1"
                        : n.health == "critical" ? "2"
                                                 : "-1";
    out += "ironhold_node_health{" + node_labels(n) + "} " + value + "\n";
  }
  header("ironhold_node_reachable",
         "1 when the last poll reached the BMC, 0 when not, -1 before the first.");
  for (const auto& n : nodes)
    out += "ironhold_node_reachable{" + node_labels(n) + "} " +
           (n.reachable ? (*n.reachable ? "1" : "0") : "-1") + "\n";
  header("ironhold_node_sensor_max",
         "The highest latest reading among a node's sensors of one kind.");
  for (const auto& n : nodes)
    for (const auto& [kind, unit, value] : n.sensor_max)
      out += "ironhold_node_sensor_max{" + node_labels(n) + ",kind=\"" + label(kind) +
             "\",unit=\"" + label(unit) + "\"} " + number(value) + "\n";
  return out;
}

}  // namespace

void register_metrics_routes(Api& api) {
  Services& s = api.services();
  api.router().add({http::verb::get,
                    "/metrics",
                    Access::viewer,
                    [&s](RequestContext& ctx) -> asio::awaitable<Response> {
                      ctx.only_query({});
                      std::string body;
                      // Only the nodes of the caller's projects; the poller's own figures
                      // describe the whole fleet, so only who may see all of it gets them.
                      const ProjectScope scope = ctx.scope(cap_read);
                      if (s.hardware) {
                        auto work = [&s, scope] { return s.hardware->gauges(scope); };
                        const auto nodes = co_await s.blocking(work);
                        body = render_nodes(nodes);
                      }
                      if (s.poll_metrics && !scope) body += s.poll_metrics->render();
                      Response response{http::status::ok, ctx.request.version()};
                      response.set(http::field::content_type,
                                   "text/plain; version=0.0.4; charset=utf-8");
                      response.set(http::field::cache_control, "no-store");
                      response.body() = std::move(body);
                      response.prepare_payload();
                      co_return response;
                    },
                    {"Prometheus metrics: per-node gauges and the poller's own",
                     nlohmann::json::array(),
                     nullptr,
                     200,
                     {{"type", "string"}}}});
}

}  // namespace ironhold::web
