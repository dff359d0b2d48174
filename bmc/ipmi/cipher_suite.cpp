#include "bmc/ipmi/cipher_suite.hpp"

namespace ironhold::bmc::ipmi {

std::size_t CipherSuite::auth_code_length() const {
  switch (auth) {
    case AuthAlgorithm::hmac_sha1:
      return 20;
    case AuthAlgorithm::hmac_sha256:
      return 32;
    case AuthAlgorithm::hmac_md5:
      return 16;
    case AuthAlgorithm::none:
      return 0;
  }
  return 0;
}

std::size_t CipherSuite::integrity_length() const {
  switch (integrity) {
    case IntegrityAlgorithm::hmac_sha1_96:
      return 12;
    case IntegrityAlgorithm::hmac_sha256_128:
    case IntegrityAlgorithm::hmac_md5_128:
    case IntegrityAlgorithm::md5_128:
      return 16;
    case IntegrityAlgorithm::none:
      return 0;
  }
  return 0;
}

std::optional<CipherSuite> cipher_suite(std::uint8_t id) {
  switch (id) {
    case 0:
      return CipherSuite{0, AuthAlgorithm::none, IntegrityAlgorithm::none,
                         ConfidentialityAlgorithm::none};
    case 3:
      return CipherSuite{3, AuthAlgorithm::hmac_sha1, IntegrityAlgorithm::hmac_sha1_96,
                         ConfidentialityAlgorithm::aes_cbc_128};
    case 17:
      return CipherSuite{17, AuthAlgorithm::hmac_sha256, IntegrityAlgorithm::hmac_sha256_128,
                         ConfidentialityAlgorithm::aes_cbc_128};
    default:
      return std::nullopt;
  }
}

}  // namespace ironhold::bmc::ipmi
