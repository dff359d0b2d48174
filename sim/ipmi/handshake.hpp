#pragma once
// The BMC side of the RMCP+ session handshake (IPMI v2.0 sections 13.17-13.20): Open Session
// Request -> Response, RAKP 1 -> RAKP 2, RAKP 3 -> RAKP 4. Each takes the request payload and
// returns the answer's payload (nothing: no answer). Refusals carry the status codes of table
// 13-15, so clients can say why.
#include <optional>
#include <string>

#include "bmc/ipmi/bytes.hpp"
#include "sim/ipmi/bmc_model.hpp"
#include "sim/ipmi/sessions.hpp"

namespace ironhold::sim::ipmi {

// RMCP+ and RAKP message status codes (IPMI v2.0 table 13-15).
inline constexpr std::uint8_t kRakpOk = 0x00;
inline constexpr std::uint8_t kRakpNoResources = 0x01;
inline constexpr std::uint8_t kRakpInvalidSession = 0x02;
inline constexpr std::uint8_t kRakpInvalidRole = 0x09;
inline constexpr std::uint8_t kRakpUnauthorizedRole = 0x0A;
inline constexpr std::uint8_t kRakpInvalidNameLength = 0x0C;
inline constexpr std::uint8_t kRakpUnauthorizedName = 0x0D;
inline constexpr std::uint8_t kRakpInvalidIntegrityCheck = 0x0F;
inline constexpr std::uint8_t kRakpNoCipherSuiteMatch = 0x11;
inline constexpr std::uint8_t kRakpIllegalParameter = 0x12;

struct HandshakeContext {
  BmcModel& bmc;
  SessionTable& sessions;
  Clock::time_point now;
  std::string peer;
};

std::optional<bmc::ipmi::Bytes> open_session(HandshakeContext& ctx, bmc::ipmi::ByteView request);
std::optional<bmc::ipmi::Bytes> rakp1(HandshakeContext& ctx, bmc::ipmi::ByteView request);
std::optional<bmc::ipmi::Bytes> rakp3(HandshakeContext& ctx, bmc::ipmi::ByteView request);

}  // namespace ironhold::sim::ipmi
