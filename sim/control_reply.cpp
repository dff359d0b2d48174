#include "sim/control_reply.hpp"

#include <charconv>
#include <string>

namespace ironhold::sim::control {

using nlohmann::json;
namespace http = redfish::http;
using redfish::Response;

Response reply(http::status status, const json& body) {
  Response res{status, 11};
  res.set(http::field::content_type, "application/json");
  res.body() = body.dump() + "\n";
  res.prepare_payload();
  return res;
}

Response error_reply(const Error& e) {
  http::status status = http::status::internal_server_error;
  switch (e.kind()) {
    case ErrorKind::invalid:
      status = http::status::bad_request;
      break;
    case ErrorKind::not_found:
      status = http::status::not_found;
      break;
    case ErrorKind::conflict:
      status = http::status::conflict;
      break;
    default:
      break;
  }
  return reply(status, {{"error", e.what()}});
}

std::vector<std::string_view> split_path(std::string_view target) {
  const auto query = target.find('?');
  if (query != std::string_view::npos) target = target.substr(0, query);
  std::vector<std::string_view> parts;
  while (!target.empty()) {
    const auto slash = target.find('/');
    const auto part = target.substr(0, slash);
    if (!part.empty()) parts.push_back(part);
    if (slash == std::string_view::npos) break;
    target.remove_prefix(slash + 1);
  }
  return parts;
}

std::size_t bmc_index(std::string_view text, std::size_t size) {
  std::size_t i = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
  if (ec != std::errc{} || p != text.data() + text.size() || i >= size)
    throw not_found("no BMC \"" + std::string(text) + "\" (the fleet has " + std::to_string(size) +
                    ")");
  return i;
}

json body_of(const redfish::Request& request) {
  if (request.body().empty()) return json::object();
  json body = json::parse(request.body(), nullptr, false);
  if (body.is_discarded() || !body.is_object()) throw invalid("the body must be a JSON object");
  return body;
}

}  // namespace ironhold::sim::control
