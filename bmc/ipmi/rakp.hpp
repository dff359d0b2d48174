#pragma once
// The RAKP key exchange of an RMCP+ session (IPMI v2.0 section 13.31): the codes each side
// proves knowledge of the password with, and the keys the session derives from it.
//   RAKP 2 code  = HMAC_Kuid(SIDm | SIDc | Rm | Rc | GUIDc | ROLEm | ULENm | UNAMEm)
//   RAKP 3 code  = HMAC_Kuid(Rc | SIDm | ROLEm | ULENm | UNAMEm)
//   SIK          = HMAC_KG(Rm | Rc | ROLEm | ULENm | UNAMEm)      KG = Kuid without a BMC key
//   RAKP 4 ICV   = HMAC_SIK(Rm | SIDc | GUIDc), truncated to the integrity length
//   K1, K2       = HMAC_SIK(20 bytes of 0x01), HMAC_SIK(20 bytes of 0x02)
// SIDm is the console's (our) session ID, SIDc the BMC's; both are sent little-endian.
#include <cstdint>
#include <string>

#include "bmc/ipmi/bytes.hpp"
#include "bmc/ipmi/cipher_suite.hpp"

namespace ironhold::bmc::ipmi {

struct RakpExchange {
  CipherSuite suite;
  std::uint32_t console_session_id = 0;  // SIDm
  std::uint32_t bmc_session_id = 0;      // SIDc
  Bytes console_random;                  // Rm, 16 bytes
  Bytes bmc_random;                      // Rc, 16 bytes
  Bytes bmc_guid;                        // GUIDc, 16 bytes
  std::uint8_t role = 0;                 // ROLEm: privilege level, 0x10 for name-only lookup
  std::string user;                      // UNAMEm, at most 16 bytes
  std::string password;                  // Kuid, at most 20 bytes
  Bytes bmc_key;                         // K_G; empty: the password stands in
};

struct SessionKeys {
  Bytes sik, k1, k2;
  Bytes aes_key() const { return Bytes(k2.begin(), k2.begin() + 16); }
};

Bytes rakp2_code(const RakpExchange& x);
Bytes rakp3_code(const RakpExchange& x);
SessionKeys derive_keys(const RakpExchange& x);
Bytes rakp4_icv(const RakpExchange& x, const SessionKeys& keys);

// Constant-time comparison of a received code with the expected one.
bool codes_match(ByteView received, ByteView expected);

}  // namespace ironhold::bmc::ipmi
