// Known answers from a real RMCP+ session: ipmitool (cipher suite 3) against OpenIPMI's ipmi_sim,
// captured and decoded in ../shared/ipmi-sim/ipmi-session-decode.txt. The packets' bytes and the
// keys the decode derived are read from that file; the driver's codec and key derivation must
// reproduce every code, key and payload, and encode the console's packets byte for byte.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "bmc/ipmi/lan_message.hpp"
#include "bmc/ipmi/rakp.hpp"
#include "bmc/ipmi/session_packet.hpp"
#include "tests/bmc/ipmi/capture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace session_decode_test {

using namespace ironhold::bmc::ipmi;
using namespace ironhold::bmc::ipmi::testing;

namespace {

SessionPacket open_ok(ByteView raw, const SessionSecurity* security) {
  auto opened = open_packet(raw, security);
  if (auto* error = std::get_if<std::string>(&opened)) FAIL(*error);
  return std::get<SessionPacket>(std::move(opened));
}

Bytes slice(const Bytes& bytes, std::size_t from, std::size_t count) {
  REQUIRE(from + count <= bytes.size());
  return Bytes(bytes.begin() + static_cast<std::ptrdiff_t>(from),
               bytes.begin() + static_cast<std::ptrdiff_t>(from + count));
}

std::uint32_t le32_at(const Bytes& b, std::size_t at) {
  return static_cast<std::uint32_t>(b.at(at) | (b.at(at + 1) << 8) | (b.at(at + 2) << 16) |
                                    (b.at(at + 3) << 24));
}

}  // namespace

TEST_CASE("a captured suite-3 session decodes, verifies and re-encodes byte for byte",
          "[ipmi][rmcpplus]") {
  if (!std::filesystem::exists(decode_file)) {
    WARN("skipped: no " << decode_file.string());
    return;
  }
  const Capture c = read_capture();
  REQUIRE(c.raw.size() == 22);
  REQUIRE(c.keys.size() == 3);

  // #1/#2: Get Channel Authentication Capabilities in an IPMI v1.5 wrapper.
  const SessionPacket ask = open_ok(c.raw.at(1), nullptr);
  CHECK_FALSE(ask.rmcp_plus);
  const auto ask_message = decode_lan_message(ask.payload);
  REQUIRE(std::holds_alternative<LanMessage>(ask_message));
  const LanMessage& get_caps = std::get<LanMessage>(ask_message);
  CHECK(get_caps.netfn == 0x06);
  CHECK(get_caps.command == 0x38);
  CHECK(seal_v15_packet(encode_lan_message(get_caps)) == c.raw.at(1));
  const auto answer = decode_lan_message(open_ok(c.raw.at(2), nullptr).payload);
  REQUIRE(std::holds_alternative<LanMessage>(answer));
  CHECK(std::get<LanMessage>(answer).netfn == 0x07);
  CHECK(std::get<LanMessage>(answer).data.at(0) == 0x00);  // completion code

  // #3/#4: Open Session; #5-#8: RAKP 1-4, all in the clear.
  const SessionPacket open_request = open_ok(c.raw.at(3), nullptr);
  CHECK(open_request.type == PayloadType::open_session_request);
  CHECK(seal_packet(PayloadType::open_session_request, 0, 0, open_request.payload, nullptr, {}) ==
        c.raw.at(3));
  const SessionPacket open_response = open_ok(c.raw.at(4), nullptr);
  CHECK(open_response.type == PayloadType::open_session_response);
  const Bytes rakp1 = open_ok(c.raw.at(5), nullptr).payload;
  const Bytes rakp2 = open_ok(c.raw.at(6), nullptr).payload;
  const Bytes rakp3 = open_ok(c.raw.at(7), nullptr).payload;
  const Bytes rakp4 = open_ok(c.raw.at(8), nullptr).payload;

  RakpExchange x;
  x.suite = *cipher_suite(3);
  x.console_session_id = le32_at(open_request.payload, 4);
  x.bmc_session_id = le32_at(open_response.payload, 8);
  CHECK(le32_at(rakp1, 4) == x.bmc_session_id);
  x.console_random = slice(rakp1, 8, 16);
  x.role = rakp1.at(24);
  x.user.assign(rakp1.begin() + 28, rakp1.begin() + 28 + rakp1.at(27));
  CHECK(x.user == "admin");
  x.password = "password";  // the capture's test credentials
  CHECK(le32_at(rakp2, 4) == x.console_session_id);
  x.bmc_random = slice(rakp2, 8, 16);
  x.bmc_guid = slice(rakp2, 24, 16);

  CHECK(rakp2_code(x) == slice(rakp2, 40, 20));
  CHECK(rakp3_code(x) == slice(rakp3, 8, 20));
  const SessionKeys keys = derive_keys(x);
  CHECK(keys.sik == c.keys.at("SIK"));
  CHECK(keys.k1 == c.keys.at("K1"));
  CHECK(keys.k2 == c.keys.at("K2"));
  CHECK(rakp4_icv(x, keys) == slice(rakp4, 8, 12));
  RakpExchange wrong = x;
  wrong.password = "passw0rd";
  CHECK_FALSE(codes_match(rakp2_code(wrong), slice(rakp2, 40, 20)));

  // #9-#22: the session proper, encrypted and signed both ways.
  const SessionSecurity security{x.suite, keys};
  for (int n = 9; n <= 22; ++n) {
    INFO("packet #" << n);
    const Bytes& raw = c.raw.at(n);
    const SessionPacket packet = open_ok(raw, &security);
    CHECK(packet.encrypted);
    CHECK(packet.authenticated);
    CHECK(packet.payload == plaintext(c, n));
    CHECK(std::holds_alternative<LanMessage>(decode_lan_message(packet.payload)));
    // Sealed again with the packet's own IV, it is the same packet.
    const Bytes iv = slice(raw, 16, 16);
    CHECK(seal_packet(PayloadType::ipmi_message, packet.session_id, packet.sequence, packet.payload,
                      &security, iv) == raw);
  }
}

TEST_CASE("forged, damaged, truncated and out-of-session packets are refused with a reason",
          "[ipmi][rmcpplus]") {
  if (!std::filesystem::exists(decode_file)) {
    WARN("skipped: no " << decode_file.string());
    return;
  }
  const Capture c = read_capture();
  RakpExchange x;
  x.suite = *cipher_suite(3);
  const Bytes rakp1 = open_ok(c.raw.at(5), nullptr).payload;
  const Bytes rakp2 = open_ok(c.raw.at(6), nullptr).payload;
  x.console_session_id = le32_at(rakp2, 4);
  x.bmc_session_id = le32_at(rakp1, 4);
  x.console_random = slice(rakp1, 8, 16);
  x.role = rakp1.at(24);
  x.user = "admin";
  x.password = "password";
  x.bmc_random = slice(rakp2, 8, 16);
  x.bmc_guid = slice(rakp2, 24, 16);
  const SessionSecurity security{x.suite, derive_keys(x)};
  const Bytes& good = c.raw.at(20);
  REQUIRE(std::holds_alternative<SessionPacket>(open_packet(good, &security)));

  const auto refused = [&](const Bytes& raw, const SessionSecurity* with) {
    auto opened = open_packet(raw, with);
    REQUIRE(std::holds_alternative<std::string>(opened));
    return std::get<std::string>(opened);
  };
  Bytes flipped = good;
  flipped[20] ^= 0x01;  // one ciphertext bit
  CHECK(refused(flipped, &security).find("integrity") != std::string::npos);
  Bytes forged_code = good;
  forged_code.back() ^= 0x80;
  CHECK(refused(forged_code, &security).find("integrity") != std::string::npos);
  for (std::size_t keep : {0, 3, 10, 15, 30, 60})
    CHECK_FALSE(
        refused(Bytes(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(keep)), &security)
            .empty());
  CHECK(refused(good, nullptr).find("outside") != std::string::npos);
  RakpExchange other = x;
  other.password = "not-it";
  const SessionSecurity wrong_keys{x.suite, derive_keys(other)};
  CHECK(refused(good, &wrong_keys).find("integrity") != std::string::npos);
  // The same message unsigned, in a session that signs: not ours.
  const Bytes clear = seal_packet(PayloadType::ipmi_message, 1, 1, Bytes{1, 2, 3}, nullptr, {});
  CHECK(refused(clear, &security).find("unsigned") != std::string::npos);
}

TEST_CASE("suite 17 signs and encrypts with SHA-256 keys and 16-byte codes", "[ipmi][rmcpplus]") {
  RakpExchange x;
  x.suite = *cipher_suite(17);
  x.console_session_id = 0x11223344;
  x.bmc_session_id = 0x55667788;
  x.console_random = Bytes(16, 0xA5);
  x.bmc_random = Bytes(16, 0x5A);
  x.bmc_guid = Bytes(16, 0x01);
  x.role = 0x14;
  x.user = "admin";
  x.password = "password";
  const SessionKeys keys = derive_keys(x);
  CHECK(keys.sik.size() == 32);
  CHECK(keys.k1.size() == 32);
  CHECK(rakp2_code(x).size() == 32);
  CHECK(rakp4_icv(x, keys).size() == 16);
  const SessionSecurity security{x.suite, keys};
  const Bytes message = encode_lan_message(LanMessage{.netfn = 0x00, .command = 0x01});
  const Bytes iv(16, 0x42);
  const Bytes sealed = seal_packet(PayloadType::ipmi_message, 7, 9, message, &security, iv);
  CHECK((sealed.size() - 4 - 12 - 16) % 4 == 0);  // padded to four bytes before the AuthCode
  const auto opened = open_packet(sealed, &security);
  REQUIRE(std::holds_alternative<SessionPacket>(opened));
  CHECK(std::get<SessionPacket>(opened).payload == message);
  CHECK(std::get<SessionPacket>(opened).sequence == 9);
  // A suite-3 key set cannot open it.
  RakpExchange sha1 = x;
  sha1.suite = *cipher_suite(3);
  const SessionSecurity suite3{sha1.suite, derive_keys(sha1)};
  CHECK(std::holds_alternative<std::string>(open_packet(sealed, &suite3)));
  CHECK_FALSE(cipher_suite(2));
}

}  // namespace session_decode_test
