// The RMCP+ set-up messages: the captured ipmitool/ipmi_sim session's Open Session and RAKP
// payloads decode to what the decode file says they carry and re-encode byte for byte; short and
// refused answers decode as refusals; the sequence window drops replays.
#include "bmc/ipmi/session_setup.hpp"

#include <catch2/catch.hpp>
#include <filesystem>

#include "bmc/ipmi/sequence_window.hpp"
#include "bmc/ipmi/session_packet.hpp"
#include "tests/bmc/ipmi/capture.hpp"

// This file's names, apart from those of the other test files compiled with it.
namespace session_setup_test {

using namespace ironhold::bmc::ipmi;
using namespace ironhold::bmc::ipmi::testing;

namespace {

Bytes payload_of(const Bytes& raw) {
  auto opened = open_packet(raw, nullptr);
  REQUIRE(std::holds_alternative<SessionPacket>(opened));
  return std::get<SessionPacket>(opened).payload;
}

template <class T, class V>
T decoded(const V& v) {
  if (const auto* e = std::get_if<std::string>(&v)) FAIL(*e);
  return std::get<T>(v);
}

}  // namespace

TEST_CASE("the captured session's set-up messages decode and re-encode byte for byte",
          "[ipmi][rmcpplus]") {
  if (!std::filesystem::exists(decode_file)) {
    WARN("skipped: no " << decode_file.string());
    return;
  }
  const Capture c = read_capture();
  const Bytes open_req = payload_of(c.raw.at(3)), open_resp = payload_of(c.raw.at(4));
  const Bytes r1 = payload_of(c.raw.at(5)), r2 = payload_of(c.raw.at(6));
  const Bytes r3 = payload_of(c.raw.at(7)), r4 = payload_of(c.raw.at(8));

  const auto request = decoded<OpenSessionRequest>(decode_open_session_request(open_req));
  // ipmitool asked for suite 3: RAKP-HMAC-SHA1, HMAC-SHA1-96, AES-CBC-128.
  CHECK(suite_with(request.algorithms).value().id == 3);
  CHECK(encode(request) == open_req);

  const auto response = decoded<OpenSessionResponse>(decode_open_session_response(open_resp));
  CHECK(response.status == 0);
  CHECK(response.console_session_id == request.console_session_id);
  CHECK(response.algorithms == request.algorithms);
  CHECK(encode(response) == open_resp);

  const auto rakp1 = decoded<Rakp1>(decode_rakp1(r1));
  CHECK(rakp1.bmc_session_id == response.bmc_session_id);
  CHECK(rakp1.user == "admin");  // the capture's user, per the decode file
  CHECK(encode(rakp1) == r1);

  const auto rakp2 = decoded<Rakp2>(decode_rakp2(r2));
  CHECK(rakp2.status == 0);
  CHECK(rakp2.console_session_id == request.console_session_id);
  CHECK(rakp2.code.size() == 20);  // HMAC-SHA1
  CHECK(encode(rakp2) == r2);

  const auto rakp3 = decoded<Rakp3>(decode_rakp3(r3));
  CHECK(rakp3.bmc_session_id == response.bmc_session_id);
  CHECK(encode(rakp3) == r3);

  const auto rakp4 = decoded<Rakp4>(decode_rakp4(r4));
  CHECK(rakp4.console_session_id == request.console_session_id);
  CHECK(rakp4.icv.size() == 12);  // HMAC-SHA1-96
  CHECK(encode(rakp4) == r4);
}

TEST_CASE("refusals decode from the short form the spec allows", "[ipmi][rmcpplus]") {
  // Open Session Response refusing the algorithms: tag, status 11h, privilege, reserved, SIDm.
  const Bytes refusal{0x07, 0x11, 0x00, 0x00, 0x78, 0x56, 0x34, 0x12};
  const auto r = decoded<OpenSessionResponse>(decode_open_session_response(refusal));
  CHECK(r.status == 0x11);
  CHECK(r.console_session_id == 0x12345678u);
  CHECK(refuses_algorithms(r.status));
  CHECK(rmcp_status_text(r.status) == "no cipher suite match with proposed security algorithms");
  CHECK_FALSE(refuses_algorithms(0x0D));
  const auto r2 = decoded<Rakp2>(decode_rakp2(Bytes{0x01, 0x0D, 0, 0, 1, 0, 0, 0}));
  CHECK(r2.status == 0x0D);
  CHECK(rmcp_status_text(0x0D) == "unauthorized name");

  // Truncations are errors, never reads past the end.
  for (std::size_t n = 0; n < refusal.size(); ++n) {
    const Bytes cut(refusal.begin(), refusal.begin() + static_cast<std::ptrdiff_t>(n));
    CHECK(std::holds_alternative<std::string>(decode_open_session_response(cut)));
    CHECK(std::holds_alternative<std::string>(decode_rakp2(cut)));
    CHECK(std::holds_alternative<std::string>(decode_rakp4(cut)));
  }
  // A successful answer needs its session ID and algorithm payloads.
  Bytes ok = refusal;
  ok[1] = 0;
  CHECK(std::holds_alternative<std::string>(decode_open_session_response(ok)));
  // A RAKP 1 naming a 17-byte user is malformed.
  Rakp1 long_name{1, 2, Bytes(16, 0xAA), 0x14, std::string(16, 'u')};
  Bytes encoded = encode(long_name);
  CHECK(std::holds_alternative<Rakp1>(decode_rakp1(encoded)));
  encoded[27] = 17;
  encoded.push_back('x');
  CHECK(std::holds_alternative<std::string>(decode_rakp1(encoded)));
}

TEST_CASE("the sequence window accepts each number once and only near the highest",
          "[ipmi][rmcpplus]") {
  SequenceWindow w;
  CHECK_FALSE(w.accept(0));
  CHECK(w.accept(100));
  CHECK_FALSE(w.accept(100));  // duplicate
  CHECK(w.accept(101));
  CHECK(w.accept(105));        // 102-104 lost or late
  CHECK(w.accept(103));        // late, still in the window
  CHECK_FALSE(w.accept(103));  // ...but only once
  CHECK_FALSE(w.accept(101));
  CHECK(w.accept(102));
  CHECK_FALSE(w.accept(105 - SequenceWindow::kBehind - 1));  // too old
  CHECK_FALSE(w.accept(105 + SequenceWindow::kAhead + 1));   // too far ahead: forged or stale
  CHECK(w.accept(105 + SequenceWindow::kAhead));             // the edge of the window
  CHECK(w.accept(105 + SequenceWindow::kAhead - 1));
  CHECK_FALSE(w.accept(105));  // fell out of the window when it moved
  // Wrapping past FFFFFFFFh.
  SequenceWindow wrap;
  CHECK(wrap.accept(0xFFFFFFFEu));
  CHECK(wrap.accept(0xFFFFFFFFu));
  CHECK(wrap.accept(1));
  CHECK_FALSE(wrap.accept(0xFFFFFFFFu));
}

}  // namespace session_setup_test
