#include "app/server/curl_webhook_sender.hpp"

#include <fstream>
#include <sstream>

namespace ironhold::app {
namespace {

std::string system_ca_bundle() {
  std::ifstream in("/etc/ssl/certs/ca-certificates.crt", std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

bmc::http::CurlMultiClient::Options sender_options() {
  bmc::http::CurlMultiClient::Options o;
  o.max_host_connections = 4;
  o.max_idle_connections = 64;
  o.shards = 1;
  return o;
}

}  // namespace

CurlWebhookSender::CurlWebhookSender(boost::asio::any_io_executor executor)
    : ca_bundle_(system_ca_bundle()), client_(executor, sender_options()) {}

boost::asio::awaitable<alerts::WebhookOutcome> CurlWebhookSender::post(
    std::string url, std::string body, std::vector<std::pair<std::string, std::string>> headers) {
  bmc::http::HttpRequest request;
  request.method = "POST";
  request.url = std::move(url);
  request.body = std::move(body);
  request.headers = std::move(headers);
  request.connect_timeout = std::chrono::seconds(5);
  request.total_timeout = std::chrono::seconds(15);
  request.max_body = 64 << 10;
  if (request.url.rfind("https://", 0) == 0) {
    request.tls.mode = bmc::http::TlsPolicy::Mode::ca;
    request.tls.ca_bundle_pem = ca_bundle_;
  } else {
    request.tls.mode = bmc::http::TlsPolicy::Mode::none;
  }
  bmc::http::HttpResult result = co_await client_.request(std::move(request));
  alerts::WebhookOutcome outcome;
  if (!result) {
    outcome.error =
        std::string(bmc::http::to_string(result.error().kind)) + ": " + result.error().message;
  } else if (result.response().status >= 200 && result.response().status < 300) {
    outcome.delivered = true;
  } else {
    outcome.error = "the receiver answered " + std::to_string(result.response().status);
  }
  co_return outcome;
}

}  // namespace ironhold::app
