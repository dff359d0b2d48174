#pragma once
// A notification as Prometheus Alertmanager's webhook sends it (version 4), so that receivers
// written for Alertmanager (chat bridges, paging services, ticket hooks) take Ironhold's too:
// one alert per notification, labelled alertname (the alert's source), severity, node, node_id,
// project and fingerprint; its summary and details as annotations.
// https://prometheus.io/docs/alerting/latest/configuration/#webhook_config
#include <string>

#include "inventory/db/alert_outbox.hpp"

namespace ironhold::alerts {

// The body; `external_url` is where this service is reached (the alert links back to it).
std::string alertmanager_body(const db::Delivery& delivery, const std::string& external_url);

// "sha256=<hex HMAC-SHA256 of the raw body under the receiver's secret>", for the
// X-Ironhold-Signature header.
std::string signature_header(const std::string& secret, const std::string& body);

}  // namespace ironhold::alerts
