// The credentials task of an owned server: the password of the BMC account Ironhold logs in with
// is changed, the new one is proven by a fresh login, and only then stored as the node's. Until
// the store step the node keeps its old password, so nothing ever holds a password the BMC has
// not been seen to take; the new one waits, sealed, in the task's secrets, so a crash loses
// nothing: the task resumes and decides by logging in.
//   quiet  - the node's polls and tasks held off (TaskStore::hold_bmc), and those already running
//            waited for: one that read the old password and logged in after the change would be
//            refused, and BMCs lock an account out after a few refusals. Every run, resumed ones
//            too; the hold lapses by itself if this instance dies.
//   change - the new password sent (Redfish AccountService, IPMI Set User Password). A resumed
//            task that finds it "sending" logs in with the new password: it works, the change
//            happened; else the old one is tried, and the change is sent again when it works.
//   verify - a fresh login with the new password, retried for a minute (BMCs apply a password
//            change in the background).
//   store  - the node's stored password replaced, an event and an audit entry written, in one
//            transaction.
// No step, result, error or event holds either password.
#include "inventory/tasks/steps.hpp"
#include "inventory/util/on_pool.hpp"

namespace ironhold::tasks {

namespace asio = boost::asio;
using nlohmann::json;

namespace credential_steps {

// Long enough for the change and a minute of verifying; finish() ends it sooner.
constexpr std::chrono::seconds kHold{300};
// The longest wait for polls and tasks claimed before the hold: a poll stuck on a BMC that does
// not answer holds its lease for as long, and the rotation does not wait on it for ever.
constexpr std::chrono::seconds kQuietWait{60};

enum class Quiet { reached, lease_lost, interrupted, failed };

asio::awaitable<Quiet> hold_off_others(TaskRun& run, PasswordStore& sink, std::size_t step) {
  const auto deadline = std::chrono::steady_clock::now() + kQuietWait;
  for (;;) {
    auto hold = [&sink, id = run.task().id, node = run.task().node_id.value_or("")] {
      return sink.store.hold_bmc(id, sink.owner, node, kHold);
    };
    std::optional<int> busy;
    try {
      busy = co_await on_pool(sink.pool, std::move(hold));
    } catch (const std::exception& e) {
      run.end(step, StepState::failed,
              std::string("could not hold off the node's polls and tasks: ") + e.what());
      co_return Quiet::failed;
    }
    if (!busy) co_return Quiet::lease_lost;
    if (*busy == 0) {
      run.end(step, StepState::succeeded, "nothing else is logging in to the BMC");
      co_return Quiet::reached;
    }
    const std::string running = std::to_string(*busy) + " poll(s) or task(s) of the node";
    if (std::chrono::steady_clock::now() >= deadline) {
      run.end(step, StepState::succeeded,
              running + " still running after " + std::to_string(kQuietWait.count()) +
                  " s: going ahead (a login of theirs may be refused once)");
      co_return Quiet::reached;
    }
    run.at(step).detail = "waiting for " + running + " to end";
    if (!co_await run.pause(std::chrono::milliseconds(250))) co_return Quiet::interrupted;
  }
}

struct Login {
  ActionTarget* target;
  Credentials credentials;
  asio::awaitable<DriverOutcome> operator()() const { return target->check_login(credentials); }
};

std::string outcome_text(const DriverOutcome& o) {
  return o.error ? error_text(*o.error) : std::string("logs in");
}

}  // namespace credential_steps

asio::awaitable<std::optional<TaskOutcome>> run_credentials_task(TaskRun& run, ActionTarget& target,
                                                                 PasswordStore sink) {
  using namespace credential_steps;
  const auto& secrets = run.secrets();
  if (!secrets.contains("new_password") || !secrets["new_password"].is_string())
    co_return failed(run,
                     "the task's new password is gone (its sealed secrets could not be opened); "
                     "nothing was changed by this attempt: start another rotation");
  if (!run.job().target.credentials) co_return failed(run, "the node has no BMC credentials");
  const Credentials old_credentials = *run.job().target.credentials;
  const Credentials new_credentials{old_credentials.username,
                                    secrets["new_password"].get<std::string>()};
  const std::string who = "\"" + old_credentials.username + "\"";

  // 0. Nothing else logs in meanwhile.
  const std::size_t quiet = run.step("quiet");
  run.begin(quiet, StepState::running, "holding off the node's polls and tasks");
  switch (co_await hold_off_others(run, sink, quiet)) {
    case Quiet::reached:
      break;
    case Quiet::lease_lost:
      co_return std::nullopt;
    case Quiet::interrupted:
      co_return run.interruption("");
    case Quiet::failed:
      co_return failed(run, run.at(quiet).detail + "; nothing was changed");
  }
  if (!co_await run.save()) co_return std::nullopt;

  // 1. The change.
  const std::size_t change = run.step("change");
  if (!run.done(change)) {
    bool send = true;
    if (run.at(change).state == StepState::sending) {
      Login with_new{&target, new_credentials};
      const DriverOutcome now = co_await with_new();
      if (!now.error) {
        run.at(change).in_doubt =
            "this instance resumed the task while the change was being sent; the new password "
            "logs in, so the change happened: not sent again";
        run.end(change, StepState::succeeded, "changed (the new password logs in)");
        send = false;
      } else {
        Login with_old{&target, old_credentials};
        const DriverOutcome before = co_await with_old();
        if (before.error) {
          const std::string why = "neither the new password (" + outcome_text(now) +
                                  ") nor the old one (" + outcome_text(before) +
                                  ") logs in; the stored password is left as it was";
          run.at(change).in_doubt =
              "this instance resumed the task while the change was being sent; " + why;
          run.end(change, StepState::failed, why);
          co_return failed(run, why);
        }
        run.at(change).in_doubt =
            "this instance resumed the task while the change was being sent; the old password "
            "still logs in, so the change did not happen: sent again";
      }
    }
    if (send) {
      if (run.interrupted()) co_return run.interruption("");
      run.begin(change, StepState::sending, "changing the BMC password of " + who);
      if (!co_await run.save()) co_return std::nullopt;
      auto changing = target.change_bmc_password(new_credentials.password);  // GCC 12: a local
      const ActionReport report = co_await std::move(changing);
      if (report.error) {
        const std::string why = error_text(*report.error);
        run.end(change, StepState::failed, why);
        co_return failed(run, "the BMC did not change the password of " + who + ": " + why +
                                  "; the stored password is unchanged");
      }
      run.end(change, StepState::succeeded, report.detail);
    }
    if (!co_await run.save()) co_return std::nullopt;
  }

  // 2. A fresh login with the new password.
  const std::size_t verify = run.step("verify");
  if (!run.done(verify)) {
    run.begin(verify, StepState::running, "logging in with the new password");
    if (!co_await run.save()) co_return std::nullopt;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (;;) {
      Login with_new{&target, new_credentials};
      const DriverOutcome now = co_await with_new();
      if (!now.error) {
        run.end(verify, StepState::succeeded, "the new password logs in");
        break;
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        Login with_old{&target, old_credentials};
        const DriverOutcome before = co_await with_old();
        const std::string why =
            "the BMC took the change, but the new password does not log in (" + outcome_text(now) +
            "); the old one " +
            (before.error ? "no longer does either (" + outcome_text(before) + ")"
                          : std::string("still does")) +
            "; the stored password is unchanged";
        run.end(verify, StepState::failed, why);
        co_return failed(run, why);
      }
      run.at(verify).detail = "the new password does not log in yet: " + outcome_text(now);
      if (!co_await run.save()) co_return std::nullopt;
      if (!co_await run.pause(run.verify_interval()))
        co_return run.interruption("the new BMC password (changed, not yet stored)");
    }
    if (!co_await run.save()) co_return std::nullopt;
  }

  // 3. Stored: from now on every poll and task logs in with it.
  const std::size_t store = run.step("store");
  run.begin(store, StepState::running, "storing the new password");
  if (!co_await run.save()) co_return std::nullopt;
  auto write = [&sink, id = run.task().id, node = run.task().node_id.value_or(""),
                password = new_credentials.password] {
    return sink.store.store_rotated_password(id, sink.owner, node, password);
  };
  bool stored = false;
  try {
    stored = co_await on_pool(sink.pool, std::move(write));
  } catch (const std::exception& e) {
    const std::string why =
        std::string("the new password logs in but could not be stored: ") + e.what();
    run.end(store, StepState::failed, why);
    co_return failed(run, why);
  }
  if (!stored) co_return std::nullopt;  // the lease is gone: the next holder stores it
  run.end(store, StepState::succeeded, "the node's BMC password is the new one");
  TaskOutcome out;
  out.result = {{"username", old_credentials.username},
                {"rotated", true},
                {"generated", run.parameters().value("generated", true)}};
  co_return out;
}

}  // namespace ironhold::tasks
