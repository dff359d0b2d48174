#pragma once
// What delivers a notification: an HTTP POST, made by an adapter outside inventory/ (inventory
// includes no protocol header). The outcome says whether the receiver took it (a 2xx answer).
#include <boost/asio/awaitable.hpp>
#include <string>
#include <utility>
#include <vector>

namespace ironhold::alerts {

struct WebhookOutcome {
  bool delivered = false;
  std::string error;  // why not: the status, or the transport's error
};

class WebhookSender {
 public:
  virtual ~WebhookSender() = default;
  virtual boost::asio::awaitable<WebhookOutcome> post(
      std::string url, std::string body,
      std::vector<std::pair<std::string, std::string>> headers) = 0;
};

}  // namespace ironhold::alerts
