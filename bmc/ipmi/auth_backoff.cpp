#include "bmc/ipmi/auth_backoff.hpp"

#include <algorithm>

namespace ironhold::bmc::ipmi {

std::optional<AuthBackoff::Clock::duration> AuthBackoff::barred_for(const std::string& key) const {
  std::lock_guard lock(mutex_);
  const auto it = rejections_.find(key);
  if (it == rejections_.end()) return std::nullopt;
  const auto now = now_();
  if (now >= it->second.until) return std::nullopt;
  return it->second.until - now;
}

void AuthBackoff::record_rejection(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto [it, fresh] = rejections_.try_emplace(key, Rejection{{}, options_.initial});
  it->second.until = now_() + it->second.next;
  it->second.next = std::min<Clock::duration>(it->second.next * 2, options_.max);
}

void AuthBackoff::record_success(const std::string& key) {
  std::lock_guard lock(mutex_);
  rejections_.erase(key);
}

}  // namespace ironhold::bmc::ipmi
