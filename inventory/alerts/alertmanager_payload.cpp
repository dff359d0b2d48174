#include "inventory/alerts/alertmanager_payload.hpp"

#include "inventory/crypto/primitives.hpp"
#include "inventory/crypto/sha256_stream.hpp"

namespace ironhold::alerts {
namespace {

using nlohmann::json;

std::string text(const json& alert, const char* key) {
  const auto it = alert.find(key);
  return it != alert.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// PostgreSQL's to_jsonb writes timestamps as "2026-12-01T02:03:04.123456+00:00"; Alertmanager's
// are RFC 3339 as well, so they pass as they are.
std::string time_or_zero(const json& alert, const char* key) {
  const std::string t = text(alert, key);
  return t.empty() ? "0001-01-01T00:00:00Z" : t;
}

}  // namespace

std::string alertmanager_body(const db::Delivery& d, const std::string& external_url) {
  const json& a = d.alert;
  const std::string fingerprint = text(a, "fingerprint");
  json labels = {{"alertname", text(a, "source")},
                 {"severity", text(a, "severity")},
                 {"fingerprint", fingerprint}};
  for (const char* key : {"node_name", "node_id", "project"})
    if (const std::string v = text(a, key); !v.empty())
      labels[std::string(key) == "node_name" ? "node" : key] = v;
  const json annotations = {{"summary", text(a, "summary")},
                            {"description", a.value("details", json::object()).dump()}};
  // Alertmanager's fingerprints are 16 hex digits of a hash of the labels.
  const std::string short_fingerprint = crypto::sha256_hex(fingerprint).substr(0, 16);
  json alert = {
      {"status", d.status},
      {"labels", labels},
      {"annotations", annotations},
      {"startsAt", time_or_zero(a, "first_seen")},
      {"endsAt", d.status == "resolved" ? time_or_zero(a, "resolved_at")
                                        : std::string("0001-01-01T00:00:00Z")},
      {"generatorURL", external_url + "/#/alerts?id=" + std::to_string(a.value("id", 0LL))},
      {"fingerprint", short_fingerprint}};
  json body = {{"version", "4"},
               {"groupKey", "{}:{fingerprint=\"" + fingerprint + "\"}"},
               {"truncatedAlerts", 0},
               {"status", d.status},
               {"receiver", d.receiver_name},
               {"groupLabels", {{"fingerprint", fingerprint}}},
               {"commonLabels", labels},
               {"commonAnnotations", annotations},
               {"externalURL", external_url},
               {"alerts", json::array({alert})}};
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string signature_header(const std::string& secret, const std::string& body) {
  return "sha256=" + crypto::to_hex(crypto::hmac_sha256(secret, body));
}

}  // namespace ironhold::alerts
