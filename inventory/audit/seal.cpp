#include "inventory/audit/seal.hpp"

#include "inventory/crypto/sha256_stream.hpp"

namespace ironhold::audit {
namespace {

void put(std::string& out, std::string_view value) {
  out += 'S';
  out += std::to_string(value.size());
  out += ':';
  out += value;
}

void put(std::string& out, const std::optional<std::string>& value) {
  if (value)
    put(out, std::string_view(*value));
  else
    out += 'N';
}

std::string_view key_view(const crypto::Key& key) {
  return {reinterpret_cast<const char*>(key.data()), key.size()};
}

}  // namespace

Mac seal(const crypto::Key& key, const SealedContent& c, std::string_view previous) {
  std::string message = "ironhold.audit.v1";
  message.reserve(256 + c.details.size());
  put(message, std::string_view(c.at));
  put(message, std::string_view(c.actor));
  put(message, c.actor_id);
  put(message, std::string_view(c.action));
  put(message, c.target_type);
  put(message, c.target_id);
  put(message, c.target_name);
  put(message, std::string_view(c.outcome));
  put(message, c.request_id);
  put(message, c.project);
  put(message, std::string_view(c.details));
  put(message, previous);
  return crypto::hmac_sha256(key_view(key), message);
}

Mac key_check(const crypto::Key& key) {
  return crypto::hmac_sha256(key_view(key), "ironhold.audit.key-check.v1");
}

std::string_view as_bytes(const Mac& mac) {
  return {reinterpret_cast<const char*>(mac.data()), mac.size()};
}

}  // namespace ironhold::audit
