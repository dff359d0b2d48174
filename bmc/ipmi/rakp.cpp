#include "bmc/ipmi/rakp.hpp"

#include <openssl/crypto.h>

#include "bmc/ipmi/crypto.hpp"

namespace ironhold::bmc::ipmi {

namespace {

Digest digest_of(const CipherSuite& suite) {
  return suite.auth == AuthAlgorithm::hmac_sha256 ? Digest::sha256 : Digest::sha1;
}

ByteView as_bytes(const std::string& text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

Bytes le32(std::uint32_t v) {
  Bytes out;
  put_u32(out, v);
  return out;
}

// ROLEm | ULENm | UNAMEm, the tail every RAKP code and the SIK share.
Bytes role_and_user(const RakpExchange& x) {
  Bytes out;
  out.reserve(2 + x.user.size());
  out.push_back(x.role);
  out.push_back(static_cast<std::uint8_t>(x.user.size()));
  out.insert(out.end(), x.user.begin(), x.user.end());
  return out;
}

}  // namespace

// RAKP-none (suite 0) proves nothing: its codes and keys are empty.
static bool proves_nothing(const RakpExchange& x) {
  return x.suite.auth == AuthAlgorithm::none;
}

Bytes rakp2_code(const RakpExchange& x) {
  if (proves_nothing(x)) return {};
  return hmac(digest_of(x.suite), as_bytes(x.password),
              {le32(x.console_session_id), le32(x.bmc_session_id), x.console_random, x.bmc_random,
               x.bmc_guid, role_and_user(x)});
}

Bytes rakp3_code(const RakpExchange& x) {
  if (proves_nothing(x)) return {};
  return hmac(digest_of(x.suite), as_bytes(x.password),
              {x.bmc_random, le32(x.console_session_id), role_and_user(x)});
}

SessionKeys derive_keys(const RakpExchange& x) {
  if (proves_nothing(x)) return {};
  const Digest digest = digest_of(x.suite);
  const ByteView kg = x.bmc_key.empty() ? as_bytes(x.password) : ByteView(x.bmc_key);
  SessionKeys keys;
  keys.sik = hmac(digest, kg, {x.console_random, x.bmc_random, role_and_user(x)});
  // The constants are 20 bytes whatever the digest: what ipmitool, FreeIPMI and pyghmi use for
  // suite 17 as well (the suite-17 conformance tests against ipmitool check it).
  const Bytes one(20, 0x01);
  const Bytes two(20, 0x02);
  keys.k1 = hmac(digest, keys.sik, {one});
  keys.k2 = hmac(digest, keys.sik, {two});
  return keys;
}

Bytes rakp4_icv(const RakpExchange& x, const SessionKeys& keys) {
  if (proves_nothing(x)) return {};
  Bytes icv =
      hmac(digest_of(x.suite), keys.sik, {x.console_random, le32(x.bmc_session_id), x.bmc_guid});
  icv.resize(x.suite.integrity_length());
  return icv;
}

bool codes_match(ByteView received, ByteView expected) {
  return received.size() == expected.size() &&
         CRYPTO_memcmp(received.data(), expected.data(), expected.size()) == 0;
}

}  // namespace ironhold::bmc::ipmi
