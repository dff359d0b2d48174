#pragma once
// A simulated OpenStack cloud: Keystone v3 (password and application-credential auth, tokens
// that expire) and Nova v2.1 (microversions up to 2.96, servers with GPU flavors, paginated
// servers/detail, start/stop/reboot/rebuild moving through Nova's task states) on one port, for
// the demo, the driver tests and openstacksdk. Paths: /identity/v3/... and /compute/v2.1/...;
// test controls (faults, terminate, raw state) under /_sim/.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "sim/cloud/api_server.hpp"

namespace ironhold::sim::cloud::openstack {

struct ApplicationCredential {
  std::string id;
  std::string secret;
};

struct OpenStackSimulatorOptions {
  // The one user Keystone knows, and the project its tokens are scoped to.
  std::string username = "admin";
  std::string password = "openstack";
  std::string user_domain_name = "Default";
  std::string project_name = "gpu-team";
  std::string project_domain_name = "Default";
  // Accepted besides the password when set (bound to the same user and project).
  std::optional<ApplicationCredential> application_credential;
  std::string region = "RegionOne";
  std::size_t page_size = 2;  // servers/detail's largest page, small so pagination shows
  std::chrono::milliseconds transition{1500};  // how long a task state lasts
  std::chrono::milliseconds token_lifetime{std::chrono::hours(1)};
  int max_microversion = 96;  // 2.<n>; below 47 flavors are not embedded in servers
  bool default_fleet = true;  // H100x8, A100x8, A10 and L4 vGPU servers; false: none
};

class OpenStackSimulator {
 public:
  explicit OpenStackSimulator(boost::asio::io_context& io, OpenStackSimulatorOptions options = {});
  ~OpenStackSimulator();
  OpenStackSimulator(const OpenStackSimulator&) = delete;
  OpenStackSimulator& operator=(const OpenStackSimulator&) = delete;

  // Binds (port 0: a free one) and serves; the bound endpoint.
  boost::asio::ip::tcp::endpoint listen(const boost::asio::ip::tcp::endpoint& endpoint);
  void close();

  // "http://127.0.0.1:PORT/identity/v3" once listening.
  std::string auth_url() const;
  // What GET /_sim/instances answers: every server's raw state, deleted ones included.
  nlohmann::json instances() const;
  // One request, as the server would answer it (for tests without a socket).
  ApiReply handle(const ApiRequest& request);

  struct State;

 private:
  std::shared_ptr<State> state_;
  std::unique_ptr<ApiServer> server_;
  boost::asio::ip::tcp::endpoint bound_;
};

}  // namespace ironhold::sim::cloud::openstack
