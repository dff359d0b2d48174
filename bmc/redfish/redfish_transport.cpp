#include "bmc/redfish/redfish_transport.hpp"

#include <chrono>
#include <utility>

namespace ironhold::bmc::redfish {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

constexpr std::string_view kRootPath = "/redfish/v1/";
constexpr std::string_view kDefaultSessions = "/redfish/v1/SessionService/Sessions";

bool success(long status) {
  return status >= 200 && status < 300;
}

std::string base64(std::string_view in) {
  static constexpr char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(in[i]) << 16) |
                       (static_cast<unsigned char>(in[i + 1]) << 8) |
                       static_cast<unsigned char>(in[i + 2]);
    out += {alphabet[(v >> 18) & 63], alphabet[(v >> 12) & 63], alphabet[(v >> 6) & 63],
            alphabet[v & 63]};
  }
  if (i + 1 == in.size()) {
    const unsigned v = static_cast<unsigned char>(in[i]) << 16;
    out += {alphabet[(v >> 18) & 63], alphabet[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    const unsigned v =
        (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8);
    out += {alphabet[(v >> 18) & 63], alphabet[(v >> 12) & 63], alphabet[(v >> 6) & 63], '='};
  }
  return out;
}

std::string what(const std::string& method, const std::string& path) {
  return method + " " + path;
}

// The session collection named by the service root (Links.Sessions), which Redfish serves
// without authentication; the standard path when the root does not say.
std::string sessions_path(const json& root) {
  if (root.is_object()) {
    const auto links = root.find("Links");
    if (links != root.end() && links->is_object()) {
      const auto sessions = links->find("Sessions");
      if (sessions != links->end() && sessions->is_object()) {
        const auto id = sessions->find("@odata.id");
        if (id != sessions->end() && id->is_string()) {
          std::string path = path_of(id->get_ref<const std::string&>());
          if (!path.empty()) return path;
        }
      }
    }
  }
  return std::string(kDefaultSessions);
}

bool has_session_service(const json& root) {
  if (!root.is_object()) return true;  // cannot tell: try the standard path
  const auto links = root.find("Links");
  return root.contains("SessionService") ||
         (links != root.end() && links->is_object() && links->contains("Sessions"));
}

}  // namespace

RedfishConnection::RedfishConnection(http::BmcHttpClient& client, SessionCache& sessions,
                                     const TransportOptions& options, RedfishTarget target)
    : client_(client), sessions_(sessions), options_(options), target_(std::move(target)) {}

std::optional<DriverError> RedfishConnection::barred_error() const {
  const auto barred = sessions_.barred_for(target_.key);
  if (!barred) return std::nullopt;
  const auto minutes = std::chrono::duration_cast<std::chrono::minutes>(*barred).count() + 1;
  return DriverError{DriverErrorCode::auth_failed,
                     "the BMC rejected these credentials; not trying them again for " +
                         std::to_string(minutes) + " min unless they change"};
}

asio::awaitable<http::HttpResult> RedfishConnection::send(const std::string& method,
                                                          const std::string& path,
                                                          const Outgoing& body,
                                                          const http::HeaderList& headers,
                                                          const CachedSession* auth) {
  http::HttpRequest request;
  request.method = method;
  request.url = target_.base_url + path;
  request.connect_timeout = options_.connect_timeout;
  request.total_timeout =
      body.total_timeout.count() > 0 ? body.total_timeout : options_.total_timeout;
  request.max_body = options_.max_body;
  request.tls = target_.tls;
  request.pace = target_.pace;
  request.body = body.json;
  request.form = body.form;
  request.headers = {{"Accept", "application/json"}, {"OData-Version", "4.0"}};
  if (!body.json.empty() && body.form.empty())
    request.headers.emplace_back("Content-Type", "application/json");
  if (auth != nullptr && auth->mode == AuthMode::session) {
    request.headers.emplace_back("X-Auth-Token", auth->token);
  } else if (auth != nullptr && target_.credentials) {
    const std::string pair = target_.credentials->username + ":" + target_.credentials->password;
    request.headers.emplace_back("Authorization", "Basic " + base64(pair));
  }
  for (const auto& header : headers) request.headers.push_back(header);
  const http::CallOptions call{.max_attempts = target_.max_attempts, .on_wait = target_.on_wait};
  http::HttpResult result = co_await client_.request(std::move(request), call);
  if (result.ok() && result.response().peer_fingerprint) {
    fingerprint_ = result.response().peer_fingerprint;
    // Trust on first use within this conversation too: once a certificate answered, the rest of
    // the conversation (the login above all) only goes to that certificate.
    if (target_.tls.mode == http::TlsPolicy::Mode::pin && !target_.tls.pinned_sha256_hex)
      target_.tls.pinned_sha256_hex = fingerprint_;
  }
  co_return result;
}

asio::awaitable<RedfishConnection::AuthResult> RedfishConnection::authenticate(
    std::optional<std::string> stale_token) {
  const auto usable = [&stale_token](const std::optional<CachedSession>& s) {
    return s && (!stale_token || s->mode != AuthMode::session || s->token != *stale_token);
  };
  if (auto cached = sessions_.find(target_.key); usable(cached)) co_return std::move(*cached);
  // One login per key at a time: whoever waited here finds the session the first one opened.
  http::PerHostLimiter::Permit permit = co_await sessions_.login_gate(target_.key);
  if (auto cached = sessions_.find(target_.key); usable(cached)) co_return std::move(*cached);
  if (auto barred = barred_error()) co_return std::move(*barred);
  AuthResult result = co_await login();
  co_return result;
}

asio::awaitable<RedfishConnection::AuthResult> RedfishConnection::login() {
  const std::string root_path(kRootPath);
  const http::HeaderList no_headers;
  const Outgoing no_body;
  const std::string get = "GET";
  const std::string post = "POST";
  http::HttpResult root = co_await send(get, root_path, no_body, no_headers, nullptr);
  if (!root.ok()) co_return error_from_http(root.error(), what("GET", root_path));
  json root_doc;
  if (success(root.response().status)) {
    auto parsed = parse_json_capped(root.response().body, options_.max_json_depth);
    if (parsed) root_doc = std::move(*parsed);
  }

  CachedSession session;
  session.base_url = target_.base_url;
  session.tls = target_.tls;
  if (!has_session_service(root_doc)) {
    session.mode = AuthMode::basic;
    co_await keep(session);
    co_return session;
  }
  const std::string path = sessions_path(root_doc);
  const json credentials = {{"UserName", target_.credentials->username},
                            {"Password", target_.credentials->password}};
  Outgoing body;
  body.json = credentials.dump();
  http::HttpResult posted = co_await send(post, path, body, no_headers, nullptr);
  if (!posted.ok()) co_return error_from_http(posted.error(), what("POST", path));
  const http::HttpResponse& response = posted.response();
  const long status = response.status;
  const json reply = parse_json_capped(response.body, options_.max_json_depth).value_or(json());
  if (status == 401 || status == 403) {
    sessions_.record_rejection(target_.key);
    co_return DriverError{DriverErrorCode::auth_failed, "the BMC rejected the credentials (HTTP " +
                                                            std::to_string(status) + " on login)"};
  }
  if (is_session_limit(status, reply)) {
    // Every slot is taken (other tools, or sessions a crashed client leaked): Basic auth for a
    // while, as sushy and most Redfish clients fall back, rather than no answer until they end.
    session.mode = AuthMode::basic;
    session.basic_until = sessions_.basic_until_after_session_limit();
  } else if (status == 404 || status == 405 || status == 501) {
    // No session service to speak of: Basic auth on every request instead.
    session.mode = AuthMode::basic;
  } else if (!success(status)) {
    co_return error_from_status(status, reply, what("POST", path));
  } else {
    const auto token = response.header("X-Auth-Token");
    if (!token || token->empty())
      co_return DriverError{DriverErrorCode::bad_response,
                            "POST " + path + ": session created without an X-Auth-Token"};
    session.mode = AuthMode::session;
    session.token = *token;
    if (const auto location = response.header("Location")) session.session_uri = path_of(*location);
    if (session.session_uri.empty() && reply.is_object() && reply.contains("@odata.id") &&
        reply["@odata.id"].is_string())
      session.session_uri = path_of(reply["@odata.id"].get<std::string>());
    sessions_.record_success(target_.key);
  }
  session.tls = target_.tls;  // pinned now to what answered the login
  co_await keep(session);
  co_return session;
}

asio::awaitable<void> RedfishConnection::keep(CachedSession session) {
  // A changed password leaves the old one's session open at the BMC: close it now rather than
  // at shutdown, since BMCs have only a handful of session slots.
  std::vector<CachedSession> superseded = sessions_.store(target_.key, std::move(session));
  for (auto& old : superseded)
    if (old.mode == AuthMode::session) co_await log_out(client_, options_, std::move(old));
}

asio::awaitable<void> log_out(http::BmcHttpClient& client, const TransportOptions& options,
                              CachedSession session) {
  if (session.session_uri.empty()) co_return;
  http::HttpRequest request;
  request.method = "DELETE";
  request.url = session.base_url + session.session_uri;
  request.headers = {{"X-Auth-Token", session.token}, {"OData-Version", "4.0"}};
  request.tls = session.tls;
  request.connect_timeout = options.connect_timeout;
  request.total_timeout = options.total_timeout;
  // One attempt: a failed logout is ignored anyway (the session expires at the BMC), and retries
  // of a silent BMC's logout would triple what a stopping service waits for it.
  http::HttpResult ignored = co_await client.request(std::move(request), {.max_attempts = 1});
  (void)ignored;
}

asio::awaitable<CallResult> RedfishConnection::exchange(std::string method, std::string path,
                                                        std::optional<json> body,
                                                        http::HeaderList headers) {
  Outgoing outgoing;
  if (body) outgoing.json = body->dump();
  CallResult result =
      co_await perform(std::move(method), std::move(path), std::move(outgoing), std::move(headers));
  co_return result;
}

asio::awaitable<CallResult> RedfishConnection::post_form(std::string path,
                                                         std::vector<http::FormPart> parts,
                                                         std::chrono::milliseconds total_timeout) {
  Outgoing outgoing;
  outgoing.form = std::move(parts);
  outgoing.total_timeout = total_timeout;
  std::string method = "POST";
  http::HeaderList no_headers;
  CallResult result = co_await perform(std::move(method), std::move(path), std::move(outgoing),
                                       std::move(no_headers));
  co_return result;
}

asio::awaitable<CallResult> RedfishConnection::perform(std::string method, std::string path,
                                                       Outgoing text, http::HeaderList headers) {
  const std::string label = what(method, path);
  if (!target_.credentials)
    co_return DriverError{DriverErrorCode::auth_failed, label + ": no credentials configured"};

  AuthResult auth = co_await authenticate(std::nullopt);
  if (auto* e = std::get_if<DriverError>(&auth)) co_return std::move(*e);
  CachedSession session = std::get<CachedSession>(std::move(auth));
  http::HttpResult result = co_await send(method, path, text, headers, &session);

  if (result.ok() && result.response().status == 401 && session.mode == AuthMode::session) {
    // The session expired or was deleted: log in again, once, and repeat the request.
    sessions_.invalidate(target_.key, session.token);
    std::optional<std::string> stale = session.token;
    AuthResult again = co_await authenticate(std::move(stale));
    if (auto* e = std::get_if<DriverError>(&again)) co_return std::move(*e);
    session = std::get<CachedSession>(std::move(again));
    result = co_await send(method, path, text, headers, &session);
  }
  if (!result.ok()) co_return error_from_http(result.error(), label);

  http::HttpResponse& response = result.response();
  if (response.status == 401 && session.basic_until) {
    // Basic auth stood in for a session the BMC had no slot for, and it refuses Basic: that says
    // nothing against the credentials. A session is tried again on the next call.
    sessions_.invalidate(target_.key, session.token);
    co_return DriverError{DriverErrorCode::rejected,
                          label +
                              ": the BMC has no free session slot and refuses Basic auth "
                              "(HTTP 401); its sessions must end (they time out, or an "
                              "administrator closes them) before it answers"};
  }
  if (response.status == 401 && session.mode == AuthMode::basic) {
    // With Basic auth every request is a login: a rejection bars the key like a failed login.
    sessions_.record_rejection(target_.key);
  } else if (session.mode == AuthMode::basic && success(response.status)) {
    sessions_.record_success(target_.key);
  }
  RedfishReply reply;
  reply.status = response.status;
  if (!response.body.empty()) {
    auto parsed = parse_json_capped(response.body, options_.max_json_depth);
    if (!parsed) {
      // An error page in HTML is still an error with a status; a 2xx must be JSON.
      if (success(response.status))
        co_return DriverError{DriverErrorCode::bad_response, label + ": invalid JSON"};
    } else {
      reply.body = std::move(*parsed);
    }
  }
  if (response.status == 401 || response.status == 403)
    co_return error_from_status(response.status, reply.body, label);
  if (const auto etag = response.header("ETag")) {
    reply.etag = *etag;
  } else if (reply.body.is_object() && reply.body.contains("@odata.etag") &&
             reply.body["@odata.etag"].is_string()) {
    reply.etag = reply.body["@odata.etag"].get<std::string>();
  }
  if (const auto location = response.header("Location")) reply.location = *location;
  co_return reply;
}

asio::awaitable<CallResult> RedfishConnection::call(std::string method, std::string path,
                                                    std::optional<json> body,
                                                    http::HeaderList headers) {
  const std::string label = what(method, path);
  CallResult result =
      co_await exchange(std::move(method), std::move(path), std::move(body), std::move(headers));
  if (auto* reply = std::get_if<RedfishReply>(&result); reply && !success(reply->status))
    co_return error_from_status(reply->status, reply->body, label);
  co_return result;
}

asio::awaitable<FetchResult> RedfishConnection::get_json(std::string path) {
  const std::string label = what("GET", path);
  std::string method = "GET";
  std::optional<json> no_body;
  http::HeaderList no_headers;
  CallResult result =
      co_await call(std::move(method), std::move(path), std::move(no_body), std::move(no_headers));
  if (auto* e = std::get_if<DriverError>(&result)) co_return std::move(*e);
  json& body = std::get<RedfishReply>(result).body;
  if (!body.is_object())
    co_return DriverError{DriverErrorCode::bad_response, label + ": not a JSON object"};
  co_return std::move(body);
}

Fetcher RedfishConnection::fetcher() {
  // Not a coroutine itself: the member coroutine keeps `this`, which outlives the crawl.
  return [this](const std::string& path) { return get_json(path); };
}

}  // namespace ironhold::bmc::redfish
