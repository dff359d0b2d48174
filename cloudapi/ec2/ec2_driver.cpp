#include "cloudapi/ec2/ec2_driver.hpp"

#include <array>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstdio>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "cloudapi/common/account_pace.hpp"
#include "cloudapi/common/gpu.hpp"
#include "cloudapi/ec2/ec2_request.hpp"
#include "inventory/error.hpp"

namespace ironhold::cloudapi::ec2 {
namespace asio = boost::asio;

namespace {

// EC2 accepts up to 100 InstanceType.N values per DescribeInstanceTypes call.
constexpr std::size_t kTypesPerCall = 100;

DriverError bad_response(std::string message) {
  return {DriverErrorCode::bad_response, std::move(message)};
}

// Runs a parser over an answer; a parse failure becomes a bad_response error.
template <class Parse>
auto parse_answer(Parse parse, const std::string& body, std::optional<DriverError>& error)
    -> std::optional<decltype(parse(body))> {
  try {
    return parse(body);
  } catch (const Error& e) {
    error = bad_response(e.what());
  }
  return std::nullopt;
}

std::string random_token() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  std::array<char, 40> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "ironhold-%016llx%08llx",
                static_cast<unsigned long long>(engine()),
                static_cast<unsigned long long>(engine() & 0xFFFFFFFFULL));
  return buffer.data();
}

std::optional<std::string> string_member(const nlohmann::json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_string()) return std::nullopt;
  std::string value = object[key].get<std::string>();
  if (value.empty()) return std::nullopt;
  return value;
}

asio::awaitable<void> sleep_for(std::chrono::milliseconds delay) {
  asio::steady_timer timer(co_await asio::this_coro::executor, delay);
  co_await timer.async_wait(asio::use_awaitable);
}

std::string checks_detail(const InstanceStatus& status) {
  return "system status " + status.system.value_or("unknown") + ", instance status " +
         status.instance.value_or("unknown");
}

}  // namespace

AccountOrError ec2_account_of(const CloudAccountTarget& target) {
  AccountOrError out;
  const auto key = string_member(target.credentials, "access_key_id");
  const auto secret = string_member(target.credentials, "secret_access_key");
  if (!key || !secret) {
    out.error = DriverError{DriverErrorCode::auth_failed,
                            "the EC2 account's credentials need access_key_id and "
                            "secret_access_key"};
    return out;
  }
  if (target.region.empty()) {
    out.error = DriverError{DriverErrorCode::rejected, "the EC2 account has no region"};
    return out;
  }
  Ec2Account account;
  account.region = target.region;
  account.endpoint = target.endpoint && !target.endpoint->empty() ? *target.endpoint
                                                                  : default_endpoint(target.region);
  account.credentials.access_key_id = *key;
  account.credentials.secret_access_key = *secret;
  account.credentials.session_token = string_member(target.credentials, "session_token");
  // EC2 refills an account's bucket for most actions at 20 requests a second per region.
  account.pace = account_pace(target, 20);
  out.account = std::move(account);
  return out;
}

struct Ec2Driver::Listing {
  std::vector<CloudInstance> instances;
  std::map<std::string, InstanceTypeFacts> types;
  std::map<std::string, InstanceStatus> statuses;
};

Ec2Driver::Ec2Driver(asio::any_io_executor executor, Ec2DriverOptions options)
    : options_(std::move(options)) {
  bmc::http::BmcHttpClient::Options http_options;
  // The client retries (re-signing each attempt, and reading EC2's throttling codes), so the
  // transport must not.
  http_options.retry.max_attempts = 1;
  // One regional endpoint serves every account in the region: allow some calls side by side.
  http_options.per_host_limit = 8;
  http_options.transport.max_host_connections = 8;
  http_options.transport.shards = 4;
  http_ = std::make_unique<bmc::http::BmcHttpClient>(std::move(executor), http_options);
  Ec2Client::Options client_options = options_.client;
  if (client_options.ca_bundle_pem.empty() && !options_.ca_bundle_path.empty()) {
    std::ifstream in(options_.ca_bundle_path, std::ios::binary);
    std::ostringstream bundle;
    bundle << in.rdbuf();
    client_options.ca_bundle_pem = bundle.str();
  }
  client_ = std::make_unique<Ec2Client>(*http_, client_options, options_.uniform);
}

Ec2Driver::~Ec2Driver() = default;

asio::awaitable<std::optional<DriverError>> Ec2Driver::resolve_types(
    const CloudAccountTarget& target, const Ec2Account& account, Listing& listing) {
  std::vector<std::string> missing;
  {
    std::lock_guard lock(cache_mutex_);
    auto& cached = type_cache_[target.account_id];
    std::set<std::string> wanted;
    for (const auto& instance : listing.instances)
      if (instance.instance_type) wanted.insert(*instance.instance_type);
    for (const auto& type : wanted) {
      if (const auto it = cached.find(type); it != cached.end())
        listing.types[type] = it->second;
      else
        missing.push_back(type);
    }
  }
  std::optional<DriverError> error;
  for (std::size_t start = 0; start < missing.size() && !error; start += kTypesPerCall) {
    const std::vector<std::string> batch(
        missing.begin() + static_cast<std::ptrdiff_t>(start),
        missing.begin() +
            static_cast<std::ptrdiff_t>(std::min(missing.size(), start + kTypesPerCall)));
    std::optional<std::string> token;
    for (int page = 0; page < options_.max_pages; ++page) {
      Ec2Query query("DescribeInstanceTypes");
      query.add_list("InstanceType", batch);
      if (token) query.add("NextToken", *token);
      const Ec2CallResult result = co_await client_->call(account, query);
      if (result.error) {
        error = result.error;
        break;
      }
      const auto parsed = parse_answer(parse_describe_instance_types, result.body, error);
      if (!parsed) break;
      {
        std::lock_guard lock(cache_mutex_);
        auto& cached = type_cache_[target.account_id];
        for (const auto& facts : parsed->types) {
          cached[facts.instance_type] = facts;
          listing.types[facts.instance_type] = facts;
        }
      }
      token = parsed->next_token;
      if (!token) break;
    }
  }
  co_return error;
}

asio::awaitable<std::optional<DriverError>> Ec2Driver::read_statuses(
    const Ec2Account& account, const std::vector<std::string>& ids, Listing& listing) {
  std::optional<DriverError> error;
  std::optional<std::string> token;
  for (int page = 0; page < options_.max_pages; ++page) {
    Ec2Query query("DescribeInstanceStatus");
    query.add("IncludeAllInstances", "true");
    if (ids.empty()) query.add("MaxResults", "1000");
    query.add_list("InstanceId", ids);
    if (token) query.add("NextToken", *token);
    const Ec2CallResult result = co_await client_->call(account, query);
    if (result.error) {
      error = result.error;
      break;
    }
    const auto parsed = parse_answer(parse_describe_instance_status, result.body, error);
    if (!parsed) break;
    for (const auto& status : parsed->statuses) listing.statuses[status.instance_id] = status;
    token = parsed->next_token;
    if (!token) break;
  }
  co_return error;
}

void Ec2Driver::join(const std::string& /*account_id*/, Listing& listing) {
  for (auto& instance : listing.instances) {
    if (instance.instance_type) {
      const auto facts = listing.types.find(*instance.instance_type);
      if (facts != listing.types.end()) {
        if (facts->second.vcpus) instance.summary.cpu_count = *facts->second.vcpus;
        if (facts->second.memory_mib)
          instance.summary.memory_gib = static_cast<double>(*facts->second.memory_mib) / 1024.0;
        if (!facts->second.gpus.empty()) {
          const Ec2Gpu& gpu = facts->second.gpus.front();
          GpuFacts gpus;
          gpus.model = gpu_model_name(gpu.manufacturer, gpu.name);
          if (!gpu.manufacturer.empty()) gpus.manufacturer = gpu.manufacturer;
          for (const auto& g : facts->second.gpus)
            if (g.name == gpu.name && g.manufacturer == gpu.manufacturer) gpus.count += g.count;
          gpus.memory_mib = gpu.memory_mib;
          add_gpus(instance, gpus);
        }
      }
    }
    if (instance.gone) continue;
    const auto status = listing.statuses.find(instance.provider_id);
    if (status == listing.statuses.end()) continue;
    instance.health = status->second.health;
    if (instance.health != Health::ok && (status->second.system || status->second.instance))
      instance.status_detail = checks_detail(status->second);
  }
}

asio::awaitable<InstanceListing> Ec2Driver::list_instances(const CloudAccountTarget& target) {
  InstanceListing out;
  const AccountOrError resolved = ec2_account_of(target);
  if (resolved.error) {
    out.error = resolved.error;
    co_return out;
  }
  const Ec2Account& account = *resolved.account;
  Listing listing;
  std::optional<std::string> token;
  std::set<std::string> seen_tokens;
  for (int page = 0;; ++page) {
    if (page >= options_.max_pages) {
      out.error = bad_response("EC2 DescribeInstances: more than " +
                               std::to_string(options_.max_pages) + " pages");
      co_return out;
    }
    Ec2Query query("DescribeInstances");
    query.add("MaxResults", "1000");
    if (token) query.add("NextToken", *token);
    const Ec2CallResult result = co_await client_->call(account, query);
    if (result.error) {
      out.error = result.error;
      co_return out;
    }
    auto parsed = parse_answer(parse_describe_instances, result.body, out.error);
    if (!parsed) co_return out;
    for (auto& instance : parsed->instances) listing.instances.push_back(std::move(instance));
    token = parsed->next_token;
    if (!token) break;
    if (!seen_tokens.insert(*token).second) {
      out.error = bad_response("EC2 DescribeInstances: the NextToken " + *token + " came twice");
      co_return out;
    }
  }
  const auto types_error = co_await resolve_types(target, account, listing);
  if (types_error) {
    out.error = types_error;
    co_return out;
  }
  // Every instance's checks: one DescribeInstanceStatus listing, all pages.
  const std::vector<std::string> all_instances;
  const auto status_error = co_await read_statuses(account, all_instances, listing);
  if (status_error) {
    out.error = status_error;
    co_return out;
  }
  join(target.account_id, listing);
  out.instances = std::move(listing.instances);
  co_return out;
}

asio::awaitable<InstanceReport> Ec2Driver::describe_instance(const CloudAccountTarget& target,
                                                             std::string provider_id) {
  InstanceReport out;
  const AccountOrError resolved = ec2_account_of(target);
  if (resolved.error) {
    out.error = resolved.error;
    co_return out;
  }
  const Ec2Account& account = *resolved.account;
  Ec2Query query("DescribeInstances");
  query.add_list("InstanceId", {provider_id});
  const Ec2CallResult result = co_await client_->call(account, query);
  if (result.error) {
    // Not known to EC2 (never was, or terminated long ago): no instance, and no error.
    if (result.ec2_error && (result.ec2_error->code == "InvalidInstanceID.NotFound" ||
                             result.ec2_error->code == "InvalidInstanceID.Malformed"))
      co_return out;
    out.error = result.error;
    co_return out;
  }
  auto parsed = parse_answer(parse_describe_instances, result.body, out.error);
  if (!parsed) co_return out;
  Listing listing;
  for (auto& instance : parsed->instances)
    if (instance.provider_id == provider_id) listing.instances.push_back(std::move(instance));
  if (listing.instances.empty()) co_return out;
  // A terminated instance has no status checks left to read.
  std::vector<std::string> status_ids;
  if (!listing.instances.front().gone) status_ids.push_back(provider_id);
  const auto types_error = co_await resolve_types(target, account, listing);
  if (types_error) {
    out.error = types_error;
    co_return out;
  }
  std::optional<DriverError> status_error;
  if (!status_ids.empty()) status_error = co_await read_statuses(account, status_ids, listing);
  if (status_error) {
    out.error = status_error;
    co_return out;
  }
  join(target.account_id, listing);
  out.instance = std::move(listing.instances.front());
  co_return out;
}

asio::awaitable<ActionReport> Ec2Driver::power(const CloudAccountTarget& target,
                                               std::string provider_id, PowerAction action) {
  ActionReport out;
  const AccountOrError resolved = ec2_account_of(target);
  if (resolved.error) {
    out.error = resolved.error;
    co_return out;
  }
  std::string name;
  bool force = false;
  switch (action) {
    case PowerAction::on:
      name = "StartInstances";
      break;
    case PowerAction::off:
      name = "StopInstances";
      force = true;
      break;
    case PowerAction::soft_off:
      name = "StopInstances";
      break;
    case PowerAction::cycle:
    case PowerAction::reset:
      name = "RebootInstances";
      break;
  }
  Ec2Query query(name);
  query.add_list("InstanceId", {provider_id});
  if (force) query.add("Force", "true");
  out.detail = name + (force ? " Force=true" : "");
  if (action == PowerAction::reset)
    out.detail +=
        " (EC2 has no hard reset: it forces the reboot itself when the OS does not "
        "restart within a few minutes)";
  const Ec2CallResult result = co_await client_->call(*resolved.account, query);
  if (result.error) {
    out.error = result.error;
    co_return out;
  }
  if (name == "RebootInstances") {
    const auto accepted = parse_answer(parse_reboot, result.body, out.error);
    if (accepted && !*accepted)
      out.error = DriverError{DriverErrorCode::rejected, "EC2 RebootInstances returned false"};
  } else {
    const auto changes = parse_answer(parse_state_changes, result.body, out.error);
    if (changes) {
      for (const auto& change : *changes)
        if (change.instance_id == provider_id)
          out.detail += ": " + change.previous_state + " → " + change.current_state;
    }
  }
  co_return out;
}

asio::awaitable<ActionReport> Ec2Driver::rebuild(const CloudAccountTarget& target,
                                                 std::string provider_id, RebuildRequest request) {
  ActionReport out;
  const AccountOrError resolved = ec2_account_of(target);
  if (resolved.error) {
    out.error = resolved.error;
    co_return out;
  }
  const Ec2Account& account = *resolved.account;
  Ec2Query create("CreateReplaceRootVolumeTask");
  create.add("InstanceId", provider_id);
  if (request.image) create.add("ImageId", *request.image);
  // The same token on every retry of this call: EC2 then creates one task, not several.
  create.add("ClientToken", random_token());
  create.add("DeleteReplacedRootVolume", "true");
  out.detail = "CreateReplaceRootVolumeTask" +
               (request.image ? " ImageId=" + *request.image : std::string(" (launch image)")) +
               " DeleteReplacedRootVolume=true";
  if (request.admin_password) out.detail += "; the admin password is not used (EC2 sets none)";

  const Ec2CallResult created = co_await client_->call(account, create);
  if (created.error) {
    out.error = created.error;
    co_return out;
  }
  auto task = parse_answer(parse_create_replace_root_volume_task, created.body, out.error);
  if (!task) co_return out;
  out.detail += ": task " + task->task_id;

  const auto deadline = std::chrono::steady_clock::now() + options_.task_timeout;
  while (task->state != "succeeded") {
    if (task->state == "failed" || task->state == "failed-detached" || task->state == "failing") {
      out.error = DriverError{DriverErrorCode::rejected,
                              "EC2 replace-root-volume task " + task->task_id + " " + task->state};
      co_return out;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      out.error = DriverError{DriverErrorCode::timeout,
                              "EC2 replace-root-volume task " + task->task_id + " still " +
                                  task->state + " after the time allowed"};
      co_return out;
    }
    co_await sleep_for(options_.task_poll_interval);
    Ec2Query describe("DescribeReplaceRootVolumeTasks");
    describe.add_list("ReplaceRootVolumeTaskId", {task->task_id});
    const Ec2CallResult result = co_await client_->call(account, describe);
    if (result.error) {
      out.error = result.error;
      co_return out;
    }
    const auto page =
        parse_answer(parse_describe_replace_root_volume_tasks, result.body, out.error);
    if (!page) co_return out;
    const std::string id = task->task_id;
    task.reset();
    for (const auto& t : page->tasks)
      if (t.task_id == id) task = t;
    if (!task) {
      out.error = bad_response("EC2 DescribeReplaceRootVolumeTasks does not list task " + id);
      co_return out;
    }
  }
  out.detail += " succeeded";
  co_return out;
}

void Ec2Driver::forget(const std::string& account_id) {
  std::lock_guard lock(cache_mutex_);
  type_cache_.erase(account_id);
}

asio::awaitable<void> Ec2Driver::shutdown() {
  // Nothing is held between calls (no sessions, no tokens): what is in flight ends with the
  // transport.
  co_return;
}

}  // namespace ironhold::cloudapi::ec2
