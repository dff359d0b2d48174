// The simulated IPMI BMC driven datagram by datagram with Ironhold's own IPMI codec as the
// console: the RMCP+ handshake for suites 3 and 17, refusals with their status codes, privilege
// limits, sequence-number replay handling, the session limit, lockout, and garbage that must be
// dropped without harm.
#include <catch2/catch.hpp>
#include <random>

#include "bmc/ipmi/commands.hpp"
#include "bmc/ipmi/lan_message.hpp"
#include "bmc/ipmi/rakp.hpp"
#include "bmc/ipmi/session_packet.hpp"
#include "sim/ipmi/simulated_bmc.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace ipmi_protocol_test {

using namespace ironhold::bmc::ipmi;
using ironhold::sim::ipmi::BmcConfig;
using ironhold::sim::ipmi::SimulatedBmc;

namespace {

// A console talking to one SimulatedBmc without a socket.
struct Console {
  SimulatedBmc& bmc;
  CipherSuite suite;
  std::uint32_t console_id = 0xA1B2C3D4;
  std::uint32_t bmc_id = 0;
  SessionSecurity security;
  std::uint32_t sequence = 0;
  std::uint8_t rq_seq = 0;

  std::optional<SessionPacket> exchange(const Bytes& datagram,
                                        const SessionSecurity* sec = nullptr) {
    const auto reply = bmc.handle_datagram(datagram, "127.0.0.1:1");
    if (!reply) return std::nullopt;
    auto opened = open_packet(*reply, sec);
    if (auto* packet = std::get_if<SessionPacket>(&opened)) return *packet;
    FAIL("the BMC's answer does not decode: " << std::get<std::string>(opened));
    return std::nullopt;
  }

  Bytes open_request(std::uint8_t privilege = 4) const {
    Bytes p{0x01, privilege, 0x00, 0x00};
    put_u32(p, console_id);
    const std::uint8_t algs[] = {static_cast<std::uint8_t>(suite.auth),
                                 static_cast<std::uint8_t>(suite.integrity),
                                 static_cast<std::uint8_t>(suite.confidentiality)};
    for (std::uint8_t k = 0; k < 3; ++k) put(p, Bytes{k, 0, 0, 8, algs[k], 0, 0, 0});
    return p;
  }

  // Open Session status (0: accepted, bmc_id set).
  std::uint8_t open(std::uint8_t privilege = 4) {
    const auto r = exchange(
        seal_packet(PayloadType::open_session_request, 0, 0, open_request(privilege), nullptr, {}));
    REQUIRE(r);
    REQUIRE(r->type == PayloadType::open_session_response);
    REQUIRE(r->payload.size() >= 8);
    if (r->payload[1] == 0) {
      REQUIRE(r->payload.size() == 36);
      ByteReader in(r->payload);
      in.take(8);
      bmc_id = *in.u32();
    }
    return r->payload[1];
  }

  // RAKP 1 to 4; returns the first non-zero status (RAKP 2's or RAKP 4's), 0 when logged in.
  std::uint8_t login(const std::string& user, const std::string& password,
                     std::uint8_t role = 0x14) {
    RakpExchange x;
    x.suite = suite;
    x.console_session_id = console_id;
    x.bmc_session_id = bmc_id;
    x.console_random = Bytes(16, 0x5A);
    x.role = role;
    x.user = user;
    x.password = password;
    Bytes rakp1{0x02, 0, 0, 0};
    put_u32(rakp1, bmc_id);
    put(rakp1, x.console_random);
    put(rakp1, Bytes{role, 0, 0, static_cast<std::uint8_t>(user.size())});
    rakp1.insert(rakp1.end(), user.begin(), user.end());
    const auto r2 = exchange(seal_packet(PayloadType::rakp1, 0, 0, rakp1, nullptr, {}));
    REQUIRE(r2);
    REQUIRE(r2->type == PayloadType::rakp2);
    if (r2->payload[1] != 0) return r2->payload[1];
    REQUIRE(r2->payload.size() == 40 + suite.auth_code_length());
    x.bmc_random.assign(r2->payload.begin() + 8, r2->payload.begin() + 24);
    x.bmc_guid.assign(r2->payload.begin() + 24, r2->payload.begin() + 40);
    const Bytes code(r2->payload.begin() + 40, r2->payload.end());
    // The BMC proves it knows the password the console used (only when it is the right one).
    const bool bmc_agrees = codes_match(code, rakp2_code(x));

    Bytes rakp3{0x03, 0x00, 0, 0};
    put_u32(rakp3, bmc_id);
    put(rakp3, rakp3_code(x));
    const auto r4 = exchange(seal_packet(PayloadType::rakp3, 0, 0, rakp3, nullptr, {}));
    REQUIRE(r4);
    REQUIRE(r4->type == PayloadType::rakp4);
    if (r4->payload[1] != 0) return r4->payload[1];
    REQUIRE(bmc_agrees);
    security.suite = suite;
    security.keys = derive_keys(x);
    const Bytes icv(r4->payload.begin() + 8, r4->payload.end());
    REQUIRE(codes_match(icv, rakp4_icv(x, security.keys)));
    return 0;
  }

  Bytes request(std::uint8_t netfn, std::uint8_t command, const Bytes& data, std::uint32_t seq) {
    LanMessage m;
    m.netfn = netfn;
    m.command = command;
    m.sequence = static_cast<std::uint8_t>(++rq_seq & 0x3F);
    m.data = data;
    const Bytes iv(16, 0x33);
    return seal_packet(PayloadType::ipmi_message, bmc_id, seq, encode_lan_message(m), &security,
                       iv);
  }

  // The response data (completion code first), or nothing when the BMC did not answer.
  std::optional<Bytes> command(std::uint8_t netfn, std::uint8_t cmd, const Bytes& data = {}) {
    return answer(request(netfn, cmd, data, ++sequence));
  }

  std::optional<Bytes> answer(const Bytes& datagram) {
    const auto r = exchange(datagram, &security);
    if (!r) return std::nullopt;
    REQUIRE(r->session_id == console_id);
    const auto decoded = decode_lan_message(r->payload);
    REQUIRE(std::holds_alternative<LanMessage>(decoded));
    return std::get<LanMessage>(decoded).data;
  }
};

Console console_for(SimulatedBmc& bmc, std::uint8_t suite) {
  return Console{bmc, *cipher_suite(suite)};
}

}  // namespace

TEST_CASE("an RMCP+ session over suites 3 and 17 reads and changes the chassis",
          "[sim][ipmi][protocol]") {
  const std::uint8_t suite = GENERATE(3, 17);
  SimulatedBmc bmc(BmcConfig{});
  Console c = console_for(bmc, suite);
  REQUIRE(c.open() == 0);
  REQUIRE(c.login("admin", "password") == 0);
  CHECK(bmc.counters().sessions_opened == 1);

  auto status = c.command(kNetFnChassis, 0x01);
  REQUIRE(status);
  CHECK((*status)[0] == 0x00);
  CHECK(((*status)[1] & 0x01) == 1);  // on

  // Sessions start at USER: power control needs the session raised to OPERATOR or above.
  CHECK(c.command(kNetFnChassis, 0x02, {0x00})->at(0) == 0xD4);
  CHECK(*c.command(kNetFnApp, 0x3B, {0x04}) == Bytes{0x00, 0x04});
  CHECK(c.command(kNetFnChassis, 0x02, {0x00})->at(0) == 0x00);
  CHECK_FALSE(bmc.power_on());
  CHECK(bmc.counters().power_off == 1);
  CHECK(c.command(kNetFnApp, 0x99)->at(0) == 0xC1);  // unknown command

  CHECK(*c.command(kNetFnApp, 0x3C, [&] {
    Bytes id;
    put_u32(id, c.bmc_id);
    return id;
  }()) == Bytes{0x00});
  CHECK(bmc.counters().sessions_closed == 1);
  CHECK_FALSE(c.command(kNetFnChassis, 0x01));  // the session is gone
}

TEST_CASE(
    "the handshake refuses unknown suites, users, wrong passwords and roles with their status",
    "[sim][ipmi][protocol]") {
  SimulatedBmc bmc(BmcConfig{});

  Console suite1{bmc, CipherSuite{1, AuthAlgorithm::hmac_sha1, IntegrityAlgorithm::none,
                                  ConfidentialityAlgorithm::none}};
  CHECK(suite1.open() == 0x11);  // no cipher suite match
  CHECK(bmc.counters().sessions_refused == 1);

  Console c = console_for(bmc, 3);
  REQUIRE(c.open() == 0);
  CHECK(c.login("nobody", "password") == 0x0D);  // unauthorized name

  REQUIRE(c.open() == 0);
  CHECK(c.login("admin", "wrong-password") == 0x0F);  // invalid integrity check value
  CHECK(bmc.counters().logins_failed == 2);

  // readonly is a USER: it may not ask for ADMINISTRATOR, and 0 gives it USER.
  REQUIRE(c.open(0) == 0);
  CHECK(c.login("readonly", "readonly", 0x14) == 0x0A);
  REQUIRE(c.open(0) == 0);
  REQUIRE(c.login("readonly", "readonly", 0x10) == 0);
  CHECK(*c.command(kNetFnApp, 0x3B, {0x00}) == Bytes{0x00, 0x02});
  CHECK(c.command(kNetFnApp, 0x3B, {0x03})->at(0) == 0x81);
  CHECK(c.command(kNetFnChassis, 0x02, {0x00})->at(0) == 0xD4);
  CHECK(bmc.power_on());
  CHECK(bmc.counters().power_off == 0);
}

TEST_CASE("replayed and out-of-window requests are not executed twice", "[sim][ipmi][protocol]") {
  SimulatedBmc bmc(BmcConfig{});
  Console c = console_for(bmc, 17);
  REQUIRE(c.open() == 0);
  REQUIRE(c.login("operator", "operator", 0x13) == 0);
  REQUIRE(c.command(kNetFnApp, 0x3B, {0x03})->at(0) == 0x00);

  const Bytes identify = c.request(kNetFnChassis, 0x04, {0x05}, ++c.sequence);
  REQUIRE(c.answer(identify)->at(0) == 0x00);
  CHECK(bmc.counters().identify == 1);
  // The same datagram again (our answer was lost): the same answer, not a second action.
  const auto again = bmc.handle_datagram(identify, "127.0.0.1:1");
  REQUIRE(again);
  CHECK(bmc.counters().identify == 1);

  const Bytes older = c.request(kNetFnChassis, 0x04, {0x05}, c.sequence - 1);
  CHECK_FALSE(bmc.handle_datagram(older, "127.0.0.1:1"));  // sequence 2 was taken
  const Bytes far_ahead = c.request(kNetFnChassis, 0x04, {0x05}, c.sequence + 100);
  CHECK_FALSE(bmc.handle_datagram(far_ahead, "127.0.0.1:1"));
  CHECK(bmc.counters().identify == 1);
  // A forged packet (one bit of the AuthCode flipped) is dropped.
  Bytes forged = c.request(kNetFnChassis, 0x04, {0x05}, ++c.sequence);
  forged.back() ^= 0x01;
  CHECK_FALSE(bmc.handle_datagram(forged, "127.0.0.1:1"));
  CHECK(c.command(kNetFnChassis, 0x04, {0x05})->at(0) == 0x00);
  CHECK(bmc.counters().identify == 2);
}

TEST_CASE("the session table is bounded and lockout rejects logins", "[sim][ipmi][protocol]") {
  BmcConfig config;
  config.max_sessions = 2;
  config.lockout_after = 3;
  SimulatedBmc bmc(config);
  Console a = console_for(bmc, 3), b = console_for(bmc, 3), c = console_for(bmc, 3);
  REQUIRE(a.open() == 0);
  REQUIRE(b.open() == 0);
  CHECK(c.open() == 0x01);  // insufficient resources
  CHECK(bmc.expire_sessions() == 2);

  // Three wrong passwords in a row lock the user: the right one fails too, for a while.
  for (int i = 0; i < 3; ++i) {
    REQUIRE(c.open() == 0);
    CHECK(c.login("operator", "nope", 0x13) == 0x0F);
  }
  REQUIRE(c.open() == 0);
  CHECK(c.login("operator", "operator", 0x13) == 0x0D);
  // The admin is not locked, until the lockout fault locks everyone.
  REQUIRE(c.open() == 0);
  CHECK(c.login("admin", "password") == 0);
  bmc.set_faults({.lockout = true});
  REQUIRE(c.open() == 0);
  CHECK(c.login("admin", "password") == 0x0D);
  CHECK(bmc.counters().logins_failed == 5);
}

TEST_CASE("garbage, truncated and mangled datagrams are dropped and the BMC keeps serving",
          "[sim][ipmi][protocol]") {
  SimulatedBmc bmc(BmcConfig{});
  Console c = console_for(bmc, 17);
  REQUIRE(c.open() == 0);
  REQUIRE(c.login("admin", "password") == 0);
  const Bytes valid = c.request(kNetFnChassis, 0x01, {}, 1000);
  const Bytes handshake =
      seal_packet(PayloadType::open_session_request, 0, 0, c.open_request(), nullptr, {});
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int round = 0; round < 3000; ++round) {
    Bytes d = (round % 2 ? valid : handshake);
    switch (round % 4) {
      case 0:
        d.resize(static_cast<std::size_t>(byte(rng)) % (d.size() + 1));
        break;
      case 1:
        for (int k = 0; k < 3; ++k) d[static_cast<std::size_t>(byte(rng)) % d.size()] ^= 0xFF;
        break;
      case 2:
        d.resize(static_cast<std::size_t>(byte(rng)) % 200);
        for (auto& b : d) b = static_cast<std::uint8_t>(byte(rng));
        if (d.size() > 4) d[0] = 0x06, d[3] = 0x07, d[4] = round % 8 ? 0x06 : 0x00;
        break;
      default:
        d.insert(d.end(), static_cast<std::size_t>(byte(rng)) % 40, 0xAB);
        break;
    }
    (void)bmc.handle_datagram(d, "127.0.0.1:2");
  }
  // Mangled handshakes may have opened sessions; they never became active, and ours still works.
  bmc.expire_sessions();
  Console fresh = console_for(bmc, 3);
  REQUIRE(fresh.open() == 0);
  REQUIRE(fresh.login("admin", "password") == 0);
  CHECK(fresh.command(kNetFnChassis, 0x01)->at(0) == 0x00);
}

}  // namespace ipmi_protocol_test
