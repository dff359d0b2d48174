#pragma once
// Authenticated Redfish requests to one BMC: TLS policy from the node's options, a session from
// the SessionCache (logged in on demand, once per key at a time, again once on a 401), Basic auth
// where the service has no session service, capped JSON parsing, and every failure mapped to a
// DriverError whose message never carries a credential or a token.
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bmc/http/bmc_http_client.hpp"
#include "bmc/redfish/crawler.hpp"
#include "bmc/redfish/session_cache.hpp"
#include "inventory/drivers/node_driver.hpp"

namespace ironhold::bmc::redfish {

struct TransportOptions {
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds total_timeout{30000};
  std::size_t max_body = 8 << 20;  // per document
  std::size_t max_json_depth = 64;
};

// A DriverTarget resolved for Redfish.
struct RedfishTarget {
  std::string base_url;  // "https://host:port", the port always explicit
  http::TlsPolicy tls;
  std::optional<Credentials> credentials;
  std::string key;  // the SessionCache key (empty without credentials)
  // The node's max_requests_per_second, keyed by the BMC's address (unpaced when 0).
  http::Pace pace;
  // Attempts per request when fewer than the client's policy: 1 for a poll of a BMC whose last
  // poll failed, which would otherwise repeat every reconnection and TLS handshake to it.
  std::optional<unsigned> max_attempts;
  std::function<void()> on_wait;  // DriverTarget::on_wait
};

// https (or a bare host) + tls pin|ca|insecure, or http -> none. An endpoint that is not Redfish
// (ipmi://) or a `tls: ca` without a ca_bundle is `unsupported`.
std::variant<RedfishTarget, DriverError> resolve_target(const DriverTarget& target);

// Parses JSON without throwing; nothing when invalid or nested deeper than `max_depth`.
std::optional<nlohmann::json> parse_json_capped(std::string_view text, std::size_t max_depth);
// The human part of a Redfish error body: error.message and every @Message.ExtendedInfo Message,
// cut to a few hundred characters. Empty when the body says nothing.
std::string redfish_error_message(const nlohmann::json& body);
// `what` names the request ("GET /redfish/v1/Systems").
DriverError error_from_http(const http::HttpError& error, std::string_view what);
DriverError error_from_status(long status, const nlohmann::json& body, std::string_view what);
// A login refused because the BMC's session table is full: Base's SessionLimitExceeded (bmcweb
// answers 503, Cisco CIMC 400) or iDRAC's RAC0218 under a GeneralError (503), told by the
// MessageId's last part, or by the message where a BMC gives none.
bool is_session_limit(long status, const nlohmann::json& body);
// "/redfish/v1/X" from a link or Location that may be an absolute URL; query and fragment
// dropped. Empty when there is no path.
std::string path_of(std::string_view link);

// Ends a session at its BMC (DELETE of the session resource, with the address and TLS policy of
// its login), in one attempt. Failures are ignored: the session then expires on its own.
boost::asio::awaitable<void> log_out(http::BmcHttpClient& client, const TransportOptions& options,
                                     CachedSession session);

struct RedfishReply {
  long status = 0;
  nlohmann::json body;                  // null when the body is empty
  std::optional<std::string> etag;      // the ETag header, else the body's @odata.etag
  std::optional<std::string> location;  // the Location header (a task monitor after a 202)
};
using CallResult = std::variant<RedfishReply, DriverError>;

// One driver call's conversation with one BMC. Not shared between coroutines.
class RedfishConnection {
 public:
  RedfishConnection(http::BmcHttpClient& client, SessionCache& sessions,
                    const TransportOptions& options, RedfishTarget target);

  // An authenticated request; a 2xx answer is a reply, anything else an error.
  boost::asio::awaitable<CallResult> call(std::string method, std::string path,
                                          std::optional<nlohmann::json> body = std::nullopt,
                                          http::HeaderList headers = {});
  // As call(), but any status past authentication (412, 404, ...) comes back as a reply.
  boost::asio::awaitable<CallResult> exchange(std::string method, std::string path,
                                              std::optional<nlohmann::json> body,
                                              http::HeaderList headers);
  // An authenticated multipart/form-data POST (a pushed firmware image), allowed `total_timeout`
  // instead of the usual one; like exchange(), any status past authentication is a reply. Never
  // retried once sent: a BMC that may have taken the image must not get it twice.
  boost::asio::awaitable<CallResult> post_form(std::string path, std::vector<http::FormPart> parts,
                                               std::chrono::milliseconds total_timeout);
  // The crawler's fetcher: an authenticated GET whose JSON document must be an object. Valid
  // while this connection lives.
  boost::asio::awaitable<FetchResult> get_json(std::string path);
  Fetcher fetcher();

  // The leaf certificate fingerprint the BMC presented (https), for the caller to pin.
  const std::optional<std::string>& fingerprint() const { return fingerprint_; }
  const RedfishTarget& target() const { return target_; }

 private:
  using AuthResult = std::variant<CachedSession, DriverError>;
  // A request's body: JSON text (may be empty) or form parts, and its time allowed (0: the
  // transport options').
  struct Outgoing {
    std::string json;
    std::vector<http::FormPart> form;
    std::chrono::milliseconds total_timeout{0};
  };
  boost::asio::awaitable<CallResult> perform(std::string method, std::string path, Outgoing body,
                                             http::HeaderList headers);
  // The key's session, logging in when there is none or when it is still `stale_token`.
  boost::asio::awaitable<AuthResult> authenticate(std::optional<std::string> stale_token);
  boost::asio::awaitable<AuthResult> login();
  // Stores the key's session and logs out the ones it supersedes.
  boost::asio::awaitable<void> keep(CachedSession session);
  // One HTTP exchange; `auth` adds the token or Basic header.
  boost::asio::awaitable<http::HttpResult> send(const std::string& method, const std::string& path,
                                                const Outgoing& body,
                                                const http::HeaderList& headers,
                                                const CachedSession* auth);
  std::optional<DriverError> barred_error() const;

  http::BmcHttpClient& client_;
  SessionCache& sessions_;
  TransportOptions options_;
  RedfishTarget target_;
  std::optional<std::string> fingerprint_;
};

}  // namespace ironhold::bmc::redfish
