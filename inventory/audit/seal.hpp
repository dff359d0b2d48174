#pragma once
// How an audit entry is sealed: HMAC-SHA256, under the audit key, of the entry's content as the
// database stores it and of the previous entry's MAC. Every field is length-prefixed and a missing
// value differs from an empty one, so no two entries share the bytes that are signed.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "inventory/crypto/secret_box.hpp"

namespace ironhold::audit {

using Mac = std::array<std::uint8_t, 32>;

// An entry's content exactly as stored: `at` as RFC 3339 text with microseconds, `details` as the
// database's own text of the jsonb value.
struct SealedContent {
  std::string at;
  std::string actor;
  std::optional<std::string> actor_id;
  std::string action;
  std::optional<std::string> target_type, target_id, target_name;
  std::string outcome;
  std::optional<std::string> request_id;
  std::optional<std::string> project;
  std::string details;
};

// `previous` is empty for the first entry of the chain.
Mac seal(const crypto::Key& key, const SealedContent& content, std::string_view previous);

// What the database keeps to recognise its key without holding it.
Mac key_check(const crypto::Key& key);

std::string_view as_bytes(const Mac& mac);

}  // namespace ironhold::audit
