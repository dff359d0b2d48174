// The RMCP+ client against OpenIPMI's ipmi_sim, a real IPMI v2.0 peer nobody here wrote: session
// set-up with suite 3, reuse, close, re-opening after the BMC restarts; refusals (wrong password,
// unknown user, suites it lacks, privilege above the user's); silence; and, through a tampering
// relay, forged and replayed answers, which are dropped. Each test case has its own 127.0.83.x
// address (ctest runs them in parallel).
#include "bmc/ipmi/lan_client.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <mutex>

#include "bmc/ipmi/commands.hpp"
#include "tests/bmc/http/io_threads.hpp"
#include "tests/bmc/ipmi/udp_proxy.hpp"
#include "tests/support/server/bmc_peers.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace lan_client_test {

using namespace ironhold;
using namespace ironhold::bmc::ipmi;
using boost::asio::ip::udp;
using test::IoThreads;
using test::IpmiSim;

namespace {

#define SKIP_WITHOUT_IPMI_SIM()            \
  if (auto why = IpmiSim::unavailable()) { \
    WARN("skipped: " << *why);             \
    return;                                \
  }

SessionParams params_for(const std::string& address, unsigned short port,
                         std::string user = "admin", std::string password = "password") {
  SessionParams p;
  p.bmc = udp::endpoint(boost::asio::ip::make_address(address), port);
  p.user = std::move(user);
  p.password = std::move(password);
  p.cipher_suites = {3};
  return p;
}

LanClientOptions quick() {
  LanClientOptions o;
  o.first_timeout = std::chrono::milliseconds(200);
  o.max_timeout = std::chrono::milliseconds(400);
  o.attempts = 3;
  return o;
}

DeviceId device_id_of(const CallResult& r) {
  if (r.error) FAIL(r.error->message);
  REQUIRE(r.completion_code == 0);
  auto parsed = parse_device_id(r.data);
  if (auto* e = std::get_if<std::string>(&parsed)) FAIL(*e);
  return std::get<DeviceId>(parsed);
}

bool power_on(IoThreads& io, LanClient& client, const SessionParams& p) {
  const CallResult r = io.run(client.call(p, get_chassis_status()));
  if (r.error) FAIL(r.error->message);
  REQUIRE(r.completion_code == 0);
  auto parsed = parse_chassis_status(r.data);
  REQUIRE(std::holds_alternative<ChassisStatus>(parsed));
  return std::get<ChassisStatus>(parsed).power_on;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text;
}

}  // namespace

TEST_CASE("a suite-3 session with ipmi_sim is opened once, reused and closed",
          "[ipmi][lan_client][ipmi_sim]") {
  SKIP_WITHOUT_IPMI_SIM();
  IpmiSim sim("127.0.83.1");
  IoThreads io;
  LanClient client(io.io.get_executor());
  const auto p = params_for(sim.address(), sim.port());

  // ipmi_sim's Get Device ID, as its README documents it.
  const DeviceId id = device_id_of(io.run(client.call(p, get_device_id())));
  CHECK(id.firmware == "1.23");
  CHECK(id.ipmi_version == "2.0");
  CHECK(id.manufacturer_id == 0x0A1B2Cu);
  CHECK(id.product_id == 0x3D4E);

  // Power goes through the session and reaches the simulator's chassis script.
  CHECK_FALSE(power_on(io, client, p));
  const CallResult on = io.run(client.call(p, chassis_control(ChassisControl::power_on)));
  REQUIRE_FALSE(on.error);
  CHECK(on.completion_code == 0);
  CHECK(read_file(sim.state_dir() / "chassis" / "log").find("set power 1") != std::string::npos);
  CHECK(power_on(io, client, p));

  auto stats = client.stats();
  CHECK(stats.sessions_opened == 1);
  CHECK(stats.open_sessions == 1);
  CHECK(stats.retransmissions == 0);

  io.run(client.close_all());
  stats = client.stats();
  CHECK(stats.sessions_closed == 1);
  CHECK(stats.open_sessions == 0);

  // Usable after closing: the next call opens a new session.
  device_id_of(io.run(client.call(p, get_device_id())));
  CHECK(client.stats().sessions_opened == 2);
  io.run(client.close_all());
}

TEST_CASE("the preferred suites are tried in order, none that the BMC has is a clear error",
          "[ipmi][lan_client][ipmi_sim]") {
  SKIP_WITHOUT_IPMI_SIM();
  IpmiSim sim("127.0.83.2");
  IoThreads io;
  LanClient client(io.io.get_executor(), quick());
  auto p = params_for(sim.address(), sim.port());

  p.cipher_suites = {17};  // ipmi_sim has no SHA-256
  const CallResult only17 = io.run(client.call(p, get_device_id()));
  REQUIRE(only17.error);
  CHECK(only17.error->code == DriverErrorCode::unsupported);
  CHECK_THAT(only17.error->message, Catch::Contains("accepts none of cipher suites 17"));
  CHECK_THAT(only17.error->message, Catch::Contains("it offers 0, 1, 2, 3"));

  p.cipher_suites = {17, 3};  // falls back to 3
  device_id_of(io.run(client.call(p, get_device_id())));
  io.run(client.close_all());

  // Suite 0 (no authentication, integrity or encryption) only when a node lists it explicitly;
  // ipmi_sim offers it.
  p.cipher_suites = {0};
  device_id_of(io.run(client.call(p, get_device_id())));
  CHECK(client.stats().sessions_opened == 2);
  io.run(client.close_all());
}

TEST_CASE("wrong credentials are auth_failed and name what was wrong",
          "[ipmi][lan_client][ipmi_sim]") {
  SKIP_WITHOUT_IPMI_SIM();
  IpmiSim sim("127.0.83.3");
  IoThreads io;
  LanClient client(io.io.get_executor(), quick());

  const CallResult wrong_password =
      io.run(client.call(params_for(sim.address(), sim.port(), "admin", "nope"), get_device_id()));
  REQUIRE(wrong_password.error);
  CHECK(wrong_password.error->code == DriverErrorCode::auth_failed);
  CHECK_THAT(wrong_password.error->message, Catch::Contains("wrong password"));
  CHECK_THAT(wrong_password.error->message, Catch::Contains("admin"));

  const CallResult unknown_user = io.run(
      client.call(params_for(sim.address(), sim.port(), "nobody", "password"), get_device_id()));
  REQUIRE(unknown_user.error);
  CHECK(unknown_user.error->code == DriverErrorCode::auth_failed);
  CHECK_THAT(unknown_user.error->message, Catch::Contains("nobody"));

  // (ipmi_sim grants any user administrator; Ironhold's simulator tests the refusal.)
  // The read-only user reads at user level; the operator acts as operator.
  auto viewer = params_for(sim.address(), sim.port(), "viewer", "viewpass");
  viewer.privilege = kPrivilegeUser;
  device_id_of(io.run(client.call(viewer, get_device_id())));
  auto operator_ = params_for(sim.address(), sim.port(), "operator", "operpass");
  operator_.privilege = kPrivilegeOperator;
  CHECK_FALSE(power_on(io, client, operator_));
  // Nothing above left a session open that the client forgot.
  CHECK(client.stats().open_sessions == 2);
  io.run(client.close_all());
  CHECK(client.stats().open_sessions == 0);
}

TEST_CASE("a BMC that does not answer is a timeout, quickly and for that BMC only",
          "[ipmi][lan_client]") {
  IoThreads io;
  LanClient client(io.io.get_executor(), quick());
  const auto silent = test::free_udp_port("127.0.83.4");
  const CallResult r = io.run(client.call(params_for("127.0.83.4", silent), get_device_id()));
  REQUIRE(r.error);
  CHECK(r.error->code == DriverErrorCode::timeout);
  CHECK_THAT(r.error->message, Catch::Contains("127.0.83.4:" + std::to_string(silent)));
  CHECK(client.stats().retransmissions == 2);

  // A device that answers every datagram with junk: each answer is dropped, never misread.
  test::UdpResponder junk("127.0.83.4", {0x06, 0x00, 0xFF, 0x07, 0x06, 0x11, 0, 0, 0, 0});
  const CallResult j = io.run(client.call(params_for("127.0.83.4", junk.port()), get_device_id()));
  REQUIRE(j.error);
  CHECK(j.error->code == DriverErrorCode::timeout);
  CHECK(client.stats().dropped >= 3);
}

TEST_CASE("forged and replayed answers are dropped, the real ones still count",
          "[ipmi][lan_client][ipmi_sim]") {
  SKIP_WITHOUT_IPMI_SIM();
  IpmiSim sim("127.0.83.5");
  test::UdpProxy relay("127.0.83.5", sim.address(), sim.port());
  IoThreads io;
  LanClient client(io.io.get_executor(), quick());
  const auto p = params_for("127.0.83.5", relay.port());
  device_id_of(io.run(client.call(p, get_device_id())));  // the session is up

  // Replay: before each answer, the relay sends every earlier answer again.
  std::vector<test::UdpProxy::Datagram> seen;
  std::mutex seen_mutex;
  relay.set_tamper([&](const test::UdpProxy::Datagram& reply) {
    std::lock_guard lock(seen_mutex);
    auto out = seen;
    out.push_back(reply);
    seen.push_back(reply);
    return out;
  });
  const auto dropped_before = client.stats().dropped;
  CHECK_FALSE(power_on(io, client, p));
  io.run(client.call(p, chassis_control(ChassisControl::power_on)));
  CHECK(power_on(io, client, p));  // the fresh answer, not the replayed "off"
  CHECK(client.stats().dropped >= dropped_before + 3);

  // Forgery: one bit of each signed answer flipped. Nothing gets through; the call times out and
  // the client does not take it for an answer.
  relay.set_tamper([](const test::UdpProxy::Datagram& reply) {
    auto forged = reply;
    forged[forged.size() / 2] ^= 0x01;
    return std::vector<test::UdpProxy::Datagram>{forged};
  });
  const CallResult r = io.run(client.call(p, get_chassis_status()));
  REQUIRE(r.error);
  CHECK(r.error->code == DriverErrorCode::timeout);

  relay.set_tamper(nullptr);
  CHECK(power_on(io, client, p));
  io.run(client.close_all());
}

TEST_CASE("a session the BMC dropped is opened again on the next call",
          "[ipmi][lan_client][ipmi_sim]") {
  SKIP_WITHOUT_IPMI_SIM();
  IoThreads io;
  LanClient client(io.io.get_executor(), quick());
  unsigned short port = 0;
  {
    IpmiSim sim("127.0.83.6");
    port = sim.port();
    device_id_of(io.run(client.call(params_for("127.0.83.6", port), get_device_id())));
  }
  IpmiSim restarted("127.0.83.6", port);  // a new BMC process knows no session
  device_id_of(io.run(client.call(params_for("127.0.83.6", port), get_device_id())));
  CHECK(client.stats().sessions_opened == 2);
  CHECK(client.stats().open_sessions == 1);
  io.run(client.close_all());
}

TEST_CASE("changed credentials close the old session before the new one is used",
          "[ipmi][lan_client][ipmi_sim]") {
  SKIP_WITHOUT_IPMI_SIM();
  IpmiSim sim("127.0.83.7");
  IoThreads io;
  LanClient client(io.io.get_executor(), quick());
  auto p = params_for(sim.address(), sim.port());
  device_id_of(io.run(client.call(p, get_device_id())));
  p.cipher_suites = {3, 17};  // anything that changes the session's terms
  device_id_of(io.run(client.call(p, get_device_id())));
  CHECK(client.stats().sessions_opened == 2);
  // The superseded session's Close Session runs in the background.
  for (int i = 0; i < 100 && client.stats().sessions_closed < 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(client.stats().sessions_closed == 1);
  CHECK(client.stats().open_sessions == 1);
  io.run(client.close_all());
}

}  // namespace lan_client_test
