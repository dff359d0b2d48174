// The firmware update of an owned server: read the component's version, hand the BMC a signed URL
// of the image (Redfish UpdateService.SimpleUpdate) or push the image to it (MultipartHttpPushUri,
// chosen by the driver from what the BMC offers and the task's `transfer`), follow the BMC's task
// to its end, reset the
// System when the new firmware waits for one, and read the firmware inventory again until it
// shows the new version. Both inspections are recorded like the poller's, so the node's firmware
// history holds the old version until the moment the new one was seen.
//
// Exactly once: the start of the update is recorded as "sending" first, with what the driver
// says will identify it. A resumed task that finds it so asks the BMC's task service for that
// update — a task carrying the very same URL (its expiry is kept in the step, so the URL is
// rebuilt identically), or for a push a task for the push URI that the BMC did not have before —
// and follows it instead of flashing twice; only when the BMC has none is the update sent again.
// The reset is decided by the firmware inventory: when the new version already shows, the reset
// happened.
#include <algorithm>

#include "inventory/tasks/steps.hpp"
#include "inventory/util/time.hpp"

namespace ironhold::tasks {

namespace asio = boost::asio;
using nlohmann::json;
using SystemClock = std::chrono::system_clock;

namespace {

// A string or number kept in a step's data; empty when there is none.
std::string text_in(const json& data, const char* key) {
  if (!data.is_object()) return {};
  const auto it = data.find(key);
  return it != data.end() && it->is_string() ? it->get<std::string>() : std::string();
}
bool flag_in(const json& data, const char* key) {
  if (!data.is_object()) return false;
  const auto it = data.find(key);
  return it != data.end() && it->is_boolean() && it->get<bool>();
}

void set_data(TaskStep& step, const char* key, json value) {
  if (!step.data.is_object()) step.data = json::object();
  step.data[key] = std::move(value);
}

std::optional<std::string> version_of(const std::vector<FirmwareItem>& firmware,
                                      const std::string& component) {
  for (const auto& item : firmware)
    if (item.component == component) return item.version;
  return std::nullopt;
}

std::string components_of(const std::vector<FirmwareItem>& firmware) {
  std::string out;
  for (const auto& item : firmware) out += (out.empty() ? "" : ", ") + item.component;
  return out.empty() ? "none" : out;
}

// When a step that waits must give up: `seconds` after it first started (so a resumed task does
// not wait the whole time again).
SystemClock::time_point deadline_of(const TaskStep& step, int seconds) {
  const auto started = step.started_at ? parse_rfc3339(*step.started_at) : std::nullopt;
  return started.value_or(SystemClock::now()) + std::chrono::seconds(seconds);
}

std::string progress_text(const FirmwareUpdateReport& r) {
  std::string out = "the BMC's task is running";
  if (r.percent >= 0) out += ", " + std::to_string(r.percent) + " %";
  if (!r.message.empty()) out += ": " + r.message;
  return out;
}

// What a run knows of the update as the steps go by.
struct Update {
  std::string image, image_name, component, version, from, monitor;
  int timeout_s = 3600;
  bool reset_allowed = true;
  bool awaits_reset = false;
  bool reset_sent = false;

  json result(bool confirmed, bool staged) const {
    return {{"image", image},         {"image_name", image_name},
            {"component", component}, {"from", from},
            {"to", version},          {"confirmed", confirmed},
            {"staged", staged},       {"reset", reset_sent},
            {"monitor", monitor}};
  }
};

std::optional<TaskOutcome> succeeded(json result) {
  TaskOutcome out;
  out.result = std::move(result);
  return out;
}

// What the transfer step says while the update goes out, from what the driver will send.
std::string sending_detail(const json& sent, const std::string& image_name) {
  if (text_in(sent, "transfer") == "push")
    return "pushing " + image_name + " to the BMC's " + text_in(sent, "target") +
           " (MultipartHttpPushUri)";
  return "sending UpdateService.SimpleUpdate with a signed URL of " + image_name;
}

// The driver's before_send: records the step as sending, with what identifies the update.
asio::awaitable<bool> mark_sending(TaskRun& run, std::size_t step, long long expires, json sent,
                                   std::string image_name, bool* asked) {
  *asked = true;
  if (run.interrupted()) co_return false;
  run.begin(step, StepState::sending, sending_detail(sent, image_name));
  set_data(run.at(step), "expires", expires);
  set_data(run.at(step), "sent", std::move(sent));
  const bool saved = co_await run.save();
  co_return saved;
}

// The driver's spool: a copy of the image, or an error the task reports as its own.
asio::awaitable<SpoolResult> spool_image(const FirmwareSpool* spool, std::string image,
                                         std::string* failure) {
  if (spool == nullptr) {
    *failure = "this server cannot push images (no spool)";
    co_return DriverError{DriverErrorCode::unsupported, *failure};
  }
  SpoolCopy copy = co_await spool->copy(std::move(image));
  if (auto* why = std::get_if<std::string>(&copy)) {
    *failure = *why;
    co_return DriverError{DriverErrorCode::rejected, *why};
  }
  co_return std::get<std::shared_ptr<const SpooledImage>>(std::move(copy));
}

}  // namespace

asio::awaitable<std::optional<TaskOutcome>> run_firmware_task(TaskRun& run, ActionTarget& target,
                                                              const FirmwareDownloads& downloads,
                                                              const FirmwareSpool* spool) {
  const json& p = run.parameters();
  Update u;
  u.image = p.value("image", std::string());
  u.image_name = p.value("image_name", std::string());
  u.component = p.value("component", std::string());
  u.version = p.value("version", std::string());
  u.timeout_s = p.value("timeout_s", 3600);
  u.reset_allowed = p.value("reset", true);
  const FirmwareTransfer transfer =
      parse_enum<FirmwareTransfer>(p.value("transfer", std::string("auto")))
          .value_or(FirmwareTransfer::automatic);
  const auto interval = run.verify_interval() * 5;

  // 1. The version before: the firmware inventory, read and recorded now.
  const std::size_t prepare = run.step("prepare");
  if (!run.done(prepare)) {
    if (run.interrupted()) co_return run.interruption("");
    run.begin(prepare, StepState::running, "reading the firmware inventory");
    if (!co_await run.save()) co_return std::nullopt;
    const TargetInspection seen = co_await target.inspect();
    if (seen.error) {
      const std::string why = error_text(*seen.error);
      run.end(prepare, StepState::failed, why);
      co_return failed(run, "could not read the firmware inventory before the update: " + why);
    }
    const auto current = version_of(seen.firmware, u.component);
    if (!current) {
      const std::string why = "the node reports no firmware component \"" + u.component +
                              "\" (it reports: " + components_of(seen.firmware) + ")";
      run.end(prepare, StepState::failed, why);
      co_return failed(run, why);
    }
    u.from = *current;
    set_data(run.at(prepare), "from", u.from);
    if (u.from == u.version) {
      run.end(prepare, StepState::succeeded, u.component + " is already at " + u.version);
      json result = u.result(true, false);
      result["already"] = true;
      co_return succeeded(std::move(result));
    }
    run.end(
        prepare, StepState::succeeded,
        u.component + " is at " + u.from + "; updating to " + u.version + " from " + u.image_name);
    if (!co_await run.save()) co_return std::nullopt;
  }
  u.from = text_in(run.at(prepare).data, "from");

  // 2. The BMC takes the image (its URL, or the image itself) and starts its task.
  const std::size_t step = run.step("transfer");
  // The URL's expiry is chosen once and kept, so that the same URL can be recognised later.
  long long expires = 0;
  if (const json& d = run.at(step).data;
      d.is_object() && d.contains("expires") && d["expires"].is_number_integer())
    expires = d["expires"].get<long long>();
  if (expires == 0)
    expires = std::chrono::duration_cast<std::chrono::seconds>(
                  (SystemClock::now() + std::chrono::seconds(u.timeout_s + 900)).time_since_epoch())
                  .count();
  const std::string url =
      downloads.url(u.image, SystemClock::time_point(std::chrono::seconds(expires)));
  FirmwareUpdateRequest request;
  request.transfer = transfer;
  request.image_url = url;
  request.image_name = u.image_name;
  if (!run.done(step)) {
    bool send = true;
    if (run.at(step).state == StepState::sending) {
      const json sent = run.at(step).data.is_object() && run.at(step).data.contains("sent")
                            ? run.at(step).data["sent"]
                            : json();
      const bool pushed = text_in(sent, "transfer") == "push";
      const std::string which = pushed ? "for this push" : "for this image's URL";
      auto finding = target.find_firmware_update(request, sent);  // a local (GCC 12)
      const FirmwareUpdateReport found = co_await std::move(finding);
      if (found.error) {
        const std::string why = without_signature(error_text(*found.error), url);
        run.at(step).in_doubt =
            "this instance resumed the task while the update was being sent, and could not ask "
            "the BMC whether it had accepted it (" +
            why + "): not sent again, so that the firmware is not flashed twice";
        run.end(step, StepState::failed, why);
        co_return failed(run,
                         "could not tell whether the BMC accepted the firmware update: check its "
                         "task service, then update again (" +
                             why + ")");
      }
      if (found.state != UpdateState::gone) {
        run.at(step).in_doubt =
            "this instance resumed the task while the update was being sent; the BMC has a task " +
            which + " (" + found.monitor + "), so it had accepted it: followed, not sent again";
        u.monitor = found.monitor;
        set_data(run.at(step), "monitor", u.monitor);
        run.end(step, StepState::succeeded, "accepted by the BMC: its task " + u.monitor);
        send = false;
      } else {
        run.at(step).in_doubt =
            "this instance resumed the task while the update was being sent; the BMC has no task " +
            which + ", so it had not accepted it: sent again";
      }
    }
    if (send) {
      if (run.interrupted()) co_return run.interruption("");
      run.begin(step, StepState::running, "asking the BMC how it takes firmware");
      bool asked = false;
      std::string spool_failure;
      request.before_send = [&run, step, expires, name = u.image_name, &asked](json sent) {
        return mark_sending(run, step, expires, std::move(sent), name, &asked);
      };
      request.spool = [spool, image = u.image, &spool_failure] {
        return spool_image(spool, image, &spool_failure);
      };
      auto starting = target.start_firmware_update(std::move(request));  // GCC 12: a local
      const FirmwareUpdateReport started = co_await std::move(starting);
      if (!spool_failure.empty()) {
        run.end(step, StepState::failed, spool_failure);
        co_return failed(run, "could not copy the image for the push: " + spool_failure);
      }
      if (!started.error && started.state == UpdateState::gone) {
        // before_send said no: the task was interrupted before anything was sent.
        if (run.interrupted()) co_return run.interruption("");
        co_return std::nullopt;
      }
      if (started.error) {
        const std::string why = without_signature(error_text(*started.error), url);
        run.end(step, StepState::failed, why);
        co_return failed(run, std::string(asked ? "the BMC refused the firmware update: "
                                                : "the BMC cannot take this update: ") +
                                  why);
      }
      if (started.state == UpdateState::failed) {
        const std::string why = without_signature(started.message, url);
        run.end(step, StepState::failed, why);
        co_return failed(run, "the BMC failed the firmware update at once: " + why);
      }
      u.monitor = started.monitor;
      set_data(run.at(step), "monitor", u.monitor);
      if (started.state == UpdateState::completed) {
        set_data(run.at(step), "completed", true);
        set_data(run.at(step), "awaits_reset", started.awaits_reset);
      }
      run.end(step, StepState::succeeded,
              u.monitor.empty() ? "the BMC took the image and finished at once"
                                : "accepted by the BMC: its task " + u.monitor);
    }
    if (!co_await run.save()) co_return std::nullopt;
  }
  u.monitor = text_in(run.at(step).data, "monitor");

  // 3. The BMC's task, followed to its end.
  const std::size_t follow = run.step("update");
  if (!run.done(follow)) {
    if (u.monitor.empty() || flag_in(run.at(step).data, "completed")) {
      run.end(follow, StepState::skipped, "the BMC finished when it took the image");
      set_data(run.at(follow), "awaits_reset", flag_in(run.at(step).data, "awaits_reset"));
    } else {
      run.begin(follow, StepState::running, "following the BMC's task " + u.monitor);
      if (!co_await run.save()) co_return std::nullopt;
      const auto deadline = deadline_of(run.at(follow), u.timeout_s);
      std::string last_seen = "no answer yet";
      int last_percent = -2;
      for (;;) {
        auto reading = target.firmware_update_status(u.monitor);  // GCC 12: a local
        const FirmwareUpdateReport r = co_await std::move(reading);
        if (r.error) {
          // A BMC that flashes itself restarts: not answering for a while is expected.
          last_seen =
              "the BMC did not answer (" + without_signature(error_text(*r.error), url) + ")";
        } else if (r.state == UpdateState::completed) {
          set_data(run.at(follow), "awaits_reset", r.awaits_reset);
          run.end(
              follow, StepState::succeeded,
              "the BMC reports the update done" +
                  (r.message.empty() ? std::string() : ": " + without_signature(r.message, url)));
          break;
        } else if (r.state == UpdateState::failed) {
          const std::string why =
              "the BMC reports the update failed" +
              (r.message.empty() ? std::string() : ": " + without_signature(r.message, url));
          run.end(follow, StepState::failed, why);
          co_return failed(run, why);
        } else if (r.state == UpdateState::gone) {
          // A BMC that restarted after updating itself may forget its tasks: the firmware
          // inventory decides.
          run.end(follow, StepState::succeeded,
                  "the BMC no longer knows its task " + u.monitor +
                      " (a BMC restarting after an update forgets them); the firmware inventory "
                      "decides");
          break;
        } else {
          last_seen = without_signature(progress_text(r), url);
          if (r.percent != last_percent) {
            last_percent = r.percent;
            run.at(follow).detail = last_seen;
            if (!co_await run.save()) co_return std::nullopt;
          }
        }
        if (SystemClock::now() >= deadline) {
          const std::string why = "the BMC's update task did not finish within " +
                                  std::to_string(u.timeout_s) + " s; last seen: " + last_seen;
          run.end(follow, StepState::failed, why);
          co_return failed(run, why);
        }
        if (!co_await run.pause(interval))
          co_return run.interruption("the firmware update (the BMC carries its task on)");
      }
    }
    if (!co_await run.save()) co_return std::nullopt;
  }
  u.awaits_reset = flag_in(run.at(follow).data, "awaits_reset");

  // 4. A reset when the new firmware waits for one.
  const std::size_t activate = run.step("activate");
  if (!run.done(activate)) {
    if (!u.awaits_reset) {
      run.end(activate, StepState::skipped, "the new firmware is active without a reset");
    } else if (!u.reset_allowed) {
      run.end(activate, StepState::skipped,
              "left staged as asked (\"reset\": false): the new firmware is active after the "
              "node's next reset");
      co_return succeeded(u.result(false, true));
    } else {
      bool send = true;
      if (run.at(activate).state == StepState::sending) {
        const TargetInspection seen = co_await target.inspect();
        const auto now = seen.error ? std::nullopt : version_of(seen.firmware, u.component);
        if (now && *now == u.version) {
          run.at(activate).in_doubt =
              "this instance resumed the task while the reset was being sent; " + u.component +
              " already reports " + u.version + ", so the reset happened: not sent again";
          run.end(activate, StepState::succeeded, "reset (the new version shows)");
          send = false;
        } else {
          run.at(activate).in_doubt =
              "this instance resumed the task while the reset was being sent; " + u.component +
              " does not report " + u.version + " yet (" +
              (seen.error ? error_text(*seen.error) : "it reports " + now.value_or("nothing")) +
              "), so it was reset again (a second reset of a node being updated loses nothing)";
        }
      }
      if (send) {
        if (run.interrupted()) co_return run.interruption("the firmware update");
        const TargetReading before = co_await target.read();
        if (!before.error && before.power == PowerState::off) {
          run.end(activate, StepState::skipped,
                  "the node is off: the new firmware is active when it next starts");
          co_return succeeded(u.result(false, true));
        }
        run.begin(activate, StepState::sending,
                  "sending power reset: the new firmware waits for it");
        if (!co_await run.save()) co_return std::nullopt;
        auto resetting = target.power(PowerAction::reset);  // GCC 12: a local
        const ActionReport report = co_await std::move(resetting);
        if (report.error) {
          const std::string why = error_text(*report.error);
          run.end(activate, StepState::failed, why);
          co_return failed(run,
                           "the new firmware is staged, but the BMC refused the reset: " + why);
        }
        run.end(activate, StepState::succeeded,
                "power reset" + (report.detail.empty() ? "" : " (" + report.detail + ")"));
      }
    }
    if (!co_await run.save()) co_return std::nullopt;
  }
  u.reset_sent = run.at(activate).state == StepState::succeeded;

  // 5. The new version, read back (a System coming out of a reset may show it late).
  const std::size_t verify = run.step("verify");
  run.begin(verify, StepState::running, "reading the firmware inventory");
  if (!co_await run.save()) co_return std::nullopt;
  const auto deadline = deadline_of(run.at(verify), std::min(u.timeout_s, 900));
  for (;;) {
    const TargetInspection seen = co_await target.inspect();
    std::string last_seen;
    if (seen.error) {
      last_seen = "the inventory could not be read (" + error_text(*seen.error) + ")";
    } else if (const auto now = version_of(seen.firmware, u.component); now && *now == u.version) {
      run.end(verify, StepState::succeeded,
              u.component + " is now at " + u.version + " (was " + u.from + ")");
      co_return succeeded(u.result(true, false));
    } else {
      last_seen = u.component + " reports " + now.value_or("nothing");
    }
    if (SystemClock::now() >= deadline) {
      const std::string why = "the BMC reported the update done, but after " +
                              std::to_string(std::min(u.timeout_s, 900)) + " s " + last_seen +
                              ", not " + u.version;
      run.end(verify, StepState::failed, why);
      co_return failed(run, why);
    }
    run.at(verify).detail = "waiting for " + u.version + ": " + last_seen;
    if (!co_await run.save()) co_return std::nullopt;
    if (!co_await run.pause(interval)) co_return run.interruption("the firmware update");
  }
}

}  // namespace ironhold::tasks
