// The pure parts of the Redfish transport: target resolution, capped JSON parsing, and the one
// table from transport and HTTP failures to DriverError codes.
#include <string>

#include "bmc/redfish/redfish_transport.hpp"

namespace ironhold::bmc::redfish {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxMessage = 400;

DriverError error(DriverErrorCode code, std::string message) {
  return DriverError{code, std::move(message)};
}

void append_message(std::string& out, const json& text) {
  if (!text.is_string()) return;
  const auto& s = text.get_ref<const std::string&>();
  if (s.empty() || out.find(s) != std::string::npos) return;
  if (!out.empty()) out += "; ";
  out += s;
}

}  // namespace

std::variant<RedfishTarget, DriverError> resolve_target(const DriverTarget& target) {
  const Endpoint& ep = target.endpoint;
  const std::string scheme = ep.scheme.empty() ? "https" : ep.scheme;
  if (scheme != "https" && scheme != "http")
    return error(DriverErrorCode::unsupported,
                 "endpoint " + ep.to_string() + " is not a Redfish (http/https) endpoint");
  if (ep.host.empty()) return error(DriverErrorCode::unsupported, "endpoint without a host");
  RedfishTarget out;
  const std::uint16_t port = ep.port.value_or(scheme == "https" ? 443 : 80);
  const std::string host = ep.is_ipv6() ? "[" + ep.host + "]" : ep.host;
  out.base_url = scheme + "://" + host + ":" + std::to_string(port);

  const json& options = target.options;
  std::string tls = "pin";
  if (options.is_object()) {
    const auto it = options.find("tls");
    if (it != options.end() && it->is_string()) tls = it->get<std::string>();
  }
  if (scheme == "http") {
    out.tls.mode = http::TlsPolicy::Mode::none;
  } else if (tls == "pin") {
    out.tls.mode = http::TlsPolicy::Mode::pin;
    out.tls.pinned_sha256_hex = target.pinned_fingerprint;
  } else if (tls == "ca") {
    out.tls.mode = http::TlsPolicy::Mode::ca;
    const auto it = options.find("ca_bundle");
    if (it == options.end() || !it->is_string() || it->get_ref<const std::string&>().empty())
      return error(DriverErrorCode::unsupported, "tls: ca needs a ca_bundle");
    out.tls.ca_bundle_pem = it->get<std::string>();
  } else if (tls == "insecure") {
    out.tls.mode = http::TlsPolicy::Mode::insecure;
  } else {
    return error(DriverErrorCode::unsupported, "unknown tls option \"" + tls + "\"");
  }
  if (const auto rate =
          options.is_object() ? options.find("max_requests_per_second") : options.end();
      rate != options.end() && rate->is_number() && rate->get<double>() > 0) {
    out.pace.key = out.base_url;
    out.pace.per_second = rate->get<double>();
    out.pace.burst = 1;
  }
  if (target.previous_failures > 0) out.max_attempts = 1;
  out.on_wait = target.on_wait;
  out.credentials = target.credentials;
  if (out.credentials)
    out.key = session_key(out.base_url, out.credentials->username, out.credentials->password);
  return out;
}

std::optional<json> parse_json_capped(std::string_view text, std::size_t max_depth) {
  // One pass over the text for the nesting depth (outside strings) before nlohmann parses it
  // recursively: a hostile "[[[[..." must not exhaust the stack.
  std::size_t depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return std::nullopt;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return std::nullopt;
  return parsed;
}

std::string redfish_error_message(const json& body) {
  std::string out;
  if (!body.is_object()) return out;
  const auto err = body.find("error");
  const json& holder = err != body.end() && err->is_object() ? *err : body;
  if (const auto m = holder.find("message"); m != holder.end()) append_message(out, *m);
  const auto info = holder.find("@Message.ExtendedInfo");
  if (info != holder.end() && info->is_array()) {
    for (const auto& item : *info)
      if (item.is_object())
        if (const auto m = item.find("Message"); m != item.end()) append_message(out, *m);
  }
  if (out.size() > kMaxMessage) out = out.substr(0, kMaxMessage) + "...";
  return out;
}

DriverError error_from_http(const http::HttpError& e, std::string_view what) {
  const std::string prefix = std::string(what) + ": ";
  switch (e.kind) {
    case http::HttpErrorKind::connect_failed:
      return error(DriverErrorCode::unreachable, prefix + e.message);
    case http::HttpErrorKind::timeout:
      return error(DriverErrorCode::timeout, prefix + e.message);
    case http::HttpErrorKind::tls_pin_mismatch:
      return error(DriverErrorCode::tls_pin_mismatch, prefix + e.message);
    case http::HttpErrorKind::tls_failed:
      return error(DriverErrorCode::tls_failed, prefix + e.message);
    case http::HttpErrorKind::too_large:
    case http::HttpErrorKind::protocol:
      return error(DriverErrorCode::bad_response, prefix + e.message);
    case http::HttpErrorKind::cancelled:
      return error(DriverErrorCode::unreachable, prefix + "cancelled");
  }
  return error(DriverErrorCode::bad_response, prefix + e.message);
}

bool is_session_limit(long status, const json& body) {
  if (status != 400 && status != 403 && status != 429 && status != 503) return false;
  if (!body.is_object()) return false;
  const auto error_it = body.find("error");
  if (error_it == body.end() || !error_it->is_object()) return false;
  const auto names_limit = [](const json& message) {
    if (!message.is_object()) return false;
    const auto id = message.find("MessageId");
    if (id != message.end() && id->is_string()) {
      const std::string& text = id->get_ref<const std::string&>();
      const std::string last = text.substr(text.rfind('.') + 1);
      if (last == "SessionLimitExceeded" || last == "RAC0218") return true;
    }
    const auto said = message.find("Message");
    if (said == message.end() || !said->is_string()) return false;
    const std::string& text = said->get_ref<const std::string&>();
    return text.find("maximum number of user sessions") != std::string::npos ||
           text.find("number of simultaneous sessions") != std::string::npos;
  };
  const json& error = *error_it;
  const auto extended = error.find("@Message.ExtendedInfo");
  if (extended != error.end() && extended->is_array())
    for (const auto& message : *extended)
      if (names_limit(message)) return true;
  return names_limit(json{{"MessageId", error.value("code", json())},
                          {"Message", error.value("message", json())}});
}

DriverError error_from_status(long status, const json& body, std::string_view what) {
  std::string message = std::string(what) + ": HTTP " + std::to_string(status);
  const std::string detail = redfish_error_message(body);
  if (!detail.empty()) message += ": " + detail;
  if (status == 401 || status == 403) return error(DriverErrorCode::auth_failed, message);
  if (status >= 300 && status < 400)
    return error(DriverErrorCode::bad_response, message + " (redirects are not followed)");
  if (status < 200 || status >= 300) return error(DriverErrorCode::rejected, message);
  return error(DriverErrorCode::bad_response, message);
}

std::string path_of(std::string_view link) {
  if (const auto scheme = link.find("://"); scheme != std::string_view::npos) {
    const auto slash = link.find('/', scheme + 3);
    if (slash == std::string_view::npos) return {};
    link.remove_prefix(slash);
  }
  link = link.substr(0, link.find_first_of("?#"));
  if (link.empty() || link.front() != '/') return {};
  return std::string(link);
}

}  // namespace ironhold::bmc::redfish
