#pragma once
// A real HTTP endpoint on loopback that takes webhook POSTs and answers with a status the test
// chooses, recording each request: what alert notifications are delivered to in the tests.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ironhold::test {

// A loopback port nothing listens on right now at `address` (bound, then closed).
unsigned short free_loopback_port(const std::string& address = "127.0.0.1");

// A loopback address of its own (127.a.b.c, drawn at random), for a receiver that is down before
// it comes up on a port picked in advance: on 127.0.0.1 that port could be handed out meanwhile
// to any socket bound to port 0 (other tests', a simulated fleet's), as it once was to a
// simulated BMC that then answered the notifications 404.
std::string private_loopback_address();

class WebhookReceiver {
 public:
  struct Received {
    std::string target, body;
    std::map<std::string, std::string> headers;  // lower-case names
  };

  // Listens on `address`:`port` (0: any) at once.
  explicit WebhookReceiver(unsigned short port = 0, const std::string& address = "127.0.0.1");
  ~WebhookReceiver();
  WebhookReceiver(const WebhookReceiver&) = delete;
  WebhookReceiver& operator=(const WebhookReceiver&) = delete;

  unsigned short port() const { return port_; }
  // The status every request is answered with from now on (200 at first).
  void answer(int status) { status_ = status; }
  std::vector<Received> received() const;
  // Waits until `count` requests came (false after `cap`).
  bool wait_for(std::size_t count, std::chrono::seconds cap = std::chrono::seconds(60)) const;

 private:
  struct State;
  std::shared_ptr<State> state_;
  std::atomic<int> status_{200};
  unsigned short port_ = 0;
  std::thread thread_;
};

}  // namespace ironhold::test
