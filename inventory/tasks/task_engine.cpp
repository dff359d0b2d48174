#include "inventory/tasks/task_engine.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "inventory/cloud/cloud_sync.hpp"
#include "inventory/error.hpp"
#include "inventory/tasks/bmc_target.hpp"
#include "inventory/tasks/cloud_target.hpp"
#include "inventory/tasks/steps.hpp"
#include "inventory/util/lease_owner.hpp"
#include "inventory/util/log.hpp"
#include "inventory/util/on_pool.hpp"

namespace ironhold {

namespace asio = boost::asio;
using tasks::RunSignals;
using tasks::TaskOutcome;
using tasks::TaskRun;

namespace {

// A wait that ends early when `stop` turns true (checked every quarter second).
asio::awaitable<void> sleep_unless(std::chrono::milliseconds duration,
                                   const std::atomic<bool>& stop) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  const auto until = std::chrono::steady_clock::now() + duration;
  while (!stop) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    timer.expires_after(std::min(left, std::chrono::milliseconds(250)));
    boost::system::error_code ec;
    auto token = asio::redirect_error(asio::use_awaitable, ec);
    co_await timer.async_wait(token);
  }
}

std::optional<TaskOutcome> refuse(std::string why) {
  TaskOutcome out;
  out.state = TaskState::failed;
  out.error = std::move(why);
  return out;
}

}  // namespace

TaskEngine::TaskEngine(asio::any_io_executor executor, asio::thread_pool& blocking_pool,
                       db::TaskStore& store, std::map<std::string, NodeDriver*> drivers,
                       CloudSync* cloud, db::PollStore* polls, db::ProvisioningStore* provisioning,
                       TaskEngineOptions options)
    : executor_(executor),
      strand_(asio::make_strand(executor)),
      blocking_pool_(blocking_pool),
      store_(store),
      drivers_(std::move(drivers)),
      cloud_(cloud),
      polls_(polls),
      provisioning_(provisioning),
      options_(std::move(options)),
      wake_timer_(strand_) {
  if (options_.owner.empty()) options_.owner = random_lease_owner();
  wake_target_->engine = this;
}

TaskEngine::~TaskEngine() {
  stop(std::chrono::milliseconds(0));
  std::lock_guard lock(wake_target_->mutex);
  wake_target_->engine = nullptr;
}

void TaskEngine::start() {
  started_ = true;
  claim_loop_running_.add();
  asio::co_spawn(strand_, claim_loop(), asio::detached);
}

void TaskEngine::wake() {
  asio::post(strand_, [target = wake_target_] {
    std::lock_guard lock(target->mutex);
    if (target->engine != nullptr) target->engine->wake_timer_.cancel();
  });
}

asio::awaitable<void> TaskEngine::claim_loop() {
  while (!stopping_) {
    const int room = options_.max_running - static_cast<int>(in_flight_.count());
    const int want = std::min(room, 32);
    std::vector<db::TaskJob> jobs;
    if (want > 0) {
      auto claim = [this, want] {
        try {
          return store_.claim(options_.owner, want, options_.lease);
        } catch (const std::exception& e) {
          log::warn("could not claim tasks; retrying", {{"error", e.what()}});
          return std::vector<db::TaskJob>{};
        }
      };
      jobs = co_await on_pool(blocking_pool_, std::move(claim));
    }
    for (auto& job : jobs) {
      in_flight_.add();
      asio::co_spawn(executor_, run_task(std::move(job)), asio::detached);
    }
    if (stopping_) break;
    if (want <= 0 || static_cast<int>(jobs.size()) < want) {
      wake_timer_.expires_after(options_.idle_wait);
      boost::system::error_code ec;
      auto token = asio::redirect_error(asio::use_awaitable, ec);
      co_await wake_timer_.async_wait(token);
    }
  }
  claim_loop_running_.done();
}

asio::awaitable<void> TaskEngine::renew_loop(std::string task_id,
                                             std::shared_ptr<RunSignals> signals,
                                             std::shared_ptr<std::atomic<bool>> finished) {
  // A third of the lease keeps it alive through two missed renewals; at most 2 s, so that a
  // cancel request reaches the worker promptly (the renewal is also how it learns of one).
  const auto every = std::min<std::chrono::milliseconds>(
      std::chrono::duration_cast<std::chrono::milliseconds>(options_.lease) / 3,
      std::chrono::seconds(2));
  while (!*finished) {
    co_await sleep_unless(every, *finished);
    if (*finished) break;
    auto renew = [this, task_id] {
      try {
        return std::optional<db::LeaseCheck>(store_.renew(task_id, options_.owner, options_.lease));
      } catch (const std::exception& e) {
        log::warn("could not renew a task's lease", {{"task", task_id}, {"error", e.what()}});
        return std::optional<db::LeaseCheck>();
      }
    };
    const auto check = co_await on_pool(blocking_pool_, std::move(renew));
    if (!check) continue;  // the database hiccuped: try again before the lease runs out
    if (!check->owned) {
      signals->lease_lost = true;
      log::warn("lost a task's lease; another instance carries it on", {{"task", task_id}});
      break;
    }
    if (check->cancel_requested) signals->cancel_requested = true;
  }
}

asio::awaitable<bool> TaskEngine::take_target_slot(const std::string& key,
                                                   const RunSignals& signals) {
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      int& used = per_target_[key];
      if (used < options_.max_per_target) {
        ++used;
        co_return true;
      }
    }
    if (signals.stopping || signals.lease_lost || signals.cancel_requested) co_return false;
    co_await sleep_unless(std::chrono::milliseconds(100), signals.stopping);
  }
}

void TaskEngine::give_target_slot(const std::string& key) {
  std::lock_guard lock(mutex_);
  auto it = per_target_.find(key);
  if (it != per_target_.end() && --it->second <= 0) per_target_.erase(it);
}

asio::awaitable<std::optional<TaskOutcome>> TaskEngine::carry_out(TaskRun& run) {
  const db::TaskJob& job = run.job();
  if (!job.node_exists) co_return refuse("the node no longer exists (it was purged)");
  if (job.node_retired) co_return refuse("the node was retired before the task ran");
  if (job.task.automatic && job.maintenance)
    co_return refuse("the node is in maintenance: it takes no automatic actions");
  std::unique_ptr<tasks::ActionTarget> target;
  if (job.source == Source::cloud) {
    if (!cloud_) co_return refuse("this server does not act on cloud instances (no cloud sync)");
    target = std::make_unique<tasks::CloudTarget>(*cloud_, *job.task.node_id);
  } else {
    auto it = drivers_.find(job.driver);
    if (it == drivers_.end() || !it->second)
      co_return refuse("this server has no driver \"" + job.driver + "\" for the node");
    target = std::make_unique<tasks::BmcTarget>(*it->second, job.driver, job.target, job.system_id,
                                                polls_, blocking_pool_, options_.owner);
  }
  switch (job.task.kind) {
    case TaskKind::power:
    case TaskKind::clean:  // a power off, verified; the store moves the lifecycle on
      co_return co_await tasks::run_power_task(run, *target);
    case TaskKind::boot:
      co_return co_await tasks::run_boot_task(run, *target);
    case TaskKind::identify:
      co_return co_await tasks::run_identify_task(run, *target);
    case TaskKind::inspect:
      co_return co_await tasks::run_inspect_task(run, *target);
    case TaskKind::bios:
      co_return co_await tasks::run_bios_task(run, *target);
    case TaskKind::credentials: {
      const tasks::PasswordStore sink{store_, blocking_pool_, options_.owner};
      auto rotating = tasks::run_credentials_task(run, *target, sink);  // GCC 12: a local
      co_return co_await std::move(rotating);
    }
    case TaskKind::reprovision: {
      if (job.source == Source::cloud) co_return co_await tasks::run_reprovision_task(run, *target);
      if (!provisioning_)
        co_return refuse("this server does not reprovision owned servers (no provisioning store)");
      const tasks::PxeSessions pxe{*provisioning_, blocking_pool_,
                                   downloads_ ? &*downloads_ : nullptr};
      auto installing = tasks::run_pxe_reprovision_task(run, *target, pxe);  // GCC 12: a local
      co_return co_await std::move(installing);
    }
    case TaskKind::firmware: {
      if (!downloads_)
        co_return refuse("this server does not update firmware (it has no image store)");
      auto updating =
          tasks::run_firmware_task(run, *target, *downloads_, spool_.get());  // GCC 12: a local
      co_return co_await std::move(updating);
    }
  }
  co_return refuse("this server cannot carry out " + std::string(to_string(job.task.kind)) +
                   " tasks");
}

asio::awaitable<void> TaskEngine::run_task(db::TaskJob job) {
  auto signals = std::make_shared<RunSignals>();
  signals->cancel_requested = job.task.cancel_requested;
  {
    std::lock_guard lock(mutex_);
    active_.insert(signals);
  }
  // After joining active_: stop() either sees this task there or has set stopping_ already.
  if (stopping_) signals->stopping = true;
  auto finished = std::make_shared<std::atomic<bool>>(false);
  asio::co_spawn(executor_, renew_loop(job.task.id, signals, finished), asio::detached);
  const std::string key = job.limiter_key;
  const std::string id = job.task.id;
  TaskRun run(std::move(job), store_, blocking_pool_, options_.owner, signals,
              options_.verify_interval);

  std::optional<TaskOutcome> outcome;
  const bool slot = co_await take_target_slot(key, *signals);
  if (slot) {
    try {
      outcome = co_await carry_out(run);
    } catch (const Error& e) {
      outcome = refuse(e.what());
    } catch (const std::exception& e) {
      log::error("a task failed unexpectedly", {{"task", id}, {"error", e.what()}});
      outcome = refuse(std::string("internal error: ") + e.what());
    }
    give_target_slot(key);
  } else {
    outcome = run.interruption("");
  }

  if (!signals->lease_lost) {
    auto record = [this, &run, &outcome, id] {
      try {
        if (outcome)
          store_.finish(id, options_.owner, outcome->state, outcome->result, outcome->error,
                        run.steps());
        else
          store_.release(id, options_.owner, run.steps());
      } catch (const std::exception& e) {
        // The lease runs out and another claim resumes the task from its saved steps.
        log::error("could not record a task's end", {{"task", id}, {"error", e.what()}});
      }
    };
    co_await on_pool(blocking_pool_, std::move(record));
  }
  *finished = true;
  {
    std::lock_guard lock(mutex_);
    active_.erase(signals);
  }
  in_flight_.done();
  if (outcome && !stopping_) wake();  // the node's next task may be claimable now
}

void TaskEngine::stop(std::chrono::milliseconds grace) {
  if (!started_ || stopped_.exchange(true)) return;
  stopping_ = true;
  {
    std::lock_guard lock(mutex_);
    for (const auto& signals : active_) signals->stopping = true;
  }
  wake();
  claim_loop_running_.wait_idle(std::chrono::seconds(5));
  if (!in_flight_.wait_idle(grace))
    log::warn(
        "tasks still running at shutdown; their leases expire and another instance "
        "resumes them",
        {{"tasks", in_flight_.count()}});
}

}  // namespace ironhold
