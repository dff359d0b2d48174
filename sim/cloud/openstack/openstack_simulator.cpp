#include "sim/cloud/openstack/openstack_simulator.hpp"

#include <random>

#include "sim/cloud/openstack/sim_state.hpp"

namespace ironhold::sim::cloud::openstack {

using nlohmann::json;

namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

std::mt19937_64& random_engine() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return engine;
}

}  // namespace

std::string random_hex(std::size_t bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  std::uniform_int_distribution<int> nibble(0, 15);
  for (std::size_t i = 0; i < bytes * 2; ++i) out += kDigits[nibble(random_engine())];
  return out;
}

std::string random_uuid() {
  const std::string hex = random_hex(16);
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-4" + hex.substr(13, 3) + "-a" +
         hex.substr(17, 3) + "-" + hex.substr(20, 12);
}

ApiReply json_reply(unsigned status, const json& body) {
  ApiReply reply;
  reply.status = status;
  reply.body = body.dump();
  return reply;
}

ApiReply nova_fault(unsigned status, const std::string& kind, const std::string& message) {
  return json_reply(status, json{{kind, {{"code", status}, {"message", message}}}});
}

ApiReply keystone_error(unsigned status, const std::string& title, const std::string& message) {
  return json_reply(status,
                    json{{"error", {{"code", status}, {"message", message}, {"title", title}}}});
}

OpenStackSimulator::State::State(OpenStackSimulatorOptions opts)
    : options(std::move(opts)), user_id(random_hex(16)), project_id(random_hex(16)) {
  if (options.page_size == 0) options.page_size = 1;
  if (options.default_fleet) add_default_fleet(*this);
}

void OpenStackSimulator::State::settle() {
  const auto now = std::chrono::steady_clock::now();
  for (auto& s : servers) {
    if (!s.pending || now < s.pending->at) continue;
    s.status = s.pending->status;
    s.power_state = s.pending->power_state;
    s.vm_state = s.pending->vm_state;
    s.task_state.reset();
    s.pending.reset();
    s.updated = std::chrono::system_clock::now();
  }
}

const SimFlavor* OpenStackSimulator::State::flavor(const std::string& id) const {
  for (const auto& f : flavors)
    if (f.id == id) return &f;
  return nullptr;
}

SimServer* OpenStackSimulator::State::server(const std::string& id) {
  for (auto& s : servers)
    if (s.id == id) return &s;
  return nullptr;
}

json OpenStackSimulator::State::describe() const {
  json list = json::array();
  for (const auto& s : servers) {
    const SimFlavor* f = flavor(s.flavor_id);
    list.push_back({{"id", s.id},
                    {"name", s.name},
                    {"status", s.status},
                    {"vm_state", s.vm_state},
                    {"power_state", s.power_state},
                    {"task_state", s.task_state ? json(*s.task_state) : json(nullptr)},
                    {"flavor_id", s.flavor_id},
                    {"flavor", f ? f->name : ""},
                    {"image_id", s.image_id},
                    {"zone", s.zone},
                    {"deleted", s.deleted()},
                    {"fault", s.fault ? json(*s.fault) : json(nullptr)},
                    {"metadata", s.metadata}});
  }
  return {{"instances", list},
          {"auth_requests", auth_requests},
          {"api_requests", api_requests},
          {"active_tokens", tokens.size()}};
}

ApiReply OpenStackSimulator::State::handle(const ApiRequest& request) {
  std::lock_guard lock(mutex);
  settle();
  const std::string_view path = request.path();
  if (starts_with(path, "/_sim/")) return control_route(*this, request, path.substr(6));

  ++api_requests;
  ApiReply reply;
  if (faults.throttle_next > 0) {
    --faults.throttle_next;
    // The shape of Nova's (and repose's) rate-limit fault; deployments add such middleware.
    reply = json_reply(
        429,
        json{
            {"overLimit",
             {{"code", 429}, {"message", "This request was rate-limited."}, {"retryAfter", "1"}}}});
    reply.headers.emplace_back("Retry-After", "1");
  } else if (faults.error_next > 0) {
    --faults.error_next;
    reply = nova_fault(500, "computeFault",
                       "Unexpected API Error. Please report this at "
                       "http://bugs.launchpad.net/nova/ and attach the Nova API log if possible.");
  } else if (path == "/identity" || starts_with(path, "/identity/")) {
    reply = identity_route(*this, request, path.substr(9));
  } else if (path == "/compute" || starts_with(path, "/compute/")) {
    reply = compute_route(*this, request, path.substr(8));
  } else {
    reply = json_reply(404, json{{"error", {{"code", 404}, {"message", "Not Found"}}}});
  }
  reply.delay = faults.latency;
  reply.headers.emplace_back("x-openstack-request-id", "req-" + random_uuid());
  return reply;
}

OpenStackSimulator::OpenStackSimulator(boost::asio::io_context& io,
                                       OpenStackSimulatorOptions options)
    : state_(std::make_shared<State>(std::move(options))) {
  server_ = std::make_unique<ApiServer>(
      io, [state = state_](const ApiRequest& request) { return state->handle(request); });
}

OpenStackSimulator::~OpenStackSimulator() {
  close();
}

boost::asio::ip::tcp::endpoint OpenStackSimulator::listen(
    const boost::asio::ip::tcp::endpoint& endpoint) {
  bound_ = server_->listen(endpoint);
  return bound_;
}

void OpenStackSimulator::close() {
  if (server_) server_->close();
}

std::string OpenStackSimulator::auth_url() const {
  return "http://" + bound_.address().to_string() + ":" + std::to_string(bound_.port()) +
         "/identity/v3";
}

json OpenStackSimulator::instances() const {
  std::lock_guard lock(state_->mutex);
  state_->settle();
  return state_->describe();
}

ApiReply OpenStackSimulator::handle(const ApiRequest& request) {
  return state_->handle(request);
}

}  // namespace ironhold::sim::cloud::openstack
