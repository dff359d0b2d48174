#include "sim/redfish/installer.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <optional>
#include <sstream>

#include "inventory/crypto/primitives.hpp"
#include "inventory/crypto/sha256_stream.hpp"
#include "inventory/util/time.hpp"
#include "sim/http_fetch.hpp"

namespace ironhold::sim::redfish {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using nlohmann::json;
using tcp = asio::ip::tcp;

namespace {

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

std::string now_text() {
  return format_rfc3339(std::chrono::system_clock::now());
}

}  // namespace

std::map<std::string, std::string> ipxe_settings(const std::string& script) {
  std::map<std::string, std::string> out;
  std::istringstream lines(script);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::istringstream words(line);
    std::string command, name, value;
    if (!(words >> command >> name) || command != "set") continue;
    std::getline(words >> std::ws, value);
    out[name] = value;
  }
  return out;
}

Installer::Installer(asio::io_context& io, InstallerOptions options)
    : io_(io), options_(std::move(options)) {}

void Installer::boot(NetworkBoot boot) {
  {
    std::lock_guard lock(mutex_);
    ++records_[boot.bmc].boots;
  }
  // Posted, never run inline: the caller holds the BMC's lock.
  asio::post(io_, [this, boot = std::move(boot)]() mutable {
    asio::co_spawn(io_, run(std::move(boot)), asio::detached);
  });
}

json Installer::describe(unsigned bmc) const {
  std::lock_guard lock(mutex_);
  const auto it = records_.find(bmc);
  if (it == records_.end()) return {{"boots", 0}, {"callbacks", 0}, {"last", nullptr}};
  return {
      {"boots", it->second.boots}, {"callbacks", it->second.callbacks}, {"last", it->second.last}};
}

void Installer::record(unsigned bmc, json outcome, bool called_back) {
  std::lock_guard lock(mutex_);
  Record& r = records_[bmc];
  if (called_back) ++r.callbacks;
  outcome["at"] = now_text();
  r.last = std::move(outcome);
}

namespace {

// "http://host:port" of a URL ("" when it is not one).
std::string origin_of(const std::string& url) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) return {};
  const auto path = url.find('/', scheme + 3);
  return url.substr(0, path);
}

}  // namespace

asio::awaitable<void> Installer::run(NetworkBoot boot) {
  asio::steady_timer timer(io_);
  timer.expires_after(boot.powering_on);
  boost::system::error_code ec;
  co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  if (!boot.media_url.empty()) {
    auto installing = run_from_media(std::move(boot));  // GCC 12: not inside the co_await
    co_await std::move(installing);
    co_return;
  }
  const std::string mac = boot.macs.empty() ? std::string() : boot.macs.front();
  json outcome = {{"system", boot.system}, {"mac", mac}};
  if (options_.pxe_url.empty() || mac.empty()) {
    outcome["outcome"] = options_.pxe_url.empty() ? "no PXE server configured: booted from disk"
                                                  : "no NIC to boot from: booted from disk";
    record(boot.bmc, std::move(outcome), false);
    co_return;
  }
  const std::string script_url = replace_all(options_.pxe_url, "${net0/mac}", mac);
  auto fetching = http_fetch(script_url, http::verb::get, {});  // GCC 12: not inside the co_await
  const FetchResult script = co_await std::move(fetching);
  outcome["script_status"] = script.status;
  if (script.status != 200 || script.body.rfind("#!ipxe", 0) != 0) {
    outcome["outcome"] = "no iPXE script (" +
                         (script.status ? "HTTP " + std::to_string(script.status) : script.error) +
                         "): booted from disk";
    record(boot.bmc, std::move(outcome), false);
    co_return;
  }
  const auto settings = ipxe_settings(script.body);
  const auto callback = settings.find("ironhold_callback");
  const auto token = settings.find("ironhold_token");
  if (callback == settings.end() || token == settings.end()) {
    outcome["outcome"] = "the iPXE script sets no ironhold_callback / ironhold_token";
    record(boot.bmc, std::move(outcome), false);
    co_return;
  }
  auto calling =
      install_and_call_back(std::move(boot), callback->second, token->second, std::move(outcome));
  co_await std::move(calling);
}

asio::awaitable<void> Installer::install_and_call_back(NetworkBoot boot, std::string callback,
                                                       std::string token, json outcome) {
  asio::steady_timer timer(io_);
  boost::system::error_code ec;
  timer.expires_after(options_.install_time);
  co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  if (boot.faults.install_hangs) {
    outcome["outcome"] = "the install hung (fault install_hangs): no call-back";
    record(boot.bmc, std::move(outcome), false);
    co_return;
  }
  const bool ok = !boot.faults.install_fails;
  const json report = {
      {"token", token},
      {"status", ok ? "succeeded" : "failed"},
      {"message", ok ? "installed by the simulated installer"
                     : "the simulated installer failed (fault install_fails): no disk found"},
      {"installer", "ironhold-sim"}};
  // As installers' call-backs do (curl --retry): a service that is restarting, or a moment
  // unreachable, is asked again, for a minute at most.
  FetchResult answer;
  int attempts = 0;
  while (attempts < kCallbackAttempts) {
    ++attempts;
    auto calling = http_fetch(callback, http::verb::post, report.dump());
    answer = co_await std::move(calling);
    if (answer.status != 0 && answer.status < 500) break;
    timer.expires_after(std::chrono::seconds(1));
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  outcome["callback_attempts"] = attempts;
  outcome["callback_status"] = answer.status;
  outcome["outcome"] =
      answer.status == 200
          ? std::string(ok ? "installed; call-back accepted" : "install failed; call-back accepted")
          : "call-back refused (" +
                (answer.status ? "HTTP " + std::to_string(answer.status) : answer.error) + ")";
  record(boot.bmc, std::move(outcome), answer.status == 200);
}

// A boot from the virtual CD: the firmware reads the image's first blocks (the volume
// descriptors sit at 32 KiB) with a ranged GET, as BMCs read a mounted ISO; the installer on it
// asks the service that served it for its settings by MAC, installs, and calls back.
asio::awaitable<void> Installer::run_from_media(NetworkBoot boot) {
  const std::string mac = boot.macs.empty() ? std::string() : boot.macs.front();
  json outcome = {{"system", boot.system},
                  {"mac", mac},
                  {"media", boot.media_url.substr(0, boot.media_url.find('?'))}};
  std::string range = "bytes=0-" + std::to_string(kMediaBytesRead - 1);
  auto reading = http_fetch(boot.media_url, http::verb::get, {}, kMediaBytesRead, range);
  const FetchResult media = co_await std::move(reading);
  outcome["media_status"] = media.status;
  if (media.status != 200 && media.status != 206) {
    outcome["outcome"] = "the virtual CD could not be read (" +
                         (media.status ? "HTTP " + std::to_string(media.status) : media.error) +
                         "): booted from disk";
    record(boot.bmc, std::move(outcome), false);
    co_return;
  }
  crypto::Sha256Stream hash;
  hash.update(media.body);
  outcome["media_bytes_read"] = media.body.size();
  outcome["media_sha256_read"] = crypto::to_hex(hash.finish());
  outcome["media_content_range"] = media.content_range;
  if (!mac.empty()) {
    const std::string config_url =
        origin_of(boot.media_url) + "/api/v1/provisioning/config?mac=" + mac;
    auto asking = http_fetch(config_url, http::verb::get, {});  // GCC 12: not in the co_await
    const FetchResult config = co_await std::move(asking);
    outcome["config_status"] = config.status;
    const json settings = json::parse(config.body, nullptr, false);
    if (config.status == 200 && settings.is_object() && settings.contains("callback") &&
        settings.contains("token")) {
      NetworkBoot rest = boot;
      auto calling =
          install_and_call_back(std::move(rest), settings["callback"].get<std::string>(),
                                settings["token"].get<std::string>(), std::move(outcome));
      co_await std::move(calling);
      co_return;
    }
  }
  outcome["outcome"] = "the installer on the CD found no settings for MAC " + mac +
                       ": it stopped without installing";
  record(boot.bmc, std::move(outcome), false);
}

}  // namespace ironhold::sim::redfish
