#pragma once
// The messages that open an RMCP+ session (IPMI v2.0 sections 13.17-13.23), as the console
// sends and reads them. Each is the payload of an unauthenticated RMCP+ packet whose type names
// it; the BMC's answers carry a status code (table 13-15) that names why it refused.
//   Open Session Request   tag | max privilege | 00 00 | SIDm | auth, integrity, conf. payloads
//   Open Session Response  tag | status | max privilege | 00 | SIDm | SIDc | the same 3 payloads
//   RAKP 1                 tag | 00 00 00 | SIDc | Rm (16) | role | 00 00 | ULEN | user name
//   RAKP 2                 tag | status | 00 00 | SIDm | Rc (16) | GUIDc (16) | key exchange code
//   RAKP 3                 tag | status | 00 00 | SIDc | key exchange code
//   RAKP 4                 tag | status | 00 00 | SIDm | integrity check value
// Each algorithm payload is 8 bytes: type (0 auth, 1 integrity, 2 confidentiality) | 00 00 |
// length 08h | algorithm | 00 00 00.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "bmc/ipmi/bytes.hpp"
#include "bmc/ipmi/cipher_suite.hpp"

namespace ironhold::bmc::ipmi {

// RMCP+ status codes the BMC answers with (table 13-15).
enum class RmcpStatus : std::uint8_t {
  ok = 0x00,
  insufficient_resources = 0x01,
  invalid_session_id = 0x02,
  unauthorized_role = 0x0A,
  unauthorized_name = 0x0D,
  invalid_integrity_check = 0x0F,
  no_cipher_suite_match = 0x11,
};
// "unauthorized name", "no cipher suite match with proposed security algorithms", ...
std::string rmcp_status_text(std::uint8_t status);
// Whether a refused Open Session means "try another suite" (the algorithms were refused).
bool refuses_algorithms(std::uint8_t status);

// The three algorithm numbers a session proposal or choice names (table 13-17..13-19).
struct Algorithms {
  std::uint8_t auth = 0, integrity = 0, confidentiality = 0;
  static Algorithms of(const CipherSuite& suite);
  bool operator==(const Algorithms&) const = default;
};
// The suite (0, 3 or 17) with exactly these algorithms, if any.
std::optional<CipherSuite> suite_with(const Algorithms& algorithms);

struct OpenSessionRequest {
  std::uint8_t tag = 0;
  std::uint8_t max_privilege = 0;  // 0: the highest the user is allowed
  std::uint32_t console_session_id = 0;
  Algorithms algorithms;
};
struct OpenSessionResponse {
  std::uint8_t tag = 0;
  std::uint8_t status = 0;
  std::uint8_t max_privilege = 0;
  std::uint32_t console_session_id = 0;
  std::uint32_t bmc_session_id = 0;  // with status 0 only
  Algorithms algorithms;             // what the BMC chose (status 0 only)
};

struct Rakp1 {
  std::uint8_t tag = 0;
  std::uint32_t bmc_session_id = 0;
  Bytes console_random;  // 16
  std::uint8_t role = 0;
  std::string user;
};
struct Rakp2 {
  std::uint8_t tag = 0;
  std::uint8_t status = 0;
  std::uint32_t console_session_id = 0;
  Bytes bmc_random;  // 16, status 0 only
  Bytes bmc_guid;    // 16, status 0 only
  Bytes code;        // the rest
};
struct Rakp3 {
  std::uint8_t tag = 0;
  std::uint8_t status = 0;
  std::uint32_t bmc_session_id = 0;
  Bytes code;
};
struct Rakp4 {
  std::uint8_t tag = 0;
  std::uint8_t status = 0;
  std::uint32_t console_session_id = 0;
  Bytes icv;
};

Bytes encode(const OpenSessionRequest& m);
Bytes encode(const OpenSessionResponse& m);
Bytes encode(const Rakp1& m);
Bytes encode(const Rakp2& m);
Bytes encode(const Rakp3& m);
Bytes encode(const Rakp4& m);

// Decoders for what arrives; the error says what is wrong. A refusal (status other than 0) may
// be as short as the spec allows (8 bytes) and still decodes.
std::variant<OpenSessionRequest, std::string> decode_open_session_request(ByteView payload);
std::variant<OpenSessionResponse, std::string> decode_open_session_response(ByteView payload);
std::variant<Rakp1, std::string> decode_rakp1(ByteView payload);
std::variant<Rakp2, std::string> decode_rakp2(ByteView payload);
std::variant<Rakp3, std::string> decode_rakp3(ByteView payload);
std::variant<Rakp4, std::string> decode_rakp4(ByteView payload);

}  // namespace ironhold::bmc::ipmi
