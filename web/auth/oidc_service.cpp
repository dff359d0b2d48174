#include "web/auth/oidc_service.hpp"

#include "inventory/crypto/jose/untrusted.hpp"
#include "inventory/error.hpp"
#include "inventory/util/concat.hpp"

namespace ironhold::web::auth {

std::optional<Principal> BearerPrincipalCache::find(const std::string& token_hash) {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(token_hash);
  if (it == entries_.end()) return std::nullopt;
  if (std::chrono::system_clock::now() >= it->second.until) {
    entries_.erase(it);
    return std::nullopt;
  }
  return it->second.principal;
}

void BearerPrincipalCache::put(const std::string& token_hash, Principal principal,
                               std::chrono::system_clock::time_point token_expiry) {
  const auto now = std::chrono::system_clock::now();
  std::lock_guard lock(mutex_);
  if (entries_.size() >= kMaxEntries) {
    std::erase_if(entries_, [now](const auto& entry) { return now >= entry.second.until; });
    if (entries_.size() >= kMaxEntries) entries_.clear();
  }
  entries_[token_hash] = {std::move(principal), std::min(token_expiry, now + kMaxAge)};
}

OidcPerson person_of(const OidcConfig& config, const crypto::jose::Claims& claims) {
  const auto& all = claims.all;
  const auto name = all.find(config.username_claim);
  if (name == all.end() || !name->is_string() || name->get<std::string>().empty())
    throw Error(ErrorKind::forbidden,
                util::concat("the identity provider's token has no \"", config.username_claim,
                             "\" claim to name the user here (set oidc.username_claim to a claim "
                             "it sends, or add it to the client's scopes)"));
  OidcPerson person;
  person.identity = {"oidc", util::concat(config.issuer, " ", claims.subject),
                     name->get<std::string>()};
  const auto roles = all.find(config.roles_claim);
  if (roles != all.end()) {
    if (roles->is_string()) person.role_values.push_back(roles->get<std::string>());
    if (roles->is_array())
      for (const auto& value : *roles)
        if (value.is_string()) person.role_values.push_back(value.get<std::string>());
  }
  return person;
}

}  // namespace ironhold::web::auth
