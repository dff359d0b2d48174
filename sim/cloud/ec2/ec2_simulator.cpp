#include "sim/cloud/ec2/ec2_simulator.hpp"

#include <mutex>

#include "sim/cloud/ec2/ec2_auth.hpp"
#include "sim/cloud/ec2/ec2_service.hpp"
#include "sim/cloud/ec2/ec2_xml_writer.hpp"

namespace ironhold::sim::cloud::ec2 {
namespace {

ApiReply json_reply(unsigned status, const nlohmann::json& body) {
  ApiReply reply;
  reply.status = status;
  reply.content_type = "application/json";
  reply.body = body.dump();
  return reply;
}

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    const auto slash = path.find('/');
    const std::string_view part = path.substr(0, slash);
    if (!part.empty()) parts.push_back(part);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return parts;
}

// A non-negative integer member of a control body, or nothing.
std::optional<long long> count_of(const nlohmann::json& body, const char* key) {
  if (!body.contains(key)) return std::nullopt;
  if (!body[key].is_number_integer() || body[key].get<long long>() < 0)
    throw std::invalid_argument(std::string(key) + " must be a non-negative integer");
  return body[key].get<long long>();
}

}  // namespace

struct Ec2Simulator::State {
  State(Ec2SimulatorOptions opts)
      : options(std::move(opts)),
        service(
            Ec2Service::Settings{options.page_size, options.transition},
            options.default_fleet ? default_fleet(options.region) : std::vector<SimInstance>{}) {}

  Ec2SimulatorOptions options;
  Ec2Service service;
  std::mutex faults_mutex;
  long long throttle_next = 0;
  long long error_next = 0;
  std::chrono::milliseconds latency{0};

  ApiReply control(const ApiRequest& request) {
    const auto parts = split_path(request.path());
    nlohmann::json body = nlohmann::json::object();
    if (!request.body.empty()) {
      body = nlohmann::json::parse(request.body, nullptr, false);
      if (!body.is_object()) return json_reply(400, {{"error", "the body must be a JSON object"}});
    }
    if (request.method == "POST" && parts.size() == 2 && parts[1] == "faults") {
      try {
        std::lock_guard lock(faults_mutex);
        if (const auto n = count_of(body, "throttle_next")) throttle_next = *n;
        if (const auto n = count_of(body, "error_next")) error_next = *n;
        if (const auto n = count_of(body, "latency_ms")) latency = std::chrono::milliseconds(*n);
        return json_reply(200, {{"throttle_next", throttle_next},
                                {"error_next", error_next},
                                {"latency_ms", latency.count()}});
      } catch (const std::invalid_argument& e) {
        return json_reply(400, {{"error", e.what()}});
      }
    }
    if (request.method == "GET" && parts.size() == 2 && parts[1] == "instances")
      return json_reply(200, service.snapshot());
    if (request.method == "POST" && parts.size() == 4 && parts[1] == "instances") {
      const std::string id(parts[2]);
      if (parts[3] == "terminate") {
        if (!service.terminate_now(id)) return json_reply(404, {{"error", "no such instance"}});
        return json_reply(200, {{"id", id}, {"state", "terminated"}});
      }
      if (parts[3] == "system-status") {
        const std::string status = body.value("status", "");
        if (status != "ok" && status != "impaired")
          return json_reply(400, {{"error", "status must be ok or impaired"}});
        if (!service.set_system_status(id, status))
          return json_reply(404, {{"error", "no such instance"}});
        return json_reply(200, {{"id", id}, {"system_status", status}});
      }
    }
    return json_reply(404, {{"error", "no such control route"}});
  }

  ApiReply api(const ApiRequest& request) {
    std::chrono::milliseconds delay{0};
    {
      std::lock_guard lock(faults_mutex);
      delay = latency;
    }
    ApiReply reply = authenticated_call(request);
    reply.delay = delay;
    return reply;
  }

  ApiReply authenticated_call(const ApiRequest& request) {
    if (request.path() != "/") return error_reply(400, "InvalidAction", "The path must be /");
    if (request.method != "POST" && request.method != "GET")
      return error_reply(400, "InvalidAction", "Only POST and GET are supported");
    const AuthSettings auth{options.access_key_id, options.secret_access_key, options.session_token,
                            options.region, std::chrono::seconds(300)};
    if (auto refused = check_signature(request, auth, std::chrono::system_clock::now()))
      return *refused;
    {
      std::lock_guard lock(faults_mutex);
      if (throttle_next > 0) {
        --throttle_next;
        return error_reply(503, "RequestLimitExceeded", "Request limit exceeded.");
      }
      if (error_next > 0) {
        --error_next;
        return error_reply(500, "InternalError",
                           "An internal error has occurred. Retry your request.");
      }
    }
    const auto params =
        request.method == "POST" ? parse_form(request.body) : parse_form(request.query());
    return service.call(params);
  }
};

Ec2Simulator::Ec2Simulator(boost::asio::io_context& io, Ec2SimulatorOptions options)
    : state_(std::make_shared<State>(std::move(options))),
      server_(io, [state = state_](const ApiRequest& request) {
        if (request.path().starts_with("/_sim/")) return state->control(request);
        return state->api(request);
      }) {}

Ec2Simulator::~Ec2Simulator() {
  close();
}

boost::asio::ip::tcp::endpoint Ec2Simulator::listen(
    const boost::asio::ip::tcp::endpoint& endpoint) {
  return server_.listen(endpoint);
}

void Ec2Simulator::close() {
  server_.close();
}

const Ec2SimulatorOptions& Ec2Simulator::options() const {
  return state_->options;
}

nlohmann::json Ec2Simulator::instances() {
  return state_->service.snapshot();
}

ApiReply Ec2Simulator::handle(const ApiRequest& request) {
  if (request.path().starts_with("/_sim/")) return state_->control(request);
  return state_->api(request);
}

}  // namespace ironhold::sim::cloud::ec2
