#pragma once
// A simulated Baidu AI Cloud BCC endpoint (the v2 instance API) on loopback, for the demo and the
// driver tests: bce-auth-v1 checked with the real algorithm, BCC's error bodies, marker/maxKeys
// pagination with small pages, start/stop/reboot/rebuild through BCC's transitional statuses,
// flavorSpec, and injectable throttling, 5xx, expired-request answers and latency.
//
// API:      GET  /v2/instance?marker=&maxKeys=      GET /v2/instance/{id}
//           PUT  /v2/instance/{id}?start|stop|reboot|rebuild     GET /v2/instance/flavorSpec
// Control:  POST /_sim/faults {"throttle_next", "error_next", "expire_next", "latency_ms"}
//           POST /_sim/instances/{id}/terminate      GET /_sim/instances
//           POST /_sim/transitions/finish (every Starting/Stopping/... ends now)
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/cloud/api_server.hpp"
#include "sim/cloud/bcc/bcc_fleet.hpp"

namespace ironhold::sim::cloud::bcc {

struct BccSimulatorOptions {
  // The one key pair the account accepts. The secret key is at least 16 bytes: its first 16
  // encrypt rebuild passwords.
  std::string access_key = "ironholdsimulatedbccaccesskey001";
  std::string secret_key = "ironholdsimulatedbccsecretkey001";
  std::string region = "bj";
  std::size_t page_size = 2;  // the most a list page holds, whatever maxKeys asks
  std::chrono::milliseconds transition{1500};
  bool default_fleet = true;
};

struct BccFaults {
  unsigned throttle_next = 0;  // answer 429 RequestRateLimitExceeded
  unsigned error_next = 0;     // answer 500 InternalError
  unsigned expire_next = 0;    // answer 400 RequestExpired (as if the clocks disagreed)
  std::chrono::milliseconds latency{0};
};

class BccSimulator {
 public:
  BccSimulator(boost::asio::io_context& io, BccSimulatorOptions options = {});
  ~BccSimulator();
  BccSimulator(const BccSimulator&) = delete;
  BccSimulator& operator=(const BccSimulator&) = delete;

  boost::asio::ip::tcp::endpoint listen(const boost::asio::ip::tcp::endpoint& endpoint);
  void close();

  const BccSimulatorOptions& options() const { return options_; }

  // For tests in the same process (the control routes do the same over HTTP).
  void set_faults(const BccFaults& faults);
  void add_instance(SimInstance instance);
  void terminate(const std::string& id);
  void finish_transitions();
  nlohmann::json instances();        // raw state, transitions advanced
  std::size_t api_requests() const;  // API requests answered so far (control routes excluded)

  // The whole request -> reply logic, callable without a socket.
  ApiReply handle(const ApiRequest& request);

 private:
  ApiReply handle_api(const ApiRequest& request, const std::string& request_id);
  ApiReply handle_control(const ApiRequest& request);
  std::string next_request_id();

  BccSimulatorOptions options_;
  mutable std::mutex mutex_;
  BccFleet fleet_;
  BccFaults faults_;
  std::size_t api_requests_ = 0;
  std::size_t request_counter_ = 0;
  std::unique_ptr<ApiServer> server_;
};

}  // namespace ironhold::sim::cloud::bcc
