#pragma once
// An Ec2Simulator serving on 127.0.0.1 (a free port) from an io_context on its own thread, and
// signed requests for it built with the driver's signer.
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "cloudapi/ec2/ec2_request.hpp"
#include "sim/cloud/ec2/ec2_simulator.hpp"

namespace ironhold::test::ec2 {

struct Ec2SimOnLoopback {
  explicit Ec2SimOnLoopback(sim::cloud::ec2::Ec2SimulatorOptions options = {})
      : sim(io, std::move(options)), work(io.get_executor()) {
    const auto bound = sim.listen({boost::asio::ip::make_address("127.0.0.1"), 0});
    endpoint = "http://127.0.0.1:" + std::to_string(bound.port()) + "/";
    thread = std::thread([this] { io.run(); });
  }
  ~Ec2SimOnLoopback() {
    sim.close();
    work.reset();
    io.stop();
    thread.join();
  }

  cloudapi::ec2::AwsCredentials credentials() const {
    return {sim.options().access_key_id, sim.options().secret_access_key,
            sim.options().session_token};
  }

  // The request as the simulator's handler sees it, signed with `credentials` now (or `when`).
  sim::cloud::ApiRequest signed_request(
      const cloudapi::ec2::Ec2Query& query, const cloudapi::ec2::AwsCredentials& creds,
      std::chrono::system_clock::time_point when = std::chrono::system_clock::now()) const {
    const auto signed_query =
        cloudapi::ec2::sign_ec2_query(query, endpoint, creds, sim.options().region, when);
    sim::cloud::ApiRequest request;
    request.method = signed_query.method;
    request.target.assign(1, '/');
    request.headers = signed_query.headers;
    request.body = signed_query.body;
    request.host = *cloudapi::ec2::host_header_for(endpoint);
    return request;
  }
  sim::cloud::ApiReply call(const cloudapi::ec2::Ec2Query& query) {
    return sim.handle(signed_request(query, credentials()));
  }

  boost::asio::io_context io;
  sim::cloud::ec2::Ec2Simulator sim;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work;
  std::string endpoint;
  std::thread thread;
};

}  // namespace ironhold::test::ec2
