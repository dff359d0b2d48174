// The inspect task: read the node's full inventory now and record it. Reading changes nothing on
// the node, so a resumed task simply reads again.
#include "inventory/tasks/steps.hpp"

namespace ironhold::tasks {

namespace asio = boost::asio;

asio::awaitable<std::optional<TaskOutcome>> run_inspect_task(TaskRun& run, ActionTarget& target) {
  const std::size_t step = run.step("inspect");
  if (run.interrupted()) co_return run.interruption("");
  run.begin(step, StepState::running, "reading the full inventory");
  if (!co_await run.save()) co_return std::nullopt;
  const TargetInspection found = co_await target.inspect();
  if (found.error) {
    const std::string why = std::string(to_string(found.error->code)) + ": " + found.error->message;
    run.end(step, StepState::failed, why);
    co_return failed(run, "the inspection failed: " + why);
  }
  run.end(step, StepState::succeeded, found.detail);
  TaskOutcome out;
  out.result = found.result;
  co_return out;
}

}  // namespace ironhold::tasks
