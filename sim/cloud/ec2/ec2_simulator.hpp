#pragma once
// A simulated AWS EC2 Query API on loopback: SigV4-authenticated POST / (form body) or GET /?...
// for the actions of Ec2Service, injectable faults (throttling as 503 RequestLimitExceeded, 500
// InternalError, latency), and a JSON control API under /_sim/ (no auth):
//   POST /_sim/faults {"throttle_next": N, "error_next": N, "latency_ms": M}
//   POST /_sim/instances/{id}/terminate
//   POST /_sim/instances/{id}/system-status {"status": "ok" | "impaired"}
//   GET  /_sim/instances
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstddef>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "sim/cloud/api_server.hpp"

namespace ironhold::sim::cloud::ec2 {

struct Ec2SimulatorOptions {
  std::string region = "us-east-1";
  // The one key pair it accepts (dummy values in the style of AWS's documentation).
  std::string access_key_id = "AKIAIOSFODNN7EXAMPLE";
  std::string secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  std::optional<std::string> session_token;  // when set, requests must carry it
  std::size_t page_size = 2;                 // items per Describe* page, so paging shows
  std::chrono::milliseconds transition{1500};
  bool default_fleet = true;
};

class Ec2Simulator {
 public:
  Ec2Simulator(boost::asio::io_context& io, Ec2SimulatorOptions options = {});
  ~Ec2Simulator();
  Ec2Simulator(const Ec2Simulator&) = delete;
  Ec2Simulator& operator=(const Ec2Simulator&) = delete;

  // Binds (port 0: a free one) and serves; the bound endpoint.
  boost::asio::ip::tcp::endpoint listen(const boost::asio::ip::tcp::endpoint& endpoint);
  void close();

  const Ec2SimulatorOptions& options() const;
  // What GET /_sim/instances answers.
  nlohmann::json instances();
  // One request, as the server hands it over.
  ApiReply handle(const ApiRequest& request);

  struct State;

 private:
  std::shared_ptr<State> state_;
  ApiServer server_;
};

}  // namespace ironhold::sim::cloud::ec2
