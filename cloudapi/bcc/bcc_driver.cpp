#include "cloudapi/bcc/bcc_driver.hpp"

#include <set>

#include "cloudapi/bcc/admin_password.hpp"
#include "inventory/error.hpp"
#include "inventory/util/log.hpp"

namespace ironhold::cloudapi::bcc {
namespace {

namespace asio = boost::asio;
using nlohmann::json;

constexpr std::string_view kInstancePath = "/v2/instance";

DriverError bad_response(std::string message) {
  return DriverError{DriverErrorCode::bad_response, std::move(message)};
}

struct PageOutcome {
  std::optional<BccListPage> page;
  std::optional<DriverError> error;
};

PageOutcome read_page(const std::string& body) {
  try {
    return {parse_list_instances(body), std::nullopt};
  } catch (const Error& e) {
    return {std::nullopt, bad_response(e.what())};
  }
}

struct InstancesOutcome {
  std::vector<CloudInstance> instances;
  std::optional<DriverError> error;
};

// All or nothing: a listing with an instance left out would read as that instance gone.
InstancesOutcome map_models(const std::vector<json>& models, const BccFlavorCatalog* flavors) {
  InstancesOutcome out;
  std::set<std::string> seen;
  try {
    for (const auto& model : models) {
      CloudInstance instance = instance_from_model(model, flavors);
      // An instance created during the listing may shift one onto two pages.
      if (!seen.insert(instance.provider_id).second) continue;
      out.instances.push_back(std::move(instance));
    }
  } catch (const Error& e) {
    out.instances.clear();
    out.error = bad_response(e.what());
  }
  return out;
}

struct DetailOutcome {
  std::optional<json> model;
  std::optional<DriverError> error;
};

DetailOutcome read_detail(const std::string& body) {
  try {
    return {parse_instance_detail(body), std::nullopt};
  } catch (const Error& e) {
    return {std::nullopt, bad_response(e.what())};
  }
}

struct OneInstance {
  std::optional<CloudInstance> instance;
  std::optional<DriverError> error;
};

OneInstance map_model(const json& model, const BccFlavorCatalog* flavors) {
  try {
    return {instance_from_model(model, flavors), std::nullopt};
  } catch (const Error& e) {
    return {std::nullopt, bad_response(e.what())};
  }
}

std::optional<BccFlavorCatalog> read_flavors(const std::string& body, std::string& why) {
  try {
    return parse_flavor_spec(body);
  } catch (const Error& e) {
    why = e.what();
    return std::nullopt;
  }
}

// Instance ids go into the path: one that would name another resource is refused.
std::optional<DriverError> check_id(const std::string& id) {
  if (id.empty() || id.find('/') != std::string::npos || id.find('?') != std::string::npos)
    return DriverError{DriverErrorCode::rejected, "BCC instance id \"" + id + "\" is not valid"};
  return std::nullopt;
}

bool instance_not_found(const BccCallResult& result) {
  return result.status == 404 || result.error_code == "NoSuchObject" ||
         result.error_code == "Instance.InstanceNotExist" ||
         result.error_code == "InstanceNotFound";
}

struct RebuildBody {
  std::string body;
  std::string detail;
  std::optional<DriverError> error;
};

RebuildBody rebuild_body(const CloudAccountTarget& account, const BccAccess& access,
                         const RebuildRequest& request) {
  RebuildBody out;
  if (!request.image || request.image->empty()) {
    out.error = DriverError{DriverErrorCode::unsupported,
                            "BCC rebuild needs an image id: BCC reinstalls the image it is told, "
                            "not the one the instance runs"};
    return out;
  }
  json body = {{"imageId", *request.image}};
  out.detail = "rebuild imageId=" + *request.image;
  if (request.admin_password) {
    try {
      body["adminPass"] =
          encrypt_admin_password(access.credentials.secret_key, *request.admin_password);
    } catch (const Error& e) {
      out.error = DriverError{DriverErrorCode::rejected, std::string("BCC rebuild: ") + e.what()};
      return out;
    }
    out.detail += " adminPass=(AES-128-ECB encrypted)";
  }
  const auto keypair = account.options.find("keypair_id");
  if (keypair != account.options.end() && keypair->is_string() &&
      !keypair->get_ref<const std::string&>().empty()) {
    body["keypairId"] = *keypair;
    out.detail += " keypairId=" + keypair->get<std::string>();
  }
  if (!body.contains("adminPass") && !body.contains("keypairId")) {
    out.error = DriverError{DriverErrorCode::unsupported,
                            "BCC rebuild needs an admin password or the account option keypair_id"};
    return out;
  }
  out.body = body.dump();
  return out;
}

}  // namespace

BccDriver::BccDriver(asio::any_io_executor executor, BccDriverOptions options)
    : options_(std::move(options)), client_(std::move(executor), options_.client) {}

asio::awaitable<InstanceListing> BccDriver::list_instances(const CloudAccountTarget& account) {
  InstanceListing listing;
  const BccAccessResult resolved = bcc_access(account);
  if (resolved.error) {
    listing.error = resolved.error;
    co_return listing;
  }
  const BccAccess access = *resolved.access;
  std::vector<json> models;
  std::set<std::string> markers_seen;
  std::string marker;
  for (std::size_t page_number = 0;; ++page_number) {
    if (page_number >= options_.max_pages) {
      listing.error = bad_response("BCC list instances: more than " +
                                   std::to_string(options_.max_pages) + " pages");
      co_return listing;
    }
    BccCall call;
    call.path = std::string(kInstancePath);
    if (!marker.empty()) call.params.emplace_back("marker", marker);
    call.params.emplace_back("maxKeys", std::to_string(options_.max_keys));
    call.what = "list instances";
    const BccCallResult result = co_await client_.call(access, call);
    if (result.error) {
      listing.error = result.error;
      co_return listing;
    }
    PageOutcome page = read_page(result.body);
    if (page.error) {
      listing.error = page.error;
      co_return listing;
    }
    for (auto& model : page.page->instances) models.push_back(std::move(model));
    if (!page.page->is_truncated) break;
    const std::string next = page.page->next_marker;
    if (next.empty() || !markers_seen.insert(next).second) {
      listing.error = bad_response("BCC list instances: isTruncated with nextMarker \"" + next +
                                   "\", which does not move on");
      co_return listing;
    }
    marker = next;
  }

  bool need_flavors = false;
  for (const auto& model : models) need_flavors = need_flavors || needs_flavor_facts(model);
  std::shared_ptr<const BccFlavorCatalog> catalog;
  if (need_flavors) catalog = co_await flavors(account, access);
  InstancesOutcome mapped = map_models(models, catalog.get());
  listing.error = std::move(mapped.error);
  listing.instances = std::move(mapped.instances);
  co_return listing;
}

asio::awaitable<InstanceReport> BccDriver::describe_instance(const CloudAccountTarget& account,
                                                             std::string provider_id) {
  InstanceReport report;
  const BccAccessResult resolved = bcc_access(account);
  report.error = resolved.error ? resolved.error : check_id(provider_id);
  if (report.error) co_return report;
  const BccAccess access = *resolved.access;
  BccCall call;
  call.path = std::string(kInstancePath) + "/" + provider_id;
  call.what = "describe " + provider_id;
  const BccCallResult result = co_await client_.call(access, call);
  if (result.error) {
    // An unknown id is an answer, not a failure: the instance is not there.
    if (!instance_not_found(result)) report.error = result.error;
    co_return report;
  }
  DetailOutcome detail = read_detail(result.body);
  if (detail.error) {
    report.error = detail.error;
    co_return report;
  }
  std::shared_ptr<const BccFlavorCatalog> catalog;
  if (needs_flavor_facts(*detail.model)) catalog = co_await flavors(account, access);
  OneInstance mapped = map_model(*detail.model, catalog.get());
  report.error = std::move(mapped.error);
  report.instance = std::move(mapped.instance);
  co_return report;
}

asio::awaitable<ActionReport> BccDriver::power(const CloudAccountTarget& account,
                                               std::string provider_id, PowerAction action_kind) {
  std::string verb;
  std::string body;
  switch (action_kind) {
    case PowerAction::on:
      verb = "start";
      break;
    case PowerAction::off:
      verb = "stop";
      body = R"({"forceStop":true,"stopWithNoCharge":false})";
      break;
    case PowerAction::soft_off:
      verb = "stop";
      body = R"({"forceStop":false,"stopWithNoCharge":false})";
      break;
    case PowerAction::cycle:
      verb = "reboot";
      body = R"({"forceStop":false})";
      break;
    case PowerAction::reset:
      verb = "reboot";
      body = R"({"forceStop":true})";
      break;
  }
  std::string detail = verb;
  if (!body.empty())
    detail += body.find("\"forceStop\":true") != std::string::npos ? " forceStop=true"
                                                                   : " forceStop=false";
  ActionReport report = co_await action(account, std::move(provider_id), verb, body, detail);
  co_return report;
}

asio::awaitable<ActionReport> BccDriver::rebuild(const CloudAccountTarget& account,
                                                 std::string provider_id, RebuildRequest request) {
  ActionReport report;
  const BccAccessResult resolved = bcc_access(account);
  if (resolved.error) {
    report.error = resolved.error;
    co_return report;
  }
  RebuildBody built = rebuild_body(account, *resolved.access, request);
  if (built.error) {
    report.error = built.error;
    report.detail = "rebuild (not sent)";
    co_return report;
  }
  const std::string verb = "rebuild";
  report = co_await action(account, std::move(provider_id), verb, built.body, built.detail);
  co_return report;
}

asio::awaitable<ActionReport> BccDriver::action(const CloudAccountTarget& account,
                                                std::string provider_id, std::string verb,
                                                std::string body, std::string detail) {
  ActionReport report;
  report.detail = "PUT " + std::string(kInstancePath) + "/" + provider_id + "?" + detail;
  const BccAccessResult resolved = bcc_access(account);
  report.error = resolved.error ? resolved.error : check_id(provider_id);
  if (report.error) co_return report;
  const BccAccess access = *resolved.access;
  BccCall call;
  call.method = "PUT";
  call.path = std::string(kInstancePath) + "/" + provider_id;
  call.params.emplace_back(verb, std::nullopt);
  call.body = std::move(body);
  // Not replayed after a lost answer: a second stop of a stopping instance is an error.
  call.idempotent = false;
  call.what = verb + " " + provider_id;
  const BccCallResult result = co_await client_.call(access, call);
  report.error = result.error;
  co_return report;
}

asio::awaitable<std::shared_ptr<const BccFlavorCatalog>> BccDriver::flavors(
    const CloudAccountTarget& account, BccAccess access) {
  {
    std::lock_guard lock(mutex_);
    const auto it = flavor_cache_.find(account.account_id);
    if (it != flavor_cache_.end()) co_return it->second;
  }
  BccCall call;
  call.path = std::string(kInstancePath) + "/flavorSpec";
  call.what = "list flavorSpec";
  const BccCallResult result = co_await client_.call(access, call);
  std::string why;
  std::optional<BccFlavorCatalog> parsed;
  if (result.error)
    why = result.error->message;
  else
    parsed = read_flavors(result.body, why);
  if (!parsed) {
    // GPU facts of such specs stay unknown this time; the instances are listed all the same.
    log::warn("BCC flavorSpec unavailable", {{"account", account.account_id}, {"error", why}});
    co_return nullptr;
  }
  auto catalog = std::make_shared<const BccFlavorCatalog>(std::move(*parsed));
  {
    std::lock_guard lock(mutex_);
    flavor_cache_[account.account_id] = catalog;
  }
  co_return catalog;
}

void BccDriver::forget(const std::string& account_id) {
  std::lock_guard lock(mutex_);
  flavor_cache_.erase(account_id);
}

asio::awaitable<void> BccDriver::shutdown() {
  // Nothing is held open between calls: no sessions or tokens to give back.
  co_return;
}

}  // namespace ironhold::cloudapi::bcc
