// The reprovision task of a cloud instance: send the rebuild (recorded as "sending" first), then
// read the instance until the provider reports it running again. A rebuild wipes the root disk,
// so a resumed task that finds it "sending" never sends it again: it lets the verification decide.
#include "inventory/tasks/steps.hpp"

namespace ironhold::tasks {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

asio::awaitable<std::optional<TaskOutcome>> run_reprovision_task(TaskRun& run,
                                                                 ActionTarget& target) {
  const auto& p = run.parameters();
  const int timeout_s = p.value("timeout_s", 3600);
  RebuildRequest request;
  if (p.contains("image") && p["image"].is_string()) request.image = p["image"].get<std::string>();
  if (run.secrets().contains("admin_password") && run.secrets()["admin_password"].is_string())
    request.admin_password = run.secrets()["admin_password"].get<std::string>();
  const std::string what = "rebuild" + (request.image ? " from image " + *request.image : "");

  const std::size_t send = run.step("send");
  if (!run.done(send)) {
    if (run.at(send).state == StepState::sending) {
      run.at(send).in_doubt =
          "this instance resumed the task while the rebuild was being sent; a rebuild wipes the "
          "root disk, so it was not sent again: the verification tells whether it took place";
      run.end(send, StepState::succeeded, "not sent again");
      if (!co_await run.save()) co_return std::nullopt;
    } else {
      if (run.interrupted()) co_return run.interruption("");
      run.begin(send, StepState::sending, "sending " + what);
      if (!co_await run.save()) co_return std::nullopt;
      auto rebuilding = target.rebuild(request);  // the argument outside co_await (GCC 12)
      const ActionReport report = co_await std::move(rebuilding);
      if (report.error) {
        const std::string why =
            std::string(to_string(report.error->code)) + ": " + report.error->message;
        run.end(send, StepState::failed, why);
        co_return failed(run, "the provider refused the " + what + ": " + why);
      }
      run.end(send, StepState::succeeded, report.detail.empty() ? what : report.detail);
      if (!co_await run.save()) co_return std::nullopt;
    }
  }

  const std::size_t verify = run.step("verify");
  run.begin(verify, StepState::running, "waiting for the instance to run again");
  if (!co_await run.save()) co_return std::nullopt;
  const auto deadline = Clock::now() + std::chrono::seconds(timeout_s);
  bool saw_transition = false;
  std::string last_seen = "nothing yet";
  for (;;) {
    const TargetReading now = co_await target.read();
    if (now.error) {
      last_seen = "unreadable (" + now.error->message + ")";
    } else {
      last_seen = now.detail;
      if (now.power != PowerState::on) saw_transition = true;
      if (now.power == PowerState::on) {
        run.end(verify, StepState::succeeded,
                now.detail + (saw_transition ? ", after the rebuild was seen under way"
                                             : ", the driver having followed the rebuild"));
        TaskOutcome out;
        out.result = {{"power_state", "on"}, {"provider_state", now.detail}};
        if (request.image) out.result["image"] = *request.image;
        co_return out;
      }
    }
    if (Clock::now() >= deadline) {
      const std::string why = "the instance was not running again within " +
                              std::to_string(timeout_s) + " s; last state seen: " + last_seen;
      run.end(verify, StepState::failed, why);
      co_return failed(run, why);
    }
    if (!co_await run.pause(run.verify_interval())) co_return run.interruption(what);
  }
}

}  // namespace ironhold::tasks
