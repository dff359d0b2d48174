#include "cloudapi/openstack/openstack_driver.hpp"

#include <set>

#include "cloudapi/common/uri_encode.hpp"
#include "inventory/error.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::cloudapi::openstack {

namespace asio = boost::asio;
using nlohmann::json;

namespace {

DriverError rejected(const std::string& what, long status, const std::string& body) {
  return DriverError{
      DriverErrorCode::rejected,
      what + ": " + nova_error_message(body).value_or("HTTP " + std::to_string(status))};
}

std::optional<json> parse_body(const std::string& body) {
  json doc = json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  return doc;
}

const json& gpu_aliases(const CloudAccountTarget& account) {
  static const json none = json::object();
  if (!account.options.is_object()) return none;
  const auto it = account.options.find("gpu_aliases");
  return it != account.options.end() && it->is_object() ? *it : none;
}

}  // namespace

OpenStackDriver::OpenStackDriver(asio::any_io_executor executor, OpenStackDriverOptions options)
    : options_(std::move(options)), client_(executor, options_.http), executor_(executor) {}

void OpenStackDriver::forget(const std::string& account_id) {
  std::lock_guard lock(mutex_);
  const auto it = accounts_.find(account_id);
  if (it == accounts_.end()) return;
  if (it->second.authenticating) {
    // A coroutine is authenticating: leave its flag, drop everything else.
    it->second.session.reset();
    it->second.flavors.clear();
    it->second.fingerprint.clear();
    return;
  }
  accounts_.erase(it);
}

asio::awaitable<void> OpenStackDriver::shutdown() {
  // Tokens expire on their own; nothing is held open besides kept-alive connections.
  std::lock_guard lock(mutex_);
  for (auto& [id, cache] : accounts_) cache.session.reset();
  co_return;
}

asio::awaitable<std::optional<Flavor>> OpenStackDriver::flavor_by_id(
    const CloudAccountTarget& account, const std::string& id) {
  {
    std::lock_guard lock(mutex_);
    AccountCache& cache = cache_locked(account);
    if (const auto it = cache.flavors.find(id); it != cache.flavors.end()) co_return it->second;
  }
  const std::string no_body;
  const std::string path = "/flavors/" + rfc3986_encode(id);
  NovaReply reply = co_await nova(account, "GET", path, no_body);
  if (reply.error || reply.status != 200) co_return std::nullopt;
  const auto doc = parse_body(reply.body);
  if (!doc || !doc->contains("flavor")) co_return std::nullopt;
  std::optional<Flavor> flavor = parse_flavor((*doc)["flavor"]);
  if (!flavor) co_return std::nullopt;
  // Before 2.61 a flavor does not carry its extra specs: ask for them (policy may refuse).
  if (!(*doc)["flavor"].contains("extra_specs")) {
    const std::string specs_path = path + "/os-extra_specs";
    NovaReply specs = co_await nova(account, "GET", specs_path, no_body);
    if (!specs.error && specs.status == 200) {
      if (const auto specs_doc = parse_body(specs.body)) {
        try {
          flavor->extra_specs = parse_extra_specs(*specs_doc);
        } catch (const Error& e) {
          log::warn("openstack: unreadable extra specs", {{"flavor", id}, {"error", e.what()}});
        }
      }
    }
  }
  {
    std::lock_guard lock(mutex_);
    cache_locked(account).flavors[id] = *flavor;
  }
  co_return flavor;
}

asio::awaitable<CloudInstance> OpenStackDriver::to_instance(const CloudAccountTarget& account,
                                                            const json& server) {
  std::optional<Flavor> flavor = embedded_flavor(server);
  if (!flavor) {
    if (const auto id = flavor_id(server)) flavor = co_await flavor_by_id(account, *id);
  }
  co_return server_to_instance(server, flavor, gpu_aliases(account));
}

asio::awaitable<InstanceListing> OpenStackDriver::list_instances(
    const CloudAccountTarget& account) {
  InstanceListing out;
  const SystemTime started = options_.now();
  const std::string no_body;
  std::optional<std::string> marker;
  std::set<std::string> seen_markers;
  bool complete = false;
  for (std::size_t page = 0; page < options_.max_pages; ++page) {
    const std::string path =
        "/servers/detail" + (marker ? "?marker=" + rfc3986_encode(*marker) : std::string());
    NovaReply reply = co_await nova(account, "GET", path, no_body);
    if (reply.error) {
      out.error = reply.error;
      co_return out;
    }
    if (reply.status != 200) {
      out.error = rejected("Nova GET " + path, reply.status, reply.body);
      co_return out;
    }
    const auto doc = parse_body(reply.body);
    std::optional<ServersPage> servers;
    std::string problem = "Nova's servers answer is not JSON";
    if (doc) {
      try {
        servers = parse_servers_page(*doc);
      } catch (const Error& e) {
        problem = e.what();
      }
    }
    if (!servers) {
      out.error = DriverError{DriverErrorCode::bad_response, problem};
      co_return out;
    }
    for (const auto& server : servers->servers) {
      if (!server.contains("id")) continue;
      CloudInstance instance = co_await to_instance(account, server);
      out.instances.push_back(std::move(instance));
    }
    // Nova links a next page after every full one, the last included (then it is empty).
    if (!servers->next_marker || servers->servers.empty()) {
      complete = true;
      break;
    }
    if (!seen_markers.insert(*servers->next_marker).second) {
      out.error = DriverError{DriverErrorCode::bad_response,
                              "Nova's servers pages loop (marker " + *servers->next_marker + ")"};
      co_return out;
    }
    marker = servers->next_marker;
  }
  if (!complete) {
    out.error = DriverError{DriverErrorCode::bad_response,
                            "more than " + std::to_string(options_.max_pages) +
                                " pages of servers; the listing is incomplete"};
    co_return out;
  }

  SystemTime since = started - options_.deleted_window;
  {
    std::lock_guard lock(mutex_);
    AccountCache& cache = cache_locked(account);
    if (cache.last_listing) since = *cache.last_listing - options_.refresh_margin;
  }
  co_await add_deleted(account, since, out);
  {
    std::lock_guard lock(mutex_);
    cache_locked(account).last_listing = started;
  }
  co_return out;
}

asio::awaitable<void> OpenStackDriver::add_deleted(const CloudAccountTarget& account,
                                                   SystemTime since, InstanceListing& listing) {
  std::set<std::string> listed;
  for (const auto& instance : listing.instances) listed.insert(instance.provider_id);
  const std::string since_text = utc_seconds(format_rfc3339(since)).value_or("");
  const std::string no_body;
  std::optional<std::string> marker;
  for (std::size_t page = 0; page < options_.max_pages; ++page) {
    std::string path = "/servers/detail?changes-since=" + rfc3986_encode(since_text);
    if (marker) path += "&marker=" + rfc3986_encode(*marker);
    NovaReply reply = co_await nova(account, "GET", path, no_body);
    // Best effort: a cloud whose policy refuses changes-since still gets its full listing.
    if (reply.error || reply.status != 200) co_return;
    const auto doc = parse_body(reply.body);
    if (!doc) co_return;
    std::optional<ServersPage> servers;
    try {
      servers = parse_servers_page(*doc);
    } catch (const Error&) {
    }
    if (!servers) co_return;
    for (const auto& server : servers->servers) {
      const auto status = server.contains("status") && server["status"].is_string()
                              ? server["status"].get<std::string>()
                              : std::string();
      if (status != "DELETED" && status != "SOFT_DELETED") continue;
      if (!server.contains("id") || !server["id"].is_string()) continue;
      if (listed.count(server["id"].get<std::string>())) continue;
      CloudInstance instance = co_await to_instance(account, server);
      listed.insert(instance.provider_id);
      listing.instances.push_back(std::move(instance));
    }
    if (!servers->next_marker || servers->servers.empty() || marker == servers->next_marker)
      co_return;
    marker = servers->next_marker;
  }
}

asio::awaitable<InstanceReport> OpenStackDriver::describe_instance(
    const CloudAccountTarget& account, std::string provider_id) {
  InstanceReport out;
  const std::string path = "/servers/" + rfc3986_encode(provider_id);
  const std::string no_body;
  NovaReply reply = co_await nova(account, "GET", path, no_body);
  if (reply.error) {
    out.error = reply.error;
    co_return out;
  }
  if (reply.status == 404) co_return out;  // deleted (or never existed): Nova does not know it
  if (reply.status != 200) {
    out.error = rejected("Nova GET " + path, reply.status, reply.body);
    co_return out;
  }
  const auto doc = parse_body(reply.body);
  if (!doc || !doc->contains("server") || !(*doc)["server"].is_object() ||
      !(*doc)["server"].contains("id")) {
    out.error = DriverError{DriverErrorCode::bad_response, "Nova's server answer has no server"};
    co_return out;
  }
  CloudInstance instance = co_await to_instance(account, (*doc)["server"]);
  out.instance = std::move(instance);
  co_return out;
}

asio::awaitable<ActionReport> OpenStackDriver::send_action(const CloudAccountTarget& account,
                                                           const std::string& provider_id,
                                                           const json& body,
                                                           const std::string& detail) {
  ActionReport out;
  out.detail = detail;
  const std::string path = "/servers/" + rfc3986_encode(provider_id) + "/action";
  const std::string text = body.dump();
  NovaReply reply = co_await nova(account, "POST", path, text);
  if (reply.error) {
    out.error = reply.error;
    co_return out;
  }
  if (reply.status != 202 && reply.status != 200 && reply.status != 204)
    out.error = rejected("Nova " + detail + " on server " + provider_id, reply.status, reply.body);
  co_return out;
}

asio::awaitable<ActionReport> OpenStackDriver::power(const CloudAccountTarget& account,
                                                     std::string provider_id, PowerAction action) {
  json body;
  std::string detail;
  switch (action) {
    case PowerAction::on:
      body = json{{"os-start", nullptr}};
      detail = "os-start";
      break;
    case PowerAction::off:
      // Nova has one stop: the guest gets its shutdown timeout, then is powered off.
      body = json{{"os-stop", nullptr}};
      detail = "os-stop (Nova has no separate hard stop)";
      break;
    case PowerAction::soft_off:
      body = json{{"os-stop", nullptr}};
      detail = "os-stop";
      break;
    case PowerAction::cycle:
      body = json{{"reboot", {{"type", "SOFT"}}}};
      detail = "reboot SOFT";
      break;
    case PowerAction::reset:
      body = json{{"reboot", {{"type", "HARD"}}}};
      detail = "reboot HARD";
      break;
  }
  ActionReport report = co_await send_action(account, provider_id, body, detail);
  co_return report;
}

asio::awaitable<ActionReport> OpenStackDriver::rebuild(const CloudAccountTarget& account,
                                                       std::string provider_id,
                                                       RebuildRequest request) {
  ActionReport out;
  std::string image = request.image.value_or("");
  if (image.empty()) {
    // Nova's rebuild needs an image: the one the server runs now.
    InstanceReport current = co_await describe_instance(account, provider_id);
    if (current.error) {
      out.error = current.error;
      out.detail = "rebuild";
      co_return out;
    }
    if (!current.instance) {
      out.error =
          DriverError{DriverErrorCode::rejected, "Nova does not know server " + provider_id};
      out.detail = "rebuild";
      co_return out;
    }
    if (!current.instance->image_id) {
      out.error = DriverError{
          DriverErrorCode::unsupported,
          "server " + provider_id + " boots from a volume: a rebuild needs an image id"};
      out.detail = "rebuild";
      co_return out;
    }
    image = *current.instance->image_id;
  }
  json args = {{"imageRef", image}};
  std::string detail = "rebuild imageRef=" + image;
  if (request.admin_password) {
    args["adminPass"] = *request.admin_password;
    detail += " with adminPass";
  }
  json body = {{"rebuild", std::move(args)}};
  ActionReport report = co_await send_action(account, provider_id, body, detail);
  co_return report;
}

}  // namespace ironhold::cloudapi::openstack
