#include "inventory/poller/poller.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <deque>
#include <future>
#include <optional>
#include <set>

#include "inventory/util/lease_owner.hpp"
#include "inventory/util/log.hpp"
#include "inventory/util/on_pool.hpp"

namespace ironhold {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

// A poll in flight, for telling the slow ones apart; touched only on the strand.
struct Poller::Slot {
  Clock::time_point started;
  bool slow = false;        // counted in slow_in_flight, not in_flight
  bool failing = false;     // counted in failing_in_flight
  bool working = false;     // counted in working_in_flight
  bool inspecting = false;  // counted in inspecting
  bool done = false;
};

// Everything the coroutines share; touched only on the strand.
struct Poller::State {
  explicit State(const asio::strand<asio::any_io_executor>& strand)
      : wake(strand), flush_timer(strand), heartbeat_timer(strand) {}
  asio::steady_timer wake;             // the claim loop's pause
  asio::steady_timer flush_timer;      // the flush loop's pause
  asio::steady_timer heartbeat_timer;  // between lease renewals
  bool heartbeat_stop = false;
  // The leases this instance holds: polls in flight, and finished ones not yet recorded (counted,
  // so that a claim and the recording of an earlier one may meet in either order).
  std::map<db::PollKey, int> held;
  std::set<db::PollKey> writing;  // in the batch being recorded now
  bool stopping = false;
  std::size_t in_flight = 0;          // polls counted against max_in_flight
  std::size_t slow_in_flight = 0;     // polls past slow_after, counted against max_slow
  std::size_t failing_in_flight = 0;  // of in_flight, polls of failing BMCs (max_failing)
  bool failing_capped = false;        // the last claim took all the failing polls it might
  // Of in_flight, the status and sensor polls of working BMCs: while many run, the failing BMCs'
  // polls wait (PollerOptions::failing_wait_max).
  std::size_t working_in_flight = 0;
  bool working_exhausted = false;  // the last claim found fewer working polls due than it asked
  bool failing_held = false;       // the last claim left the failing polls out
  Clock::time_point failing_offered = Clock::now();  // when a claim last let them in
  std::size_t inspecting = 0;                        // inventory polls in flight (max_inspections)
  bool inspections_capped = false;             // the last claim took all the inspections it might
  std::deque<std::shared_ptr<Slot>> by_start;  // polls in flight and not slow, oldest first
  bool claim_loop_done = false, flush_loop_done = false;
  std::vector<db::PollResult> pending;
  std::minstd_rand random{std::random_device{}()};
  std::vector<std::promise<void>> idle_waiters;  // stop() waits for in_flight == 0
};

template <class Fn>
asio::awaitable<std::invoke_result_t<Fn>> Poller::blocking(Fn fn) {
  return on_pool(blocking_pool_, std::move(fn));
}

Poller::Poller(asio::any_io_executor executor, asio::thread_pool& blocking_pool,
               db::PollStore& store, std::map<std::string, NodeDriver*> drivers,
               PollerOptions options)
    : strand_(asio::make_strand(executor)),
      blocking_pool_(blocking_pool),
      store_(store),
      drivers_(std::move(drivers)),
      options_(std::move(options)),
      state_(std::make_shared<State>(strand_)) {
  if (options_.owner.empty()) options_.owner = random_lease_owner();
  for (const auto& [name, driver] : drivers_)
    if (driver) driver_names_.push_back(name);
}

Poller::~Poller() {
  stop(std::chrono::milliseconds(0));
}

void Poller::start() {
  started_ = true;
  asio::co_spawn(strand_, claim_loop(), asio::detached);
  asio::co_spawn(strand_, flush_loop(), asio::detached);
  asio::co_spawn(strand_, heartbeat_loop(), asio::detached);
}

namespace {

// How many more of a kind of poll a claim may take: what `max` leaves beside the `running` ones,
// at most `want`; nothing when the kind has no limit of its own (max 0).
std::optional<int> room_under(std::size_t max, std::size_t running, int want) {
  if (max == 0) return std::nullopt;
  const std::size_t left = max > running ? max - running : 0;
  return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(want), left));
}

}  // namespace

asio::awaitable<void> Poller::claim_loop() {
  auto state = state_;
  while (!state->stopping) {
    release_slow_slots();
    const std::size_t room =
        options_.max_in_flight > state->in_flight ? options_.max_in_flight - state->in_flight : 0;
    const int want = static_cast<int>(
        std::min<std::size_t>(room, static_cast<std::size_t>(options_.claim_batch)));
    const bool failing_offered = offer_failing();
    const std::optional<int> failing_limit =
        failing_offered ? room_under(options_.max_failing, state->failing_in_flight, want)
                        : std::optional<int>(0);
    if (failing_offered) state->failing_offered = Clock::now();
    state->failing_held = !failing_offered;
    const std::optional<int> inspection_limit =
        room_under(options_.max_inspections, state->inspecting, want);
    std::vector<db::PollJob> jobs;
    if (want > 0) {
      auto claim = [this, want, failing_limit, inspection_limit] {
        try {
          return store_.claim(options_.owner, driver_names_, want, options_.lease, failing_limit,
                              inspection_limit);
        } catch (const std::exception& e) {
          log::warn("could not claim polls; retrying", {{"error", e.what()}});
          return std::vector<db::PollJob>{};
        }
      };
      jobs = co_await blocking(std::move(claim));
    }
    metrics_.count_claimed(jobs.size());
    const auto claimed_at = Clock::now();
    int failing_claimed = 0, inspections_claimed = 0, working_claimed = 0;
    for (auto& job : jobs) {
      ++state->held[db::PollKey{job.target.node_id, job.kind}];
      ++state->in_flight;
      auto slot = std::make_shared<Slot>(Slot{claimed_at});
      if (job.failures > 0) {
        slot->failing = true;
        ++state->failing_in_flight;
        ++failing_claimed;
      }
      if (job.kind == db::PollKind::inventory) {
        slot->inspecting = true;
        ++state->inspecting;
        ++inspections_claimed;
      }
      if (job.failures == 0) {
        ++working_claimed;
        if (job.kind != db::PollKind::inventory) {
          slot->working = true;
          ++state->working_in_flight;
        }
      }
      // Only status polls: one or two small documents each, however long they wait. An
      // inspection or sensor poll is long by nature and gathers documents as it goes; letting it
      // out of the count would let their memory grow with the fleet.
      if (job.kind == db::PollKind::status) {
        // A BMC whose last status poll outlasted slow_after (one dripping its answers, one slow
        // to answer at all) starts in the slow lane rather than holding a slot until it gets
        // there: in a sweep where a fifth of 10,000 BMCs had gone bad, the 450 slow ones that
        // still answered held most of the slot time the 8,000 working ones needed.
        if (options_.slow_after.count() > 0 && job.last_duration &&
            *job.last_duration >= options_.slow_after && state->slow_in_flight < options_.max_slow)
          move_to_slow_lane(*slot);
        else
          state->by_start.push_back(slot);
      }
      asio::co_spawn(strand_.get_inner_executor(), run_poll(std::move(job), std::move(slot)),
                     asio::detached);
    }
    // More failing polls may be due than the limit let in: claim again as theirs finish.
    state->failing_capped = failing_limit && failing_claimed >= *failing_limit;
    state->inspections_capped = inspection_limit && inspections_claimed >= *inspection_limit;
    if (want > 0) state->working_exhausted = working_claimed < want;
    metrics_.set_inspecting(state->inspecting);
    metrics_.set_in_flight(state->in_flight, state->slow_in_flight);
    if (state->stopping) break;
    // The working polls just claimed were the last ones due and few enough: the failing ones'
    // turn at once rather than after a pause.
    const bool failing_next = state->failing_held && want > 0 && offer_failing();
    if ((want == 0 || static_cast<int>(jobs.size()) < want) && !failing_next) {
      auto pause = options_.idle_wait;
      // Full: look again when the oldest poll turns slow, if that comes first.
      if (want == 0 && !state->by_start.empty() && options_.slow_after.count() > 0 &&
          state->slow_in_flight < options_.max_slow) {
        const auto until_slow = std::chrono::duration_cast<std::chrono::milliseconds>(
            state->by_start.front()->started + options_.slow_after - Clock::now());
        pause = std::clamp(until_slow + std::chrono::milliseconds(1), std::chrono::milliseconds(1),
                           pause);
      }
      state->wake.expires_after(pause);
      boost::system::error_code ec;
      auto token = asio::redirect_error(asio::use_awaitable, ec);
      co_await state->wake.async_wait(token);
    }
  }
  state->claim_loop_done = true;
}

// Moves the polls running longer than slow_after out of max_in_flight's count (oldest first, up to
// max_slow of them), and forgets the finished ones at the front. On the strand.
void Poller::release_slow_slots() {
  auto& state = *state_;
  const auto now = Clock::now();
  while (!state.by_start.empty()) {
    Slot& oldest = *state.by_start.front();
    if (!oldest.done && !oldest.slow) {
      if (options_.slow_after.count() <= 0 || state.slow_in_flight >= options_.max_slow ||
          now - oldest.started < options_.slow_after)
        break;
      move_to_slow_lane(oldest);
    }
    state.by_start.pop_front();
  }
  metrics_.set_in_flight(state.in_flight, state.slow_in_flight);
}

void Poller::move_to_slow_lane(Slot& slot) {
  auto& state = *state_;
  slot.slow = true;
  --state.in_flight;
  ++state.slow_in_flight;
  if (slot.failing) {  // waiting, not working: no longer held against max_failing
    slot.failing = false;
    --state.failing_in_flight;
  }
  if (slot.working) {
    slot.working = false;
    --state.working_in_flight;
  }
}

// Whether the next claim may take polls of failing BMCs (PollerOptions::failing_wait_max). On
// the strand.
bool Poller::offer_failing() const {
  const auto& state = *state_;
  if (options_.failing_wait_max.count() <= 0) return true;
  if (state.working_exhausted && state.working_in_flight <= options_.max_in_flight / 4) return true;
  return Clock::now() - state.failing_offered >= options_.failing_wait_max;
}

// A status poll that waits out a delay of its own (a retry's backoff) joins the slow lane at
// once rather than after slow_after: in the sweep where a fifth of a fleet went bad, polls of
// BMCs resetting their connections otherwise held their slots through two backoffs each, while
// the healthy rest waited its turn. Posted before the poll's end, so it runs before it.
void Poller::note_waiting(const std::shared_ptr<Slot>& slot) {
  asio::post(strand_, [this, state = state_, slot] {
    if (slot->done || slot->slow || options_.slow_after.count() <= 0 ||
        state->slow_in_flight >= options_.max_slow)
      return;
    move_to_slow_lane(*slot);
    metrics_.set_in_flight(state->in_flight, state->slow_in_flight);
    if (state->in_flight < options_.max_in_flight / 2) state->wake.cancel();  // room for more
  });
}

// Runs on the plain executor, not the strand, so that the drivers' parsing and normalizing spread
// over every I/O thread; only the bookkeeping at the end goes through the strand.
asio::awaitable<void> Poller::run_poll(db::PollJob job, std::shared_ptr<Slot> slot) {
  const auto started = Clock::now();
  NodeDriver* driver = drivers_.at(job.driver);
  db::PollResult result;
  result.kind = job.kind;
  result.node_id = job.target.node_id;
  job.target.previous_failures = job.failures;
  // Only a status poll may leave the count (PollerOptions::slow_after says why).
  if (job.kind == db::PollKind::status) job.target.on_wait = [this, slot] { note_waiting(slot); };
  switch (job.kind) {
    case db::PollKind::status: {
      StatusReport report = co_await driver->poll_status(job.target);
      result.report = std::move(report);
      break;
    }
    case db::PollKind::sensors: {
      SensorReport report = co_await driver->poll_sensors(job.target);
      result.report = std::move(report);
      break;
    }
    case db::PollKind::inventory: {
      InspectionReport report = co_await driver->inspect(job.target);
      result.report = std::move(report);
      break;
    }
  }
  const auto elapsed =
      std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started);
  result.duration = std::chrono::duration_cast<std::chrono::milliseconds>(elapsed);
  metrics_.observe(job.kind, elapsed, result.outcome());
  auto finish = [this, state = state_, slot = std::move(slot), failures = job.failures,
                 result = std::move(result)]() mutable {
    const double uniform = std::uniform_real_distribution<double>(0, 1)(state->random);
    result.next_in =
        next_poll_in(options_.intervals, result.kind, result.outcome(), failures, uniform);
    state->pending.push_back(std::move(result));
    if (state->pending.size() >= options_.flush_batch) state->flush_timer.cancel();
    slot->done = true;
    if (slot->failing) {
      --state->failing_in_flight;
      if (state->failing_capped && state->failing_in_flight <= options_.max_failing / 2)
        state->wake.cancel();  // room for more of the failing polls still due
    }
    if (slot->working) {
      --state->working_in_flight;
      if (state->failing_held && state->working_exhausted &&
          state->working_in_flight <= options_.max_in_flight / 4)
        state->wake.cancel();  // the failing polls' turn
    }
    if (slot->inspecting) {
      --state->inspecting;
      metrics_.set_inspecting(state->inspecting);
      if (state->inspections_capped && state->inspecting <= options_.max_inspections / 2)
        state->wake.cancel();  // room for more of the inspections still due
    }
    if (slot->slow) {
      --state->slow_in_flight;
    } else {
      --state->in_flight;
      if (state->in_flight < options_.max_in_flight / 2) state->wake.cancel();  // room for more
    }
    metrics_.set_in_flight(state->in_flight, state->slow_in_flight);
    if (state->in_flight + state->slow_in_flight == 0) {
      for (auto& waiter : state->idle_waiters) waiter.set_value();
      state->idle_waiters.clear();
    }
  };
  asio::post(strand_, std::move(finish));
}

asio::awaitable<void> Poller::flush() {
  auto state = state_;
  if (state->pending.empty()) co_return;
  auto batch = std::make_shared<std::vector<db::PollResult>>(std::move(state->pending));
  state->pending.clear();
  for (const auto& result : *batch) state->writing.insert({result.node_id, result.kind});
  auto write = [this, batch] {
    try {
      store_.record(*batch, options_.owner);
      return true;
    } catch (const std::exception& e) {
      log::error("could not record poll results; their leases expire and they run again",
                 {{"error", e.what()}, {"results", batch->size()}});
      return false;
    }
  };
  const bool written = co_await blocking(std::move(write));
  if (!written) metrics_.count_record_failure();
  // Recorded, or left to expire (a failed write): no longer renewed either way.
  for (const auto& result : *batch) {
    const db::PollKey key{result.node_id, result.kind};
    state->writing.erase(key);
    if (auto it = state->held.find(key); it != state->held.end() && --it->second <= 0)
      state->held.erase(it);
  }
}

// Why renew rather than bound each poll's duration below the lease: a poll is many requests (an
// inspection crawls dozens of documents, each with its own 30 s timeout, paced per BMC; IPMI
// retransmits), so no useful bound fits under a lease short enough for a quick takeover. The
// heartbeat keeps the lease exactly as long as this instance is alive and the poll runs, whatever
// the BMC does; one UPDATE per round for every lease held, on the blocking pool. A round that
// fails (the database out of reach) is retried at the next one: two more chances before the
// lease runs out.
asio::awaitable<void> Poller::heartbeat_loop() {
  auto state = state_;
  const auto every = std::max<std::chrono::milliseconds>(
      std::chrono::duration_cast<std::chrono::milliseconds>(options_.lease) / 3,
      std::chrono::milliseconds(100));
  while (!state->heartbeat_stop) {
    state->heartbeat_timer.expires_after(every);
    boost::system::error_code ec;
    auto token = asio::redirect_error(asio::use_awaitable, ec);
    co_await state->heartbeat_timer.async_wait(token);
    if (state->heartbeat_stop) break;
    if (state->held.empty()) continue;
    auto keys = std::make_shared<std::vector<db::PollKey>>();
    keys->reserve(state->held.size());
    for (const auto& [key, count] : state->held) keys->push_back(key);
    auto renew = [this, keys]() -> std::optional<std::vector<db::PollKey>> {
      try {
        return store_.renew(options_.owner, *keys, options_.lease);
      } catch (const std::exception& e) {
        log::warn("could not renew the leases of polls in flight; retrying",
                  {{"error", e.what()}, {"polls", keys->size()}});
        return std::nullopt;
      }
    };
    const auto renewed = co_await blocking(std::move(renew));
    if (!renewed) continue;
    // Not renewed and neither recorded nor being recorded: the lease had expired and another
    // instance took it, so that node may now be polled twice (its result here is not recorded).
    const std::set<db::PollKey> extended(renewed->begin(), renewed->end());
    std::size_t lost = 0;
    for (const auto& key : *keys)
      if (!extended.count(key) && state->held.count(key) && !state->writing.count(key)) ++lost;
    if (lost > 0) {
      metrics_.count_lease_lost(lost);
      log::warn("polls in flight lost their leases to another instance",
                {{"polls", lost}, {"lease_seconds", options_.lease.count()}});
    }
  }
}

asio::awaitable<void> Poller::flush_loop() {
  auto state = state_;
  for (;;) {
    state->flush_timer.expires_after(options_.flush_interval);
    boost::system::error_code ec;
    auto token = asio::redirect_error(asio::use_awaitable, ec);
    co_await state->flush_timer.async_wait(token);
    co_await flush();
    if (state->stopping && state->in_flight + state->slow_in_flight == 0 && state->claim_loop_done)
      break;
  }
  state->flush_loop_done = true;
}

void Poller::stop(std::chrono::milliseconds grace) {
  if (!started_ || stopped_.exchange(true)) return;
  auto state = state_;
  std::promise<void> idle;
  auto idle_future = idle.get_future();
  std::promise<std::size_t> stopping;
  asio::post(strand_, [state, &idle, &stopping] {
    if (!state->stopping) {
      state->stopping = true;
      state->wake.cancel();
    }
    const std::size_t running = state->in_flight + state->slow_in_flight;
    if (running == 0)
      idle.set_value();
    else
      state->idle_waiters.push_back(std::move(idle));
    stopping.set_value(running);
  });
  // The executor may already be stopped (a service shutting down without running): don't hang.
  auto running = stopping.get_future();
  if (running.wait_for(std::chrono::seconds(2)) != std::future_status::ready) return;
  // How long each step took, logged: a slow stop says where it waited.
  using Clock = std::chrono::steady_clock;
  const auto ms_since = [](Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
  };
  auto step = Clock::now();
  const std::size_t in_flight = running.get();
  const bool finished = idle_future.wait_for(grace) == std::future_status::ready;
  const auto waited_ms = ms_since(step);
  // Record what finished, then log out of the BMCs.
  step = Clock::now();
  auto final_flush = asio::co_spawn(strand_, flush(), asio::use_future);
  final_flush.wait_for(std::chrono::seconds(10));
  const auto flushed_ms = ms_since(step);
  asio::post(strand_, [state] {
    state->heartbeat_stop = true;
    state->heartbeat_timer.cancel();
  });
  step = Clock::now();
  for (const auto& [name, driver] : drivers_) {
    if (!driver) continue;
    // A driver bounds its logouts' time (a few seconds); it must not be destroyed before they end.
    auto logout = asio::co_spawn(strand_, driver->shutdown(), asio::use_future);
    if (logout.wait_for(std::chrono::seconds(15)) != std::future_status::ready)
      log::error("a driver is still logging out of its BMCs after 15 s", {{"driver", name}});
  }
  log::info("poller stopped", {{"polls_in_flight", in_flight},
                               {"all_finished", finished},
                               {"waited_ms", waited_ms},
                               {"recorded_ms", flushed_ms},
                               {"logged_out_ms", ms_since(step)}});
}

}  // namespace ironhold
