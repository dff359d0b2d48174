// Tasks of one idempotent request: the boot device override and the identify LED. Sending either
// twice does no harm, so a resumed task that finds its request "sending" sends it again (and says
// so); the BMC's answer is the outcome.
#include "inventory/tasks/steps.hpp"

namespace ironhold::tasks {

namespace asio = boost::asio;

namespace {

// Runs the one "send" step around `request`; `what` names it for people ("boot device pxe").
template <class Send>
asio::awaitable<std::optional<TaskOutcome>> send_once(TaskRun& run, std::string what, Send send) {
  const std::size_t step = run.step("send");
  if (run.done(step)) co_return TaskOutcome{TaskState::succeeded, {{"sent", true}}, std::nullopt};
  if (run.at(step).state == StepState::sending)
    run.at(step).in_doubt = "this instance resumed the task while \"" + what +
                            "\" was being sent; setting it twice is harmless, so it was sent again";
  if (run.interrupted()) co_return run.interruption("");
  run.begin(step, StepState::sending, "sending " + what);
  if (!co_await run.save()) co_return std::nullopt;
  const ActionReport report = co_await send();
  if (report.error) {
    const std::string why =
        std::string(to_string(report.error->code)) + ": " + report.error->message;
    run.end(step, StepState::failed, why);
    co_return failed(run, "the BMC refused " + what + ": " + why);
  }
  run.end(step, StepState::succeeded, report.detail.empty() ? "sent " + what : report.detail);
  TaskOutcome out;
  out.result = {{"sent", true}, {"detail", run.at(step).detail}};
  co_return out;
}

// The request as a named callable, so that no lambda with captures sits inside a co_await
// expression (GCC 12 mishandles those).
struct SendBoot {
  ActionTarget* target;
  BootRequest boot;
  asio::awaitable<ActionReport> operator()() const { return target->set_boot(boot); }
};

struct SendIdentify {
  ActionTarget* target;
  bool on;
  asio::awaitable<ActionReport> operator()() const { return target->identify(on); }
};

}  // namespace

asio::awaitable<std::optional<TaskOutcome>> run_boot_task(TaskRun& run, ActionTarget& target) {
  const auto& p = run.parameters();
  BootRequest boot;
  boot.device =
      parse_enum<BootDevice>(p.value("device", std::string("pxe"))).value_or(BootDevice::pxe);
  boot.persistent = p.value("persistent", false);
  if (p.contains("mode") && p["mode"].is_string())
    boot.mode = p["mode"] == "legacy" ? BootMode::legacy : BootMode::uefi;
  std::string what = "boot device " + std::string(to_string(boot.device)) +
                     (boot.persistent ? " (persistent)" : " (next boot only)");
  SendBoot send{&target, boot};
  auto sending = send_once(run, std::move(what), send);  // not inside the co_await (GCC 12)
  co_return co_await std::move(sending);
}

asio::awaitable<std::optional<TaskOutcome>> run_identify_task(TaskRun& run, ActionTarget& target) {
  const bool on = run.parameters().value("on", true);
  std::string what = std::string("identify LED ") + (on ? "on" : "off");
  SendIdentify send{&target, on};
  auto sending = send_once(run, std::move(what), send);  // not inside the co_await (GCC 12)
  co_return co_await std::move(sending);
}

}  // namespace ironhold::tasks
