// The power task: check → send → verify. The node is read before anything is sent (an "on" for a
// node that is on sends nothing; a reset's evidence is noted), the command is recorded as
// "sending" before it goes out, and the task then reads the node until it reports the target
// state. A worker that resumes the task and finds "sending" decides from the node itself whether
// the command took effect, and records how it decided.
#include <boost/asio/use_awaitable.hpp>

#include "inventory/tasks/steps.hpp"
#include "inventory/util/time.hpp"

namespace ironhold::tasks {

namespace asio = boost::asio;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

struct PowerGoal {
  PowerAction action = PowerAction::on;
  PowerState target = PowerState::on;
  bool is_reset = false;  // cycle or reset: the state ends where it began; evidence is needed
};

PowerGoal goal_of(const json& parameters) {
  PowerGoal goal;
  goal.action = parse_enum<PowerAction>(parameters.value("action", std::string("on")))
                    .value_or(PowerAction::on);
  goal.is_reset = goal.action == PowerAction::cycle || goal.action == PowerAction::reset;
  goal.target = goal.action == PowerAction::off || goal.action == PowerAction::soft_off
                    ? PowerState::off
                    : PowerState::on;
  return goal;
}

std::string state_name(PowerState s) {
  return std::string(to_string(s));
}

std::string action_name(PowerAction a) {
  return std::string(to_string(a));
}

// The reset time read before sending, from the check step's data.
std::optional<std::string> baseline_of(const TaskStep& check) {
  if (check.data.is_object() && check.data.contains("last_reset") &&
      check.data["last_reset"].is_string())
    return check.data["last_reset"].get<std::string>();
  return std::nullopt;
}

bool reset_evident(const std::optional<std::string>& baseline, const TargetReading& now) {
  return now.last_reset && (!baseline || *now.last_reset != *baseline);
}

// A resumed task found "send" in state sending: did the command take effect? Returns true when
// it must not be sent (again); records the reasoning on the step either way.
bool settle_in_doubt(TaskRun& run, std::size_t send, const PowerGoal& goal,
                     const std::optional<std::string>& baseline, const TargetReading& now,
                     const ActionTarget& target) {
  TaskStep& step = run.at(send);
  const std::string seen = now.error ? "unreadable (" + now.error->message + ")" : now.detail;
  const std::string prefix = "this instance resumed the task after \"" + action_name(goal.action) +
                             "\" was being sent; the node was " + seen + ": ";
  if (now.error) {
    step.in_doubt = prefix +
                    "cannot tell whether it took effect, so it was not sent again "
                    "(the verification decides the outcome)";
    return true;
  }
  if (!goal.is_reset) {
    if (now.power == goal.target) {
      step.in_doubt = prefix + "it had taken effect; not sent again";
      return true;
    }
    step.in_doubt = prefix + "it had not taken effect; sent again";
    return false;
  }
  if (reset_evident(baseline, now)) {
    step.in_doubt = prefix + "the reset time moved from " + baseline.value_or("none") + " to " +
                    *now.last_reset + ": the " + action_name(goal.action) +
                    " happened; not sent again";
    return true;
  }
  if (now.power != PowerState::on) {
    step.in_doubt = prefix + "the " + action_name(goal.action) + " is under way; not sent again";
    return true;
  }
  if (now.last_reset && !target.leaves_no_trace(goal.action)) {
    step.in_doubt = prefix + "its reset time is unchanged, so the " + action_name(goal.action) +
                    " had not happened; sent again";
    return false;
  }
  step.in_doubt = prefix + "it keeps no trace of a " + action_name(goal.action) +
                  ", so nothing tells whether it happened; not sent again, so that the node "
                  "is never reset twice";
  step.data = {{"accept_on", true}};
  return true;
}

bool reached(const PowerGoal& goal, const TargetReading& now, bool saw_not_on,
             const std::optional<std::string>& baseline, bool accept_on,
             const ActionTarget& target) {
  if (now.error || now.power != goal.target) return false;
  if (!goal.is_reset) return true;
  return saw_not_on || reset_evident(baseline, now) || accept_on ||
         target.leaves_no_trace(goal.action);
}

}  // namespace

asio::awaitable<std::optional<TaskOutcome>> run_power_task(TaskRun& run, ActionTarget& target) {
  const PowerGoal goal = goal_of(run.parameters());
  const int timeout_s = run.parameters().value("timeout_s", 300);

  // 1. check: the node before anything is sent.
  const std::size_t check = run.step("check");
  if (!run.done(check)) {
    run.begin(check, StepState::running, "reading the node");
    const TargetReading before = co_await target.read();
    if (before.error) {
      run.end(check, StepState::failed, "could not read the node: " + before.error->message);
      co_return failed(
          run, std::string(to_string(before.error->code)) +
                   ": could not read the node before sending anything: " + before.error->message);
    }
    run.end(check, StepState::succeeded, before.detail);
    if (before.last_reset) run.at(check).data = {{"last_reset", *before.last_reset}};
    if (!goal.is_reset && before.power == goal.target) {
      const std::size_t send = run.step("send");
      run.end(send, StepState::skipped,
              "nothing sent: the node is already " + state_name(goal.target));
      TaskOutcome out;
      out.result = {{"power_state", state_name(before.power)}, {"sent", false}};
      co_return out;
    }
    if (!co_await run.save()) co_return std::nullopt;
  }
  if (run.interrupted()) co_return run.interruption("");
  const std::optional<std::string> baseline = baseline_of(run.at(check));

  // 2. send: recorded as "sending" before it goes out.
  const std::size_t send = run.step("send");
  std::string sent_detail = run.at(send).detail;
  if (!run.done(send)) {
    bool settled = false;
    if (run.at(send).state == StepState::sending) {
      const TargetReading now = co_await target.read();
      settled = settle_in_doubt(run, send, goal, baseline, now, target);
      if (settled) run.end(send, StepState::succeeded, run.at(send).detail);
      if (!co_await run.save()) co_return std::nullopt;
    }
    if (!settled) {
      run.begin(send, StepState::sending, "sending " + action_name(goal.action));
      if (!co_await run.save()) co_return std::nullopt;
      const ActionReport report = co_await target.power(goal.action);
      if (report.error) {
        run.end(send, StepState::failed,
                std::string(to_string(report.error->code)) + ": " + report.error->message);
        co_return failed(run, std::string(to_string(report.error->code)) + ": the " +
                                  action_name(goal.action) +
                                  " was refused: " + report.error->message);
      }
      sent_detail = report.detail.empty() ? "sent " + action_name(goal.action) : report.detail;
      run.end(send, StepState::succeeded, sent_detail);
      if (!co_await run.save()) co_return std::nullopt;
    }
  }
  const bool accept_on =
      run.at(send).data.is_object() && run.at(send).data.value("accept_on", false);

  // 3. verify: read until the node reports the target state.
  const std::size_t verify = run.step("verify");
  bool saw_not_on =
      run.at(verify).data.is_object() && run.at(verify).data.value("saw_not_on", false);
  run.begin(verify, StepState::running, "waiting for the node to be " + state_name(goal.target));
  if (!co_await run.save()) co_return std::nullopt;  // so that the task shows it is verifying
  const auto deadline = Clock::now() + std::chrono::seconds(timeout_s);
  std::string last_seen = "nothing yet";
  for (;;) {
    const TargetReading now = co_await target.read();
    if (now.error) {
      last_seen = "unreadable (" + std::string(to_string(now.error->code)) + ": " +
                  now.error->message + ")";
    } else {
      last_seen = now.detail;
      if (now.power != PowerState::on && !saw_not_on) {
        saw_not_on = true;
        run.at(verify).data = {{"saw_not_on", true}};
        if (!co_await run.save()) co_return std::nullopt;
      }
    }
    if (reached(goal, now, saw_not_on, baseline, accept_on, target)) {
      std::string how = "the node is " + state_name(goal.target);
      if (goal.is_reset) {
        if (reset_evident(baseline, now))
          how += "; its reset time moved to " + *now.last_reset;
        else if (saw_not_on)
          how += "; it was seen off or transitioning on the way";
        else
          how += "; it reports no trace of a " + action_name(goal.action) +
                 ", so the acknowledgement is the evidence";
      }
      run.end(verify, StepState::succeeded, how);
      TaskOutcome out;
      out.result = {
          {"power_state", state_name(now.power)}, {"sent", true}, {"detail", sent_detail}};
      if (now.last_reset) out.result["last_reset"] = *now.last_reset;
      co_return out;
    }
    if (Clock::now() >= deadline) {
      const std::string why = "the node did not become " + state_name(goal.target) +
                              (goal.is_reset && !saw_not_on ? " by way of a reset" : "") +
                              " within " + std::to_string(timeout_s) +
                              " s; last state seen: " + last_seen;
      run.end(verify, StepState::failed, why);
      co_return failed(run, why);
    }
    if (!co_await run.pause(run.verify_interval()))
      co_return run.interruption(action_name(goal.action));
  }
}

}  // namespace ironhold::tasks
