#include "sim/redfish/updater.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <sstream>

#include "inventory/util/time.hpp"
#include "sim/http_fetch.hpp"
#include "sim/redfish/bmc_state.hpp"

namespace ironhold::sim::redfish {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

// Tries of a download that reaches no server, one more second apart each time (15 s in all).
constexpr int kDownloadAttempts = 6;

std::string task_time_now() {
  return format_rfc3339(std::chrono::system_clock::now());
}

json message(const std::string& id, const std::string& text, const std::string& severity) {
  return {{"MessageId", id}, {"Message", text}, {"Severity", severity}};
}

// The Task's end in Exception, with the reason as its message.
json failed(const std::string& why) {
  return {{"TaskState", "Exception"},
          {"TaskStatus", "Critical"},
          {"EndTime", task_time_now()},
          {"Messages", json::array({message("Update.1.0.ApplyFailed", why, "Critical")})}};
}

}  // namespace

std::optional<ImageHeader> read_image_header(const std::string& image) {
  const std::string line = image.substr(0, std::min<std::size_t>(image.find('\n'), 512));
  std::istringstream words(line);
  std::string word;
  if (!(words >> word) || word != "IRONHOLD-FIRMWARE") return std::nullopt;
  ImageHeader header;
  while (words >> word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    if (key == "component") header.component = value;
    if (key == "version") header.version = value;
    if (key == "activate") header.activate_on_reset = value == "reset";
  }
  if (header.component.empty() || header.version.empty()) return std::nullopt;
  return header;
}

Updater::Updater(asio::io_context& io, UpdaterOptions options,
                 std::function<BmcState&(unsigned)> bmc)
    : io_(io), options_(options), bmc_(std::move(bmc)) {}

void Updater::start(FirmwareJob job) {
  // Posted, never run inline: the caller holds the BMC's lock, which the Task's updates take.
  asio::post(io_, [this, job = std::move(job)]() mutable {
    asio::co_spawn(io_, run(std::move(job)), asio::detached);
  });
}

asio::awaitable<std::optional<std::string>> Updater::download(const FirmwareJob& job) {
  BmcState& bmc = bmc_(job.bmc);
  bmc.update_task(job.task,
                  {{"TaskState", "Running"},
                   {"PercentComplete", 5},
                   {"Messages", json::array({message("Update.1.0.TransferringToComponent",
                                                     "Downloading " + job.image_uri, "OK")})}});
  // Like BMC firmware, a download that reaches no server (the service restarting) is tried again
  // a few times before the update fails; an HTTP error answer is final.
  FetchResult image;
  asio::steady_timer retry(io_);
  for (int attempt = 1;; ++attempt) {
    auto downloading =
        http_fetch(job.image_uri, boost::beast::http::verb::get, {}, max_image_bytes);
    image = co_await std::move(downloading);
    if (image.status != 0 || attempt == kDownloadAttempts) break;
    retry.expires_after(std::chrono::seconds(attempt));
    boost::system::error_code ignored;
    co_await retry.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
  if (image.status != 200) {
    bmc.update_task(job.task,
                    failed("the image could not be downloaded from " + job.image_uri + ": " +
                           (image.status ? "HTTP " + std::to_string(image.status) : image.error)));
    co_return std::nullopt;
  }
  co_return std::move(image.body);
}

asio::awaitable<void> Updater::run(FirmwareJob job) {
  BmcState& bmc = bmc_(job.bmc);
  std::string image;
  if (job.image) {
    image = std::move(*job.image);
    bmc.update_task(
        job.task,
        {{"TaskState", "Running"},
         {"PercentComplete", 5},
         {"Messages",
          json::array({message("Update.1.0.TransferringToComponent",
                               "Received " + std::to_string(image.size()) + " bytes", "OK")})}});
  } else {
    auto downloading = download(job);
    std::optional<std::string> downloaded = co_await std::move(downloading);
    if (!downloaded) co_return;
    image = std::move(*downloaded);
  }
  // A download's length was checked against Content-Length on the way; an empty image is none.
  const auto header = read_image_header(image);
  if (image.empty() || !header) {
    bmc.update_task(job.task, failed("the image (" + std::to_string(image.size()) +
                                     " bytes) is not one this firmware accepts"));
    co_return;
  }
  const bool on_reset = header->activate_on_reset || job.apply_on_reset;
  asio::steady_timer timer(io_);
  boost::system::error_code ec;
  for (const int percent : {25, 50, 75}) {
    timer.expires_after(options_.update_time / 4);
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    bmc.update_task(job.task, {{"PercentComplete", percent}});
    if (job.hangs && percent == 50) co_return;  // stays Running at 50 %, forever
  }
  timer.expires_after(options_.update_time / 4);
  co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  if (job.fails) {
    bmc.update_task(job.task, failed("the image was rejected: its signature does not verify (fault "
                                     "update_fails)"));
    co_return;
  }
  try {
    bmc.install_firmware(job.targets, header->component, header->version, on_reset);
  } catch (const std::exception& e) {
    bmc.update_task(job.task, failed(e.what()));
    co_return;
  }
  const json done = on_reset
                        ? message("Update.1.0.AwaitToActivate",
                                  header->component + " " + header->version +
                                      " is staged: it is activated by the next reset of the system",
                                  "OK")
                        : message("Update.1.0.UpdateSuccessful",
                                  header->component + " updated to " + header->version, "OK");
  bmc.update_task(job.task, {{"TaskState", "Completed"},
                             {"TaskStatus", "OK"},
                             {"PercentComplete", 100},
                             {"EndTime", task_time_now()},
                             {"Messages", json::array({done})}});
}

}  // namespace ironhold::sim::redfish
