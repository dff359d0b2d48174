#include "bmc/redfish/session_cache.hpp"

#include <algorithm>

#include "inventory/crypto/primitives.hpp"

namespace ironhold::bmc::redfish {

std::string session_key(const std::string& base_url, const std::string& user,
                        const std::string& password) {
  const auto digest = crypto::sha256(password);
  return base_url + "\n" + user + "\n" + crypto::to_hex(digest);
}

SessionCache::SessionCache(AuthBackoffOptions backoff, std::function<Clock::time_point()> now)
    : backoff_(backoff), now_(std::move(now)) {
  if (backoff_.initial.count() <= 0) backoff_.initial = std::chrono::seconds(1);
  backoff_.max = std::max(backoff_.max, backoff_.initial);
}

std::optional<CachedSession> SessionCache::find(const std::string& key) const {
  std::lock_guard lock(mutex_);
  const auto it = sessions_.find(key);
  if (it == sessions_.end()) return std::nullopt;
  if (it->second.basic_until && now_() >= *it->second.basic_until) return std::nullopt;
  return it->second;
}

SessionCache::Clock::time_point SessionCache::basic_until_after_session_limit() const {
  return now_() + backoff_.session_slots_retry;
}

std::vector<CachedSession> SessionCache::store(const std::string& key, CachedSession session) {
  // Keys are "address\nuser\npassword-hash": one BMC and user share the prefix.
  const std::string prefix = key.substr(0, key.rfind('\n') + 1);
  std::lock_guard lock(mutex_);
  std::vector<CachedSession> superseded;
  for (auto it = sessions_.lower_bound(prefix);
       it != sessions_.end() && it->first.compare(0, prefix.size(), prefix) == 0;) {
    if (it->first == key) {
      ++it;
      continue;
    }
    superseded.push_back(std::move(it->second));
    it = sessions_.erase(it);
  }
  sessions_[key] = std::move(session);
  return superseded;
}

void SessionCache::invalidate(const std::string& key, const std::string& token) {
  std::lock_guard lock(mutex_);
  const auto it = sessions_.find(key);
  if (it != sessions_.end() && it->second.token == token) sessions_.erase(it);
}

std::vector<CachedSession> SessionCache::take_all() {
  std::lock_guard lock(mutex_);
  std::vector<CachedSession> out;
  out.reserve(sessions_.size());
  for (auto& [key, session] : sessions_) out.push_back(std::move(session));
  sessions_.clear();
  return out;
}

std::optional<SessionCache::Clock::duration> SessionCache::barred_for(
    const std::string& key) const {
  std::lock_guard lock(mutex_);
  const auto it = rejections_.find(key);
  if (it == rejections_.end()) return std::nullopt;
  const auto now = now_();
  if (now >= it->second.until) return std::nullopt;
  return it->second.until - now;
}

void SessionCache::record_rejection(const std::string& key) {
  std::lock_guard lock(mutex_);
  sessions_.erase(key);
  const auto it = rejections_.find(key);
  const Clock::duration backoff =
      it == rejections_.end() ? Clock::duration(backoff_.initial) : it->second.next_backoff;
  const Clock::duration doubled = std::min<Clock::duration>(backoff * 2, backoff_.max);
  rejections_[key] = Rejection{now_() + backoff, doubled};
}

void SessionCache::record_success(const std::string& key) {
  std::lock_guard lock(mutex_);
  rejections_.erase(key);
}

boost::asio::awaitable<http::PerHostLimiter::Permit> SessionCache::login_gate(std::string key) {
  return gates_.acquire(std::move(key));
}

}  // namespace ironhold::bmc::redfish
