#pragma once
// The Idempotency-Key header of a POST that creates tasks: the same key from the same token with
// the same request returns what the first request created; another request under the key is 422.
#include <optional>

#include "inventory/crypto/keyed_digest.hpp"
#include "inventory/db/task_store.hpp"
#include "web/request_context.hpp"

namespace ironhold::web {

// The key with its scope (the token) and the request's digest under `digest`'s key (method, path
// and the body as canonical JSON, so that key order and spacing do not matter); nullopt without
// the header.
// Throws invalid (400) for a key that is empty, longer than 255 characters or not printable ASCII.
std::optional<db::IdempotencyKey> idempotency_key(const RequestContext& ctx,
                                                  const nlohmann::json& body,
                                                  const crypto::KeyedDigest* digest);

}  // namespace ironhold::web
