#pragma once
// An OpenStack simulator on 127.0.0.1:0 with an io_context thread, and a blocking HTTP helper
// (the project's libcurl client) for the simulator and driver tests.
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "bmc/http/curl_multi_client.hpp"
#include "sim/cloud/openstack/openstack_simulator.hpp"

namespace ironhold::test::openstack {

struct Reply {
  long status = 0;
  std::string body;
  bmc::http::HeaderList headers;
  std::string error;  // the transport's, when no answer came
  nlohmann::json doc() const { return nlohmann::json::parse(body, nullptr, false); }
  std::string header(std::string_view name) const {
    bmc::http::HttpResponse r;
    r.headers = headers;
    return r.header(name).value_or("");
  }
};

class SimFixture {
 public:
  explicit SimFixture(sim::cloud::openstack::OpenStackSimulatorOptions options = {})
      : work_(io_.get_executor()),
        sim_(std::make_unique<sim::cloud::openstack::OpenStackSimulator>(io_, std::move(options))) {
    const auto bound =
        sim_->listen(boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
    base_ = "http://127.0.0.1:" + std::to_string(bound.port());
    client_ = std::make_unique<bmc::http::CurlMultiClient>(io_.get_executor());
    thread_ = std::thread([this] { io_.run(); });
  }
  ~SimFixture() {
    client_.reset();
    work_.reset();
    io_.stop();
    thread_.join();
    sim_.reset();
  }
  SimFixture(const SimFixture&) = delete;
  SimFixture& operator=(const SimFixture&) = delete;

  boost::asio::io_context& io() { return io_; }
  sim::cloud::openstack::OpenStackSimulator& sim() { return *sim_; }
  const std::string& base() const { return base_; }
  std::string auth_url() const { return base_ + "/identity/v3"; }

  template <class T>
  T run(boost::asio::awaitable<T> work) {
    return boost::asio::co_spawn(io_, std::move(work), boost::asio::use_future).get();
  }

  // One request to the simulator (path relative to base()).
  Reply call(const std::string& method, const std::string& path, const std::string& body = "",
             bmc::http::HeaderList headers = {}) {
    bmc::http::HttpRequest request;
    request.method = method;
    request.url = base_ + path;
    request.body = body;
    request.headers = std::move(headers);
    request.tls.mode = bmc::http::TlsPolicy::Mode::none;  // the simulator speaks plain HTTP
    if (!body.empty()) request.headers.emplace_back("Content-Type", "application/json");
    bmc::http::HttpResult result = run(client_->request(std::move(request)));
    Reply out;
    if (!result.ok()) {
      out.error = result.error().message;
      return out;
    }
    out.status = result.response().status;
    out.body = result.response().body;
    out.headers = result.response().headers;
    return out;
  }

  // A token for the simulator's default user.
  std::string token(const std::string& password = "openstack") {
    const nlohmann::json body = {
        {"auth",
         {{"identity",
           {{"methods", {"password"}},
            {"password",
             {{"user",
               {{"name", "admin"}, {"domain", {{"name", "Default"}}}, {"password", password}}}}}}},
          {"scope", {{"project", {{"name", "gpu-team"}, {"domain", {{"name", "Default"}}}}}}}}}};
    return call("POST", "/identity/v3/auth/tokens", body.dump()).header("X-Subject-Token");
  }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::unique_ptr<sim::cloud::openstack::OpenStackSimulator> sim_;
  std::unique_ptr<bmc::http::CurlMultiClient> client_;
  std::string base_;
  std::thread thread_;
};

}  // namespace ironhold::test::openstack
