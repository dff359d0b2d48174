// The reprovision task of an owned server: open a provisioning session (which the node's
// installer finds by MAC address), set a one-time boot, restart the node, and wait for the
// installer's call-back until the session expires. Over PXE, DHCP and TFTP stay with the site:
// they point the node's PXE ROM at Ironhold's iPXE script (docs/provisioning.md). Over virtual
// media ("via": "virtual-media"), the BMC first mounts a boot image this service keeps, from a
// signed URL that lives as long as the session, the boot is one-time from CD, and the image is
// ejected once the task has ended (not when it is handed to another instance, which goes on with
// it mounted).
//
// Exactly once: the boot override is harmless to send twice. The restart is recorded as
// "sending" first; a resumed task that finds it so asks the session whether the installer has
// fetched its script since, and only restarts again when there is no sign the first restart
// happened (restarting a node that is being reinstalled loses nothing).
#include <algorithm>
#include <variant>

#include "inventory/error.hpp"
#include "inventory/tasks/steps.hpp"
#include "inventory/util/on_pool.hpp"
#include "inventory/util/time.hpp"

namespace ironhold::tasks {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

// A store call's result on the pool, with its failure as text (so that no co_await sits in a try
// block, which GCC 12 mishandles).
using SessionOrError = std::variant<db::ProvisioningSession, std::string>;

template <class Fn>
SessionOrError session_call(Fn fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
}

struct OpenSession {
  db::ProvisioningStore* store;
  std::string task_id, node_id, image;
  std::optional<std::string> mac;
  std::chrono::seconds lifetime;
  SessionOrError operator()() const {
    return session_call([&] { return store->open(task_id, node_id, image, mac, lifetime); });
  }
};

struct FindSession {
  db::ProvisioningStore* store;
  std::string task_id;
  SessionOrError operator()() const {
    return session_call([&]() -> db::ProvisioningSession {
      auto found = store->find(task_id);
      if (!found) throw Error(ErrorKind::internal, "the provisioning session is gone");
      return std::move(*found);
    });
  }
};

struct CloseSession {
  db::ProvisioningStore* store;
  std::string task_id, why;
  bool operator()() const {
    try {
      store->close(task_id, why);
      return true;
    } catch (const std::exception&) {
      return false;  // it expires by itself
    }
  }
};

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// Fails the task and ends its session, so that the token is refused from then on.
asio::awaitable<std::optional<TaskOutcome>> give_up(TaskRun& run, PxeSessions pxe,
                                                    std::string why) {
  CloseSession closing{&pxe.store, run.task().id, why};
  co_await on_pool(pxe.pool, closing);
  co_return failed(run, std::move(why));
}

// The task was interrupted: cancelled (the session ends too), or handed back (it stays open for
// whichever instance resumes the task).
asio::awaitable<std::optional<TaskOutcome>> stop_here(TaskRun& run, PxeSessions pxe,
                                                      std::string sent) {
  auto out = run.interruption(sent);
  if (out) {
    CloseSession closing{&pxe.store, run.task().id, "the task was cancelled"};
    co_await on_pool(pxe.pool, closing);
  }
  co_return out;
}

// What the task does up to its outcome, before the virtual media (if any) is ejected.
asio::awaitable<std::optional<TaskOutcome>> run_steps(TaskRun& run, ActionTarget& target,
                                                      PxeSessions pxe) {
  const json& p = run.parameters();
  const bool media = p.value("via", std::string("pxe")) == "virtual-media";
  // What the installer fetches from this service with its MAC: the iPXE script, or (booted from
  // the CD) its settings.
  const std::string fetch = media ? "its settings" : "its iPXE script";
  const int timeout_s = p.value("timeout_s", 3600);
  const std::string image = p.value("image", std::string());
  std::optional<std::string> mac;
  if (p.contains("mac") && p["mac"].is_string()) mac = p["mac"].get<std::string>();
  const std::string task_id = run.task().id;
  const std::string node_id = run.task().node_id.value_or("");

  // 1. The session the installer will find, valid as long as the task waits.
  const std::size_t prepare = run.step("prepare");
  OpenSession opening{&pxe.store, task_id, node_id, image, mac, std::chrono::seconds(timeout_s)};
  const SessionOrError opened = co_await on_pool(pxe.pool, opening);
  if (const auto* why = std::get_if<std::string>(&opened)) {
    run.end(prepare, StepState::failed, *why);
    co_return failed(run, "could not prepare the reprovisioning: " + *why);
  }
  const db::ProvisioningSession& session = std::get<db::ProvisioningSession>(opened);
  const std::string image_name = p.value("image_name", image);
  if (!run.done(prepare)) {
    run.end(prepare, StepState::succeeded,
            "the installer of " + image_name + " is awaited on MAC " + joined(session.macs) +
                " until " + session.expires_at);
    if (!co_await run.save()) co_return std::nullopt;
  }

  // 1b. The boot image mounted as the virtual CD, from a URL valid a little longer than the
  // session (the installer may read the CD until it is done); every instance computes the same.
  if (media) {
    const std::size_t mount = run.step("media");
    const auto until = parse_rfc3339(session.expires_at);
    std::string url;
    if (pxe.downloads && until)
      url =
          pxe.downloads->url_of(boot_image_content_path(image), *until + std::chrono::minutes(15));
    if (url.empty()) {
      run.end(mount, StepState::failed, "no URL to mount");
      auto giving_up =
          give_up(run, pxe,
                  "this server has no --advertise-url: the BMC could not download the boot image");
      co_return co_await std::move(giving_up);
    }
    if (!run.done(mount)) {
      if (run.interrupted()) {
        auto stopping = stop_here(run, pxe, "");
        co_return co_await std::move(stopping);
      }
      if (run.at(mount).state == StepState::sending)
        run.at(mount).in_doubt =
            "this instance resumed the task while the boot image was being mounted; mounting the "
            "same image again is harmless (a BMC that has it says so), so it was sent again";
      run.begin(mount, StepState::sending,
                "mounting boot image " + image_name + " as the virtual CD");
      if (!co_await run.save()) co_return std::nullopt;
      auto mounting = target.insert_virtual_media(url);  // not inside the co_await (GCC 12)
      const ActionReport report = co_await std::move(mounting);
      if (report.error) {
        const std::string why = without_signature(error_text(*report.error), url);
        run.end(mount, StepState::failed, why);
        auto giving_up = give_up(run, pxe, "the BMC could not mount the boot image: " + why);
        co_return co_await std::move(giving_up);
      }
      run.end(mount, StepState::succeeded, without_signature(report.detail, url));
      if (!co_await run.save()) co_return std::nullopt;
    }
  }

  // 2. One-time boot from the network or the virtual CD (sending it twice is harmless).
  const BootDevice device = media ? BootDevice::cd : BootDevice::pxe;
  const std::string device_name(to_string(device));
  const std::size_t boot = run.step("boot");
  if (!run.done(boot)) {
    if (run.interrupted()) {
      auto stopping = stop_here(run, pxe, "");
      co_return co_await std::move(stopping);
    }
    if (run.at(boot).state == StepState::sending)
      run.at(boot).in_doubt =
          "this instance resumed the task while the boot override was being sent; setting it "
          "twice is harmless, so it was sent again";
    run.begin(boot, StepState::sending, "sending boot device " + device_name + " (next boot only)");
    if (!co_await run.save()) co_return std::nullopt;
    BootRequest request;
    request.device = device;
    request.persistent = false;
    auto setting = target.set_boot(request);  // not inside the co_await (GCC 12)
    const ActionReport report = co_await std::move(setting);
    if (report.error) {
      const std::string why = error_text(*report.error);
      run.end(boot, StepState::failed, why);
      auto giving_up =
          give_up(run, pxe, "the BMC refused the one-time " + device_name + " boot: " + why);
      co_return co_await std::move(giving_up);
    }
    run.end(boot, StepState::succeeded,
            report.detail.empty() ? "boot device " + device_name + " for the next boot"
                                  : report.detail);
    if (!co_await run.save()) co_return std::nullopt;
  }

  // 3. Restart the node into its installer: power on when it is off, else a power cycle.
  const std::size_t restart = run.step("restart");
  if (!run.done(restart)) {
    bool send = true;
    if (run.at(restart).state == StepState::sending) {
      FindSession finding{&pxe.store, task_id};
      const SessionOrError now = co_await on_pool(pxe.pool, finding);
      const auto* seen = std::get_if<db::ProvisioningSession>(&now);
      if (seen && seen->script_fetches > 0) {
        run.at(restart).in_doubt =
            "this instance resumed the task while the restart was being sent; the installer has "
            "fetched " +
            fetch + " since (" + seen->fetched_by.value_or("") +
            "), so the node did restart: not sent again";
        run.end(restart, StepState::succeeded,
                "restarted (the installer has fetched " + fetch + ")");
        send = false;
      } else {
        run.at(restart).in_doubt =
            "this instance resumed the task while the restart was being sent; no installer has "
            "fetched " +
            fetch +
            " since, so it was sent again (restarting a node that is being reinstalled loses "
            "nothing)";
      }
    }
    if (send) {
      if (run.interrupted()) {
        auto stopping = stop_here(run, pxe, "the boot override");
        co_return co_await std::move(stopping);
      }
      const TargetReading before = co_await target.read();
      const PowerAction action =
          !before.error && before.power == PowerState::off ? PowerAction::on : PowerAction::cycle;
      run.begin(restart, StepState::sending,
                std::string("sending power ") + std::string(to_string(action)));
      if (!co_await run.save()) co_return std::nullopt;
      auto restarting = target.power(action);  // not inside the co_await (GCC 12)
      const ActionReport report = co_await std::move(restarting);
      if (report.error) {
        const std::string why = error_text(*report.error);
        run.end(restart, StepState::failed, why);
        auto giving_up = give_up(run, pxe, "the BMC refused to restart the node: " + why);
        co_return co_await std::move(giving_up);
      }
      run.end(restart, StepState::succeeded,
              "power " + std::string(to_string(action)) +
                  (report.detail.empty() ? "" : " (" + report.detail + ")"));
    }
    if (!co_await run.save()) co_return std::nullopt;
  }

  // 4. The installer's call-back, until the session expires.
  const std::size_t install = run.step("install");
  run.begin(install, StepState::running, "waiting for the installer to fetch " + fetch);
  if (!co_await run.save()) co_return std::nullopt;
  int fetches_seen = -1;
  for (;;) {
    FindSession finding{&pxe.store, task_id};
    const SessionOrError now = co_await on_pool(pxe.pool, finding);
    if (const auto* s = std::get_if<db::ProvisioningSession>(&now)) {
      if (s->state == "succeeded") {
        run.end(install, StepState::succeeded,
                "the installer reported success" +
                    (s->message && !s->message->empty() ? ": " + *s->message : std::string()));
        TaskOutcome out;
        out.result = {{"image", s->image},
                      {"via", media ? "virtual-media" : "pxe"},
                      {"booted_by", s->fetched_by.value_or("")},
                      {"installer_message", s->message.value_or("")},
                      {"called_back_at", s->called_back_at.value_or("")}};
        co_return out;
      }
      if (s->state == "failed") {
        const std::string why =
            "the installer reported failure" +
            (s->message && !s->message->empty() ? ": " + *s->message : std::string());
        run.end(install, StepState::failed, why);
        co_return failed(run, why);
      }
      if (s->state == "closed") {
        const std::string why = "the provisioning session was closed: " + s->message.value_or("");
        run.end(install, StepState::failed, why);
        co_return failed(run, why);
      }
      if (s->expired) {
        const std::string why =
            "no call-back from the installer within " + std::to_string(timeout_s) + " s; " +
            (s->script_fetches > 0
                 ? "it fetched " + fetch + " (" + s->fetched_by.value_or("") + ") at " +
                       s->script_fetched_at.value_or("") + " and never called back"
             : media ? "no installer asked for its settings with MAC " + joined(s->macs) +
                           ": check that the boot image's installer calls "
                           "/api/v1/provisioning/config and that the node booted from the CD"
                     : std::string("no iPXE script was fetched for MAC ") + joined(s->macs) +
                           ": check that DHCP points the node's PXE boot at Ironhold");
        run.end(install, StepState::failed, why);
        auto giving_up = give_up(run, pxe, why);
        co_return co_await std::move(giving_up);
      }
      if (s->script_fetches != fetches_seen) {
        fetches_seen = s->script_fetches;
        if (fetches_seen > 0) {
          run.at(install).detail =
              "the installer fetched " + fetch + " (" + s->fetched_by.value_or("") + ") at " +
              s->script_fetched_at.value_or("") + "; waiting for its call-back";
          if (!co_await run.save()) co_return std::nullopt;
        }
      }
    }
    // A database that does not answer for a moment: keep waiting; the session's expiry decides.
    if (!co_await run.pause(run.verify_interval())) {
      auto stopping = stop_here(run, pxe, "the boot override and the restart");
      co_return co_await std::move(stopping);
    }
  }
}

// Ejects the boot image once the task has its outcome; an eject the BMC refuses is reported on
// its step and in the result, but does not undo an install that succeeded.
asio::awaitable<void> eject_media(TaskRun& run, ActionTarget& target, TaskOutcome& outcome) {
  const auto mounted = std::find_if(run.steps().begin(), run.steps().end(), [](const TaskStep& s) {
    return s.name == "media" && s.state != StepState::pending;
  });
  if (mounted == run.steps().end()) co_return;
  const std::size_t eject = run.step("eject");
  run.begin(eject, StepState::running, "ejecting the boot image");
  auto ejecting = target.eject_virtual_media();  // not inside the co_await (GCC 12)
  const ActionReport report = co_await std::move(ejecting);
  if (report.error) {
    const std::string why = error_text(*report.error);
    run.end(eject, StepState::failed, why);
    if (outcome.result.is_object()) outcome.result["eject_error"] = why;
  } else {
    run.end(eject, StepState::succeeded, report.detail);
  }
}

}  // namespace

asio::awaitable<std::optional<TaskOutcome>> run_pxe_reprovision_task(TaskRun& run,
                                                                     ActionTarget& target,
                                                                     PxeSessions pxe) {
  auto stepping = run_steps(run, target, pxe);  // not inside the co_await (GCC 12)
  std::optional<TaskOutcome> outcome = co_await std::move(stepping);
  // Handed back unfinished: whichever instance resumes the task needs the image still mounted.
  if (!outcome || run.parameters().value("via", std::string("pxe")) != "virtual-media")
    co_return outcome;
  co_await eject_media(run, target, *outcome);
  co_return outcome;
}

}  // namespace ironhold::tasks
