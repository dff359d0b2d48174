// The BIOS task of an owned server: read the BIOS, write what differs to its settings object,
// reset the System so that the BIOS applies them, read them back until they show, and record the
// new settings in the inventory.
//   read   - the current attributes; attributes the BIOS lacks or values of the wrong type fail
//            the task before anything is written, and nothing to change ends it here.
//   write  - the PATCH of the settings object (and of Boot.BootOrder). Writing the same values
//            again is harmless, so a resumed task that finds it "sending" writes again.
//   reset  - with ApplyTime OnReset: a power reset (power on when the System is off). A resumed
//            task that finds it "sending" reads the BIOS first: the values showing mean the reset
//            happened. With "reset": false the task ends here, the settings pending.
//   verify - the attributes read back until every one shows, failing early when the BMC's
//            settings messages name one of them as refused, or at timeout_s.
//   record - an inspection, so that the inventory's BIOS history has the new version.
#include "inventory/tasks/steps.hpp"
#include "inventory/util/time.hpp"

namespace ironhold::tasks {

namespace asio = boost::asio;
using nlohmann::json;
using SystemClock = std::chrono::system_clock;

// Named, not anonymous: in a unity build the other task files' helpers share the unit.
namespace bios_steps {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : "; ") + i;
  return out;
}

std::string names_of(const json& attributes) {
  std::string out;
  std::size_t n = 0;
  for (const auto& [name, value] : attributes.items()) {
    if (++n > 8) {
      out += " and " + std::to_string(attributes.size() - 8) + " more";
      break;
    }
    out += (out.empty() ? "" : ", ") + name + "=" +
           (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out;
}

// What the task asked for, from its parameters.
struct Wanted {
  json attributes = json::object();
  std::optional<std::vector<std::string>> boot_order;
  std::string apply_time = "OnReset";
  bool reset = true;
  int timeout_s = 1800;
};

Wanted wanted_of(const json& p) {
  Wanted w;
  if (p.contains("attributes") && p["attributes"].is_object()) w.attributes = p["attributes"];
  if (p.contains("boot_order") && p["boot_order"].is_array())
    w.boot_order = p["boot_order"].get<std::vector<std::string>>();
  w.apply_time = p.value("apply_time", std::string("OnReset"));
  w.reset = p.value("reset", true);
  w.timeout_s = p.value("timeout_s", 1800);
  return w;
}

// What still differs between the BIOS read and what is wanted.
struct Remaining {
  json attributes = json::object();
  bool boot_order = false;
  bool none() const { return attributes.empty() && !boot_order; }
};

Remaining remaining(const BiosSettings& bios, const Wanted& w) {
  Remaining r;
  r.attributes = bios_differences(bios.attributes, w.attributes);
  r.boot_order = w.boot_order && *w.boot_order != bios.boot_order;
  return r;
}

std::string describe(const Remaining& r) {
  std::string out = names_of(r.attributes);
  if (r.boot_order) out += std::string(out.empty() ? "" : "; ") + "the boot order";
  return out;
}

TaskOutcome succeeded(json result) {
  TaskOutcome out;
  out.result = std::move(result);
  return out;
}

struct ReadBios {
  ActionTarget* target;
  asio::awaitable<BiosReport> operator()() const { return target->read_bios(); }
};

}  // namespace bios_steps

asio::awaitable<std::optional<TaskOutcome>> run_bios_task(TaskRun& run, ActionTarget& target) {
  using namespace bios_steps;
  const Wanted w = wanted_of(run.parameters());
  const std::chrono::milliseconds interval = run.verify_interval();

  // 1. What the BIOS runs with now.
  const std::size_t read = run.step("read");
  if (!run.done(read)) {
    if (run.interrupted()) co_return run.interruption("");
    run.begin(read, StepState::running, "reading the BIOS settings");
    if (!co_await run.save()) co_return std::nullopt;
    const BiosReport now = co_await target.read_bios();
    if (now.error) {
      const std::string why = error_text(*now.error);
      run.end(read, StepState::failed, why);
      co_return failed(run, "the BIOS settings could not be read: " + why);
    }
    const auto problems = bios_change_problems(now.bios->attributes, w.attributes);
    if (!problems.empty()) {
      run.end(read, StepState::failed, joined(problems));
      co_return failed(run, "nothing was written: " + joined(problems));
    }
    const Remaining todo = remaining(*now.bios, w);
    run.at(read).data = {
        {"changes", todo.attributes}, {"before", json::object()}, {"boot_order", todo.boot_order}};
    for (const auto& [name, value] : todo.attributes.items())
      run.at(read).data["before"][name] = now.bios->attributes.value(name, json());
    if (todo.none()) {
      run.end(read, StepState::succeeded, "the BIOS already has every value asked for");
      if (!co_await run.save()) co_return std::nullopt;
      co_return succeeded({{"changed", json::object()}, {"verified", true}});
    }
    run.end(read, StepState::succeeded,
            std::to_string(now.bios->attributes.size()) +
                " attributes read; to change: " + describe(todo));
    if (!co_await run.save()) co_return std::nullopt;
  }
  const json changes = run.at(read).data.value("changes", json::object());
  const bool order_changes = run.at(read).data.value("boot_order", false);
  const json result_changes = {{"attributes", changes},
                               {"before", run.at(read).data.value("before", json::object())},
                               {"boot_order", order_changes ? json(*w.boot_order) : json(nullptr)}};

  // 2. The settings object, written.
  const std::size_t write = run.step("write");
  if (!run.done(write)) {
    if (run.at(write).state == StepState::sending)
      run.at(write).in_doubt =
          "this instance resumed the task while the settings were being written; writing the "
          "same values twice is harmless, so they were written again";
    if (run.interrupted()) co_return run.interruption("");
    BiosChange change;
    change.attributes = changes;
    if (order_changes) change.boot_order = w.boot_order;
    change.apply_time = w.apply_time;
    run.begin(write, StepState::sending, "writing " + names_of(changes));
    if (!co_await run.save()) co_return std::nullopt;
    auto writing = target.write_bios(change);  // GCC 12: a local
    const ActionReport report = co_await std::move(writing);
    if (report.error) {
      const std::string why = error_text(*report.error);
      run.end(write, StepState::failed, why);
      co_return failed(run, why);
    }
    run.end(write, StepState::succeeded, report.detail);
    if (!co_await run.save()) co_return std::nullopt;
  }

  // 3. The reset the BIOS applies them at.
  const std::size_t reset = run.step("reset");
  if (!run.done(reset)) {
    if (w.apply_time == "Immediate") {
      run.end(reset, StepState::skipped, "ApplyTime Immediate: the BMC applies them without one");
    } else if (!w.reset) {
      run.end(reset, StepState::skipped,
              "left pending as asked (\"reset\": false): the BIOS applies them at the node's next "
              "reset");
      const std::size_t verify = run.step("verify");
      run.end(verify, StepState::skipped, "not verified: no reset yet");
      if (!co_await run.save()) co_return std::nullopt;
      json result = result_changes;
      result["verified"] = false;
      result["pending"] = true;
      co_return succeeded(std::move(result));
    } else {
      bool send = true;
      if (run.at(reset).state == StepState::sending) {
        const BiosReport seen = co_await target.read_bios();
        if (!seen.error && remaining(*seen.bios, w).none()) {
          run.at(reset).in_doubt =
              "this instance resumed the task while the reset was being sent; the BIOS already "
              "shows every value, so the reset happened: not sent again";
          run.end(reset, StepState::succeeded, "reset (the values show)");
          send = false;
        } else {
          run.at(reset).in_doubt =
              "this instance resumed the task while the reset was being sent; the BIOS does not "
              "show the values yet (" +
              (seen.error ? error_text(*seen.error)
                          : describe(remaining(*seen.bios, w)) + " differ") +
              "), so the reset was sent again (the settings wait for it either way)";
        }
      }
      if (send) {
        if (run.interrupted()) co_return run.interruption("the BIOS settings (pending)");
        const TargetReading before = co_await target.read();
        const PowerAction action =
            !before.error && before.power == PowerState::off ? PowerAction::on : PowerAction::reset;
        run.begin(reset, StepState::sending,
                  std::string("sending power ") + std::string(to_string(action)) +
                      ": the BIOS applies its settings as the System starts");
        if (!co_await run.save()) co_return std::nullopt;
        auto resetting = target.power(action);  // GCC 12: a local
        const ActionReport report = co_await std::move(resetting);
        if (report.error) {
          const std::string why = error_text(*report.error);
          run.end(reset, StepState::failed, why);
          co_return failed(run, "the settings are written and pending, but the BMC refused the " +
                                    std::string(to_string(action)) + ": " + why);
        }
        run.end(reset, StepState::succeeded,
                "power " + std::string(to_string(action)) +
                    (report.detail.empty() ? "" : " (" + report.detail + ")"));
      }
    }
    if (!co_await run.save()) co_return std::nullopt;
  }

  // 4. The values, read back.
  const std::size_t verify = run.step("verify");
  if (!run.done(verify)) {
    run.begin(verify, StepState::running, "reading the BIOS settings back");
    if (!co_await run.save()) co_return std::nullopt;
    const auto started =
        run.at(verify).started_at ? parse_rfc3339(*run.at(verify).started_at) : std::nullopt;
    const auto deadline = started.value_or(SystemClock::now()) + std::chrono::seconds(w.timeout_s);
    for (;;) {
      const BiosReport seen = co_await target.read_bios();
      std::string last_seen;
      if (seen.error) {
        // A System coming out of a reset, or a BMC busy applying: not answering for a while is
        // expected.
        last_seen = "the BIOS could not be read (" + error_text(*seen.error) + ")";
      } else {
        const Remaining left = remaining(*seen.bios, w);
        if (left.none()) {
          run.end(verify, StepState::succeeded, "every value shows: " + names_of(changes));
          break;
        }
        std::vector<std::string> refused;
        for (const auto& name : seen.refused)
          if (left.attributes.contains(name)) refused.push_back(name);
        if (!refused.empty()) {
          const std::string why =
              "the BIOS refused " + joined(refused) + "; the BMC says: " + joined(seen.messages);
          run.end(verify, StepState::failed, why);
          co_return failed(run, why);
        }
        last_seen =
            describe(left) + " not yet as asked" +
            (seen.pending.empty() ? std::string() : " (pending: " + names_of(seen.pending) + ")");
      }
      if (SystemClock::now() >= deadline) {
        const std::string why =
            "after " + std::to_string(w.timeout_s) + " s " + last_seen +
            (seen.messages.empty() ? std::string() : "; the BMC says: " + joined(seen.messages));
        run.end(verify, StepState::failed, why);
        co_return failed(run, why);
      }
      run.at(verify).detail = "waiting: " + last_seen;
      if (!co_await run.save()) co_return std::nullopt;
      if (!co_await run.pause(interval)) co_return run.interruption("the BIOS settings");
    }
    if (!co_await run.save()) co_return std::nullopt;
  }

  // 5. The inventory's history, brought up to date.
  const std::size_t record = run.step("record");
  run.begin(record, StepState::running, "inspecting the node");
  if (!co_await run.save()) co_return std::nullopt;
  const TargetInspection inspection = co_await target.inspect();
  if (inspection.error)
    run.end(record, StepState::skipped,
            "the settings are verified; the inspection failed (" + error_text(*inspection.error) +
                "), so the inventory shows them after the next one");
  else
    run.end(record, StepState::succeeded, inspection.detail);
  json result = result_changes;
  result["verified"] = true;
  co_return succeeded(std::move(result));
}

}  // namespace ironhold::tasks
