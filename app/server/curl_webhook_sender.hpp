#pragma once
// Alert notifications over libcurl (bmc/http's multi client, a handle of its own): an http://
// receiver is reached as it is; an https:// one is verified against the system's CA bundle and its
// host name.
#include <memory>

#include "bmc/http/curl_multi_client.hpp"
#include "inventory/alerts/webhook_sender.hpp"

namespace ironhold::app {

class CurlWebhookSender final : public alerts::WebhookSender {
 public:
  explicit CurlWebhookSender(boost::asio::any_io_executor executor);

  boost::asio::awaitable<alerts::WebhookOutcome> post(
      std::string url, std::string body,
      std::vector<std::pair<std::string, std::string>> headers) override;

 private:
  std::string ca_bundle_;
  bmc::http::CurlMultiClient client_;
};

}  // namespace ironhold::app
