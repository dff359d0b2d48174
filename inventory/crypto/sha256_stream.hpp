#pragma once
// SHA-256 over data that arrives in pieces (an upload larger than memory), through OpenSSL's EVP.
#include <array>
#include <cstdint>
#include <memory>
#include <string_view>

struct evp_md_ctx_st;

namespace ironhold::crypto {

class Sha256Stream {
 public:
  Sha256Stream();
  ~Sha256Stream();
  Sha256Stream(const Sha256Stream&) = delete;
  Sha256Stream& operator=(const Sha256Stream&) = delete;

  void update(std::string_view piece);
  // The digest of everything given; the stream cannot be used afterwards.
  std::array<std::uint8_t, 32> finish();

 private:
  struct Free {
    void operator()(evp_md_ctx_st* ctx) const;
  };
  std::unique_ptr<evp_md_ctx_st, Free> ctx_;
};

// HMAC-SHA256(key, message).
std::array<std::uint8_t, 32> hmac_sha256(std::string_view key, std::string_view message);

}  // namespace ironhold::crypto
