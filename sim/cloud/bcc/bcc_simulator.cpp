#include "sim/cloud/bcc/bcc_simulator.hpp"

#include <charconv>
#include <cstdio>

#include "cloudapi/bcc/admin_password.hpp"
#include "sim/cloud/bcc/bcc_auth.hpp"
#include "sim/cloud/bcc/bcc_errors.hpp"

namespace ironhold::sim::cloud::bcc {
namespace {

using nlohmann::json;

constexpr std::string_view kInstances = "/v2/instance";
constexpr std::string_view kFlavorSpec = "/v2/instance/flavorSpec";
constexpr std::string_view kControl = "/_sim/";

ApiReply json_reply(unsigned status, const json& body, const std::string& request_id = {}) {
  ApiReply reply;
  reply.status = status;
  reply.content_type = "application/json;charset=UTF-8";
  if (!request_id.empty()) reply.headers.emplace_back("x-bce-request-id", request_id);
  reply.body = body.dump();
  return reply;
}

ApiReply control_error(unsigned status, const std::string& message) {
  return json_reply(status, json{{"error", message}});
}

using Params = std::vector<std::pair<std::string, std::optional<std::string>>>;

std::optional<std::string> param(const Params& params, std::string_view name) {
  for (const auto& [n, v] : params)
    if (n == name) return v.value_or("");
  return std::nullopt;
}

std::size_t max_keys_of(const Params& params) {
  const auto text = param(params, "maxKeys");
  if (!text || text->empty()) return 1000;
  std::size_t n = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), n);
  if (ec != std::errc() || end != text->data() + text->size() || n == 0 || n > 1000)
    throw BccApiError(faults::invalid_parameter("maxKeys must be from 1 to 1000."));
  return n;
}

// The JSON object body of an action; {} when empty.
json action_body(const ApiRequest& request) {
  if (request.body.empty()) return json::object();
  json body = json::parse(request.body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) throw BccApiError(faults::malformed_json());
  return body;
}

bool bool_field(const json& body, const char* key) {
  const auto it = body.find(key);
  if (it == body.end() || it->is_null()) return false;
  if (!it->is_boolean())
    throw BccApiError({400, "InappropriateJSON",
                       std::string("The JSON you provided was well-formed and valid, but ") + key +
                           " must be true or false."});
  return it->get<bool>();
}

std::optional<std::string> string_field(const json& body, const char* key) {
  const auto it = body.find(key);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_string())
    throw BccApiError({400, "InappropriateJSON",
                       std::string("The JSON you provided was well-formed and valid, but ") + key +
                           " must be a string."});
  return it->get<std::string>();
}

// The one verb of "PUT /v2/instance/{id}?verb".
std::string action_verb(const Params& params) {
  std::string verb;
  for (const auto& [name, value] : params) {
    if (name != "start" && name != "stop" && name != "reboot" && name != "rebuild") continue;
    if (!verb.empty())
      throw BccApiError(faults::invalid_parameter("Only one action may be given."));
    verb = name;
  }
  if (verb.empty()) throw BccApiError(faults::invalid_parameter("No action given."));
  return verb;
}

unsigned take_one(unsigned& counter) {
  if (counter == 0) return 0;
  --counter;
  return 1;
}

}  // namespace

BccSimulator::BccSimulator(boost::asio::io_context& io, BccSimulatorOptions options)
    : options_(std::move(options)), fleet_(options_.region, options_.transition) {
  if (options_.default_fleet) fleet_.add_default_instances();
  server_ = std::make_unique<ApiServer>(io, [this](const ApiRequest& r) { return handle(r); });
}

BccSimulator::~BccSimulator() {
  close();
}

boost::asio::ip::tcp::endpoint BccSimulator::listen(
    const boost::asio::ip::tcp::endpoint& endpoint) {
  return server_->listen(endpoint);
}

void BccSimulator::close() {
  if (server_) server_->close();
}

void BccSimulator::set_faults(const BccFaults& faults) {
  std::lock_guard lock(mutex_);
  faults_ = faults;
}

void BccSimulator::add_instance(SimInstance instance) {
  std::lock_guard lock(mutex_);
  fleet_.add(std::move(instance));
}

void BccSimulator::terminate(const std::string& id) {
  std::lock_guard lock(mutex_);
  fleet_.terminate(id);
}

void BccSimulator::finish_transitions() {
  std::lock_guard lock(mutex_);
  fleet_.finish_transitions();
}

json BccSimulator::instances() {
  std::lock_guard lock(mutex_);
  fleet_.advance(Clock::now());
  return fleet_.raw_state();
}

std::size_t BccSimulator::api_requests() const {
  std::lock_guard lock(mutex_);
  return api_requests_;
}

std::string BccSimulator::next_request_id() {
  // Shaped like Baidu's (a UUID); unique per simulator is all a client needs.
  const std::size_t n = ++request_counter_;
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "5a1b0c2d-%04zx-4e5f-8a9b-%012zx", n % 0x10000,
                reinterpret_cast<std::size_t>(this) ^ n);
  return buffer;
}

ApiReply BccSimulator::handle(const ApiRequest& request) {
  if (request.path().substr(0, kControl.size()) == kControl) return handle_control(request);
  std::lock_guard lock(mutex_);
  ++api_requests_;
  const std::string request_id = next_request_id();
  ApiReply reply;
  try {
    if (take_one(faults_.throttle_next))
      reply = error_reply(faults::throttled(), request_id);
    else if (take_one(faults_.error_next))
      reply = error_reply(faults::internal_error(), request_id);
    else if (take_one(faults_.expire_next))
      reply = error_reply(faults::request_expired("2000-01-01T00:00:00Z"), request_id);
    else if (const auto fault =
                 check_bce_auth(request, {{options_.access_key, options_.secret_key}},
                                std::chrono::system_clock::now()))
      reply = error_reply(*fault, request_id);
    else
      reply = handle_api(request, request_id);
  } catch (const BccApiError& e) {
    reply = error_reply(e.fault(), request_id);
  }
  reply.delay = faults_.latency;
  return reply;
}

ApiReply BccSimulator::handle_api(const ApiRequest& request, const std::string& request_id) {
  fleet_.advance(Clock::now());
  const std::string_view path = request.path();
  const Params params = decode_query(request.query());

  if (request.method == "GET" && path == kInstances) {
    const std::string marker = param(params, "marker").value_or("");
    const std::size_t page_size = std::min(max_keys_of(params), options_.page_size);
    const SimListPage page = fleet_.list(marker, page_size);
    json instances = json::array();
    for (const auto* i : page.instances) instances.push_back(BccFleet::model_json(*i));
    return json_reply(200,
                      {{"marker", page.marker},
                       {"isTruncated", page.truncated},
                       {"nextMarker", page.next_marker},
                       {"maxKeys", page_size},
                       {"instances", instances}},
                      request_id);
  }
  if (request.method == "GET" && path == kFlavorSpec)
    return json_reply(200, fleet_.flavor_spec(param(params, "zoneName")), request_id);

  const std::string prefix = std::string(kInstances) + "/";
  if (path.substr(0, prefix.size()) != prefix || path.size() == prefix.size() ||
      path.find('/', prefix.size()) != std::string_view::npos)
    throw BccApiError(faults::not_found_route());
  const std::string id(path.substr(prefix.size()));

  if (request.method == "GET")
    return json_reply(200, {{"instance", BccFleet::model_json(fleet_.get(id))}}, request_id);
  if (request.method != "PUT") throw BccApiError(faults::not_found_route());

  const std::string verb = action_verb(params);
  const json body = action_body(request);
  const auto now = Clock::now();
  if (verb == "start") {
    fleet_.start(id, now);
  } else if (verb == "stop") {
    fleet_.stop(id, bool_field(body, "forceStop"), now);
  } else if (verb == "reboot") {
    fleet_.reboot(id, bool_field(body, "forceStop"), now);
  } else {
    const auto image = string_field(body, "imageId");
    if (!image || image->empty())
      throw BccApiError(faults::invalid_parameter("imageId is required."));
    const auto encrypted = string_field(body, "adminPass");
    const auto keypair = string_field(body, "keypairId");
    std::optional<std::string> password;
    if (encrypted) {
      password = cloudapi::bcc::decrypt_admin_password(options_.secret_key, *encrypted);
      if (!password)
        throw BccApiError(faults::invalid_parameter(
            "adminPass cannot be decrypted: it must be AES-128-ECB encrypted with the secret "
            "key, in hex."));
    }
    if (!password && (!keypair || keypair->empty()))
      throw BccApiError(faults::invalid_parameter("adminPass or keypairId is required."));
    fleet_.rebuild(id, *image, password, keypair, now);
  }
  ApiReply reply;
  reply.status = 200;
  reply.content_type = "";
  reply.headers.emplace_back("x-bce-request-id", request_id);
  return reply;
}

ApiReply BccSimulator::handle_control(const ApiRequest& request) {
  const std::string_view rest = request.path().substr(kControl.size());
  std::lock_guard lock(mutex_);
  if (request.method == "GET" && rest == "instances") {
    fleet_.advance(Clock::now());
    return json_reply(200, fleet_.raw_state());
  }
  if (request.method == "POST" && rest == "transitions/finish") {
    fleet_.finish_transitions();
    return json_reply(200, fleet_.raw_state());
  }
  if (request.method == "POST" && rest == "faults") {
    json body = request.body.empty() ? json::object() : json::parse(request.body, nullptr, false);
    if (!body.is_object()) return control_error(400, "the body must be a JSON object");
    const auto count = [&](const char* key, unsigned& into) {
      if (!body.contains(key)) return true;
      if (!body[key].is_number_unsigned()) return false;
      into = body[key].get<unsigned>();
      return true;
    };
    unsigned latency = static_cast<unsigned>(faults_.latency.count());
    if (!count("throttle_next", faults_.throttle_next) ||
        !count("error_next", faults_.error_next) || !count("expire_next", faults_.expire_next) ||
        !count("latency_ms", latency))
      return control_error(400, "fault counts and latency_ms must be non-negative integers");
    faults_.latency = std::chrono::milliseconds(latency);
    return json_reply(200, {{"throttle_next", faults_.throttle_next},
                            {"error_next", faults_.error_next},
                            {"expire_next", faults_.expire_next},
                            {"latency_ms", faults_.latency.count()}});
  }
  constexpr std::string_view kTerminate = "/terminate";
  constexpr std::string_view kInstancesPrefix = "instances/";
  if (request.method == "POST" && rest.substr(0, kInstancesPrefix.size()) == kInstancesPrefix &&
      rest.size() > kInstancesPrefix.size() + kTerminate.size() &&
      rest.substr(rest.size() - kTerminate.size()) == kTerminate) {
    const std::string id(rest.substr(kInstancesPrefix.size(),
                                     rest.size() - kInstancesPrefix.size() - kTerminate.size()));
    try {
      fleet_.terminate(id);
    } catch (const BccApiError& e) {
      return control_error(404, e.fault().message);
    }
    return json_reply(200, {{"id", id}, {"status", "Deleted"}});
  }
  return control_error(404, "no such control route");
}

}  // namespace ironhold::sim::cloud::bcc
