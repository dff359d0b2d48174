#pragma once
// RMCP+ cipher suites (IPMI v2.0 table 22-19): the authentication (RAKP), integrity and
// confidentiality algorithms a session uses. Suites 3 (SHA-1) and 17 (SHA-256) are what BMCs
// offer; suite 0 (no authentication at all) is refused unless a node explicitly allows it.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ironhold::bmc::ipmi {

enum class AuthAlgorithm : std::uint8_t { none = 0, hmac_sha1 = 1, hmac_md5 = 2, hmac_sha256 = 3 };
enum class IntegrityAlgorithm : std::uint8_t {
  none = 0,
  hmac_sha1_96 = 1,
  hmac_md5_128 = 2,
  md5_128 = 3,
  hmac_sha256_128 = 4,
};
enum class ConfidentialityAlgorithm : std::uint8_t { none = 0, aes_cbc_128 = 1 };

struct CipherSuite {
  std::uint8_t id = 0;
  AuthAlgorithm auth = AuthAlgorithm::none;
  IntegrityAlgorithm integrity = IntegrityAlgorithm::none;
  ConfidentialityAlgorithm confidentiality = ConfidentialityAlgorithm::none;

  // Length of the HMAC the RAKP algorithm produces (RAKP 2 and 3 codes, SIK, K1, K2).
  std::size_t auth_code_length() const;
  // Length of RAKP 4's integrity check value and of each packet's AuthCode.
  std::size_t integrity_length() const;
};

// The suites this driver implements (0, 3, 17); nothing for any other id.
std::optional<CipherSuite> cipher_suite(std::uint8_t id);

}  // namespace ironhold::bmc::ipmi
