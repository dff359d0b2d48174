#pragma once
// The simulated BCC on 127.0.0.1:0 in this process, an io_context run by two threads, the BCC
// driver (fast retries) and a plain HTTP client for unsigned and control requests. Torn down in
// the order that lets kept-alive connections go: clients, then the simulator, then the threads.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_future.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "bmc/http/curl_multi_client.hpp"
#include "cloudapi/bcc/bcc_client.hpp"
#include "cloudapi/bcc/bcc_driver.hpp"
#include "sim/cloud/bcc/bcc_simulator.hpp"

namespace ironhold::test::bcc {

namespace asio = boost::asio;
using nlohmann::json;

// Transitions last until the test ends them (BccSimulator::finish_transitions), so what a test
// sees in between never depends on how fast a loaded machine runs it.
inline sim::cloud::bcc::BccSimulatorOptions held_transitions() {
  sim::cloud::bcc::BccSimulatorOptions options;
  options.transition = std::chrono::hours(1);
  return options;
}

inline cloudapi::bcc::BccDriverOptions fast_driver() {
  cloudapi::bcc::BccDriverOptions options;
  options.client.retry.base_delay = std::chrono::milliseconds(5);
  options.client.retry.max_delay = std::chrono::milliseconds(20);
  options.client.retry.jitter = 0;
  options.client.request_timeout = std::chrono::milliseconds(10'000);
  return options;
}

class BccTestBed {
 public:
  explicit BccTestBed(sim::cloud::bcc::BccSimulatorOptions sim_options = held_transitions(),
                      cloudapi::bcc::BccDriverOptions driver_options = fast_driver()) {
    simulator = std::make_unique<sim::cloud::bcc::BccSimulator>(io, std::move(sim_options));
    const auto bound = simulator->listen({asio::ip::make_address("127.0.0.1"), 0});
    endpoint = "http://127.0.0.1:" + std::to_string(bound.port());
    driver = std::make_unique<cloudapi::bcc::BccDriver>(io.get_executor(), driver_options);
    client = std::make_unique<cloudapi::bcc::BccClient>(io.get_executor(), driver_options.client);
    raw = std::make_unique<bmc::http::CurlMultiClient>(io.get_executor());
    for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { io.run(); });
  }

  ~BccTestBed() {
    driver.reset();
    client.reset();
    raw.reset();
    simulator->close();
    guard_.reset();
    io.stop();
    for (auto& t : threads_) t.join();
  }
  BccTestBed(const BccTestBed&) = delete;
  BccTestBed& operator=(const BccTestBed&) = delete;

  template <class T>
  T run(asio::awaitable<T> work) {
    return asio::co_spawn(io, std::move(work), asio::use_future).get();
  }

  CloudAccountTarget account() const {
    CloudAccountTarget a;
    a.account_id = "acct-bcc-1";
    a.account_name = "bcc test";
    a.provider = "bcc";
    a.endpoint = endpoint;
    a.region = "bj";
    a.credentials = {{"access_key", simulator->options().access_key},
                     {"secret_key", simulator->options().secret_key}};
    return a;
  }

  cloudapi::bcc::BccAccess access() const { return *cloudapi::bcc::bcc_access(account()).access; }

  // An unsigned request (control routes, or what a client without credentials sends).
  bmc::http::HttpResponse plain(const std::string& method, const std::string& target,
                                const std::string& body = {}, bmc::http::HeaderList headers = {}) {
    bmc::http::HttpRequest request;
    request.method = method;
    request.url = endpoint + target;
    request.body = body;
    request.headers = std::move(headers);
    request.tls.mode = bmc::http::TlsPolicy::Mode::none;
    auto result = run(raw->request(std::move(request)));
    REQUIRE(result.ok());
    return result.response();
  }

  json sim_instance(const std::string& id) {
    for (const auto& i : simulator->instances())
      if (i.at("id") == id) return i;
    FAIL("no simulated instance " << id);
    return {};
  }

  // Waits until the simulated instance shows `status` (bounded so that a bug cannot hang the
  // suite; generous so that a loaded machine does not fail it).
  bool wait_for_status(const std::string& id, const std::string& status) {
    for (int i = 0; i < 600; ++i) {
      if (sim_instance(id).at("status") == status) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return false;
  }

  asio::io_context io;
  std::unique_ptr<sim::cloud::bcc::BccSimulator> simulator;
  std::unique_ptr<cloudapi::bcc::BccDriver> driver;
  std::unique_ptr<cloudapi::bcc::BccClient> client;
  std::unique_ptr<bmc::http::CurlMultiClient> raw;
  std::string endpoint;

 private:
  asio::executor_work_guard<asio::io_context::executor_type> guard_ = asio::make_work_guard(io);
  std::vector<std::thread> threads_;
};

}  // namespace ironhold::test::bcc
