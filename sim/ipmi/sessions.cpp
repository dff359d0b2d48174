#include "sim/ipmi/sessions.hpp"

#include <algorithm>

#include "inventory/crypto/primitives.hpp"

namespace ironhold::sim::ipmi {

namespace {
constexpr std::uint32_t kWindow = 16;
constexpr std::chrono::seconds kHandshakeTimeout{3};
}  // namespace

InboundWindow::Verdict InboundWindow::check(std::uint32_t sequence) {
  if (sequence == 0) return Verdict::reject;
  if (!started_) {
    started_ = true;
    highest_ = sequence;
    seen_ = 1;
    return Verdict::accept;
  }
  if (sequence > highest_) {
    const std::uint32_t ahead = sequence - highest_;
    if (ahead > kWindow) return Verdict::reject;
    seen_ = ahead >= 32 ? 1 : (seen_ << ahead) | 1;
    highest_ = sequence;
    return Verdict::accept;
  }
  const std::uint32_t behind = highest_ - sequence;
  if (behind >= kWindow) return Verdict::reject;
  const std::uint32_t bit = 1u << behind;
  if (seen_ & bit) return Verdict::duplicate;
  seen_ |= bit;
  return Verdict::accept;
}

Session* SessionTable::find(std::uint32_t bmc_id) {
  for (auto& s : sessions_)
    if (s->bmc_id == bmc_id) return s.get();
  return nullptr;
}

Session* SessionTable::open(SessionClock::time_point now) {
  expire_idle(now);
  if (sessions_.size() >= limit_) return nullptr;
  auto session = std::make_unique<Session>();
  // A random, unused, non-zero ID: a console cannot guess another console's session.
  do {
    std::uint8_t bytes[4];
    crypto::random_bytes(bytes);
    session->bmc_id = static_cast<std::uint32_t>(bytes[0] | (bytes[1] << 8) | (bytes[2] << 16) |
                                                 (std::uint32_t{bytes[3]} << 24));
  } while (session->bmc_id == 0 || find(session->bmc_id));
  session->opened_at = session->last_activity = now;
  sessions_.push_back(std::move(session));
  return sessions_.back().get();
}

bool SessionTable::close(std::uint32_t bmc_id) {
  const auto it = std::find_if(sessions_.begin(), sessions_.end(),
                               [bmc_id](const auto& s) { return s->bmc_id == bmc_id; });
  if (it == sessions_.end()) return false;
  sessions_.erase(it);
  return true;
}

std::size_t SessionTable::expire_idle(SessionClock::time_point now,
                                      std::vector<std::string>* abandoned) {
  const auto before = sessions_.size();
  std::erase_if(sessions_, [&](const auto& s) {
    const auto timeout =
        s->stage == Session::Stage::active
            ? std::chrono::duration_cast<SessionClock::duration>(idle_timeout_)
            : std::chrono::duration_cast<SessionClock::duration>(kHandshakeTimeout);
    const bool expired = now - s->last_activity > timeout;
    if (expired && abandoned && s->stage == Session::Stage::rakp2_sent)
      abandoned->push_back(s->user);
    return expired;
  });
  return before - sessions_.size();
}

std::size_t SessionTable::clear() {
  const auto n = sessions_.size();
  sessions_.clear();
  return n;
}

}  // namespace ironhold::sim::ipmi
