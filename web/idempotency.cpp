#include "web/idempotency.hpp"

#include "inventory/error.hpp"

namespace ironhold::web {

std::optional<db::IdempotencyKey> idempotency_key(const RequestContext& ctx,
                                                  const nlohmann::json& body,
                                                  const crypto::KeyedDigest* digest) {
  const auto header = ctx.request.find("Idempotency-Key");
  if (header == ctx.request.end()) return std::nullopt;
  const std::string key(header->value());
  if (key.empty() || key.size() > 255)
    throw invalid("the Idempotency-Key header must be 1 to 255 characters", "Idempotency-Key");
  for (char c : key)
    if (c < 0x21 || c > 0x7e)
      throw invalid("the Idempotency-Key header must be printable ASCII without spaces",
                    "Idempotency-Key");
  if (!digest)
    throw Error(ErrorKind::unavailable, "this server takes no Idempotency-Key", "Idempotency-Key");
  db::IdempotencyKey out;
  out.token_id = ctx.caller_key();
  out.key = key;
  // nlohmann::json keeps object keys sorted: dump() is canonical for equal documents.
  const std::string canonical = std::string(ctx.request.method_string()) + " " + ctx.path + "\n" +
                                body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  // Keyed: the body may hold a password (a rotation's, a reprovision's admin password).
  out.request_hash = digest->hex(canonical);
  return out;
}

}  // namespace ironhold::web
